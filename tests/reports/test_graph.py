"""The plane map: the bundled example's inventory as nodes, edges and plane colours, and the
Mermaid, DOT and GraphML texts read back structurally."""

from __future__ import annotations

import io
from pathlib import Path

import networkx as nx
import pytest

from planeshift.api import scan
from planeshift.config import load_config
from planeshift.reports.graph import (
    COLOURS,
    build_graph,
    counts,
    mermaid_ids,
    render_dot,
    render_graphml,
    render_mermaid,
)
from planeshift.types import (
    Emission,
    Handler,
    MechanismSummary,
    Registration,
    ScanResult,
)

from .graph_syntax import read_dot, read_mermaid

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "legacy_app"

# Each registration of examples/legacy_app: site, plane, what it registers on, its handler.
SITES = {
    (".lionagi/settings.yaml:8", "interceptor", "point:external_hooks:PreToolUse",
     "python -m shop.policy --deny-shell"),
    (".lionagi/settings.yaml:12", "observing_subscriber", "point:external_hooks:SessionStart",
     "python -m shop.notify --channel ops"),
    (".lionagi/settings.yaml:17", "observing_subscriber", "point:external_hooks:PostToolUse",
     "python -m shop.audit_log | tee -a audit.log"),
    ("shop/audit.py:25", "interceptor", "point:session_observer:GATE",
     "shop.audit.allow_only_staff"),
    ("shop/audit.py:26", "subscriber", "point:session_observer:Signal",
     "shop.audit.write_audit_row"),
    ("shop/audit.py:27", "subscriber", "dispatcher:message_manager", None),  # a lambda
    ("shop/guards.py:23", "interceptor", "point:hookbus:TOOL_PRE", "shop.guards.deny_shell"),
    ("shop/guards.py:24", "subscriber", "point:hookbus:TOOL_POST", "shop.guards.log_tool"),
    ("shop/notify.py:16", "delivery_sink", "point:terminal_callbacks:shop.pager",
     "shop.notify.page_on_call"),
    ("shop/notify.py:21", "subscriber", "point:hookbus:SESSION_START", "builtins.print"),
    ("shop/notify.py:21", "subscriber", "point:hookbus:SESSION_END", "builtins.print"),
    ("shop/orders.py:15", "interceptor", "point:shop_events:ORDER_VALIDATE",
     "shop.orders.OrderService.check_stock"),
    ("shop/orders.py:16", "subscriber", "point:shop_events:ORDER_PLACED",
     "shop.mailer.send_receipt"),
    ("shop/orders.py:17", "subscriber", "dispatcher:shop_events",  # appended to a list
     "shop.orders.OrderService.remember"),
    ("shop/orders.py:32", "subscriber", "point:shop_events:ORDER_SHIPPED",
     "shop.orders.log_shipment"),
    ("shop/orders.py:38", "subscriber", "point:shop_events:ORDER_REFUNDED",
     "shop.orders.log_shipment"),
}
DISPATCHERS = {"hookbus", "session_observer", "message_manager", "terminal_callbacks",
               "external_hooks", "shop_events"}
POINTS = {  # ARTIFACT_CREATED, dormant but registered on by nothing here, is not drawn
    ("hookbus", "TOOL_PRE"), ("hookbus", "TOOL_POST"),
    ("hookbus", "SESSION_START"), ("hookbus", "SESSION_END"),
    ("shop_events", "ORDER_VALIDATE"), ("shop_events", "ORDER_PLACED"),
    ("shop_events", "ORDER_SHIPPED"), ("shop_events", "ORDER_REFUNDED"),
    ("external_hooks", "PreToolUse"), ("external_hooks", "SessionStart"),
    ("external_hooks", "PostToolUse"), ("session_observer", "GATE"),
    ("session_observer", "Signal"), ("terminal_callbacks", "shop.pager"),
}
EMITS = {
    ("emitter:shop/__main__.py:run", "point:hookbus:TOOL_PRE"),
    ("emitter:shop/__main__.py:run", "point:hookbus:TOOL_POST"),
    ("emitter:shop/__main__.py:run", "dispatcher:session_observer"),
    ("emitter:shop/__main__.py:run", "dispatcher:message_manager"),
    ("emitter:shop/__main__.py:run", "dispatcher:terminal_callbacks"),
    ("emitter:shop/orders.py:OrderService.place", "point:shop_events:ORDER_VALIDATE"),
    ("emitter:shop/orders.py:OrderService.place", "point:shop_events:ORDER_PLACED"),
    ("emitter:shop/orders.py:ship", "point:shop_events:ORDER_SHIPPED"),
}


@pytest.fixture(scope="module")
def example() -> ScanResult:
    # the library the example's packs name is judged from the packs alone (installed or not)
    return scan(load_config(EXAMPLE).with_flags(use_cache=False, use_context=False))


@pytest.fixture(scope="module")
def graph(example: ScanResult) -> nx.DiGraph:
    return build_graph(example)


def of_kind(graph: nx.DiGraph, kind: str) -> set[str]:
    return {n for n, k in graph.nodes(data="kind") if k == kind}


def edges_of(graph: nx.DiGraph, kind: str) -> set[tuple[str, str]]:
    return {(s, t) for s, t, k in graph.edges(data="kind") if k == kind}


def site(graph: nx.DiGraph, node: str) -> str:
    return f"{graph.nodes[node]['file']}:{graph.nodes[node]['line']}"


def test_example_nodes_are_its_dispatchers_points_handlers_and_emitters(graph: nx.DiGraph) -> None:
    assert of_kind(graph, "dispatcher") == {f"dispatcher:{m}" for m in DISPATCHERS}
    assert of_kind(graph, "point") == {f"point:{m}:{p}" for m, p in POINTS}
    assert of_kind(graph, "handler") == {f"handler:{h}" for *_, h in SITES if h}
    assert of_kind(graph, "emitter") == {s for s, _ in EMITS}
    assert counts(graph)[0] == {"dispatcher": 6, "point": 14, "registration": 16,
                                "handler": 13, "emitter": 3}


def test_example_edges_link_registration_point_dispatcher_handler_emitter(
        graph: nx.DiGraph) -> None:
    registers = {(site(graph, s), t) for s, t in edges_of(graph, "registers")}
    assert registers == {(where, target) for where, _, target, _ in SITES}
    handled = {(site(graph, s), t) for s, t in edges_of(graph, "handled_by")}
    assert handled == {(where, f"handler:{h}") for where, _, _, h in SITES if h}
    assert edges_of(graph, "dispatched_by") == {(f"point:{m}:{p}", f"dispatcher:{m}")
                                                for m, p in POINTS}
    assert edges_of(graph, "emits") == EMITS
    assert len(edges_of(graph, "registers")) == 16  # print() on two points: two registrations


def test_example_registrations_and_handlers_take_their_plane(graph: nx.DiGraph) -> None:
    planes = {(site(graph, n), graph.nodes[n]["point"], graph.nodes[n]["style_class"])
              for n in of_kind(graph, "registration")}
    assert planes == {(where, target.rpartition(":")[2] if target.startswith("point:") else "",
                       plane) for where, plane, target, _ in SITES}
    handler_planes = {graph.nodes[n]["qualname"]: graph.nodes[n]["style_class"]
                      for n in of_kind(graph, "handler")}
    assert handler_planes == {h: plane for _, plane, _, h in SITES if h}
    assert handler_planes["shop.guards.deny_shell"] == "interceptor"
    assert handler_planes["shop.notify.page_on_call"] == "delivery_sink"
    points = {graph.nodes[n]["point"]: graph.nodes[n]["style_class"]
              for n in of_kind(graph, "point")}
    assert points.pop("ORDER_REFUNDED") == "dormant"  # registered on, emitted nowhere
    assert set(points.values()) == {"point"}


def test_example_mermaid_declares_every_id_an_edge_uses_and_colours_by_plane(
        graph: nx.DiGraph) -> None:
    mermaid = read_mermaid(render_mermaid(graph))
    ids = mermaid_ids(graph)
    assert set(mermaid.nodes) == set(ids.values()) and len(mermaid.nodes) == 52
    assert {(s, d) for s, _, d in mermaid.edges} == {(ids[s], ids[t]) for s, t in graph.edges}
    assert all(src in mermaid.nodes and dst in mermaid.nodes for src, _, dst in mermaid.edges)
    assert {cls for _, cls in mermaid.nodes.values()} <= set(mermaid.classes)
    guard = ids[next(n for n in of_kind(graph, "registration")
                     if site(graph, n) == "shop/guards.py:23")]
    assert mermaid.nodes[guard] == ("install_guard<br/>shop/guards.py:23", "interceptor")
    assert mermaid.classes["interceptor"].startswith(f"fill:{COLOURS['interceptor'][0]},")
    pager = ids["handler:shop.notify.page_on_call"]
    assert mermaid.nodes[pager] == ("notify.page_on_call", "delivery_sink")
    arrows = {arrow for _, arrow, _ in mermaid.edges}
    assert arrows == {"-->", "-.->", "==>"}


def test_example_dot_is_well_formed_with_quoted_ids_and_plane_fills(graph: nx.DiGraph) -> None:
    dot = read_dot(render_dot(graph))
    assert set(dot.nodes) == set(graph.nodes)
    assert {(s, t) for s, t, _ in dot.edges} == set(graph.edges)
    handler = dot.nodes["handler:python -m shop.audit_log | tee -a audit.log"]
    assert handler["fillcolor"] == COLOURS["observing_subscriber"][0]
    assert dot.nodes["dispatcher:shop_events"]["label"] == "shop_events\nEventBus"


def test_example_graphml_reads_back_with_networkx(graph: nx.DiGraph) -> None:
    back = nx.read_graphml(io.BytesIO(render_graphml(graph).encode("utf-8")))
    assert back.number_of_nodes() == graph.number_of_nodes() == 52
    assert back.number_of_edges() == graph.number_of_edges() == 53
    node = "handler:shop.guards.deny_shell"
    assert back.nodes[node]["plane"] == "interceptor"
    assert back.nodes[node]["color"] == COLOURS["interceptor"][0]
    assert back.edges["emitter:shop/orders.py:ship", "point:shop_events:ORDER_SHIPPED"]["kind"] \
        == "emits"


def test_mechanism_filter_keeps_one_mechanism_and_what_hangs_off_it(example: ScanResult) -> None:
    graph = build_graph(example, ["shop_events"])
    assert of_kind(graph, "dispatcher") == {"dispatcher:shop_events"}
    assert {graph.nodes[n]["mechanism"] for n in of_kind(graph, "registration")} == \
        {"shop_events"}
    assert of_kind(graph, "emitter") == {"emitter:shop/orders.py:OrderService.place",
                                         "emitter:shop/orders.py:ship"}
    assert "handler:shop.guards.deny_shell" not in graph


# -- a hand-built result: every plane, shared handlers, candidates, awkward labels ------------

def reg(line: int, point: str | None, handler: Handler, plane: str,
        mechanism: str = "bus") -> Registration:
    return Registration("app/hooks.py", line, 4, mechanism, "on", point, handler, plane, "high")


AUDIT = Handler("audit", "app.hooks.audit", False, False, "function")
SEVERAL = Handler("handler", None, True, True, "several", candidates=("app.a.one", "app.b.two"))
LAMBDA = Handler("lambda e: None", None, False, False, "lambda")


def awkward() -> ScanResult:
    registrations = (
        reg(1, "BEFORE", Handler("check", "app.hooks.check", False, False, "function"),
            "interceptor"),
        reg(2, "AFTER", AUDIT, "subscriber"),
        reg(3, "AFTER", AUDIT, "commit_participant"),  # one handler, two planes: mixed
        reg(4, 'signal("say \\"hi\\" #1 <b> & `x`")', LAMBDA, "observing_subscriber"),
        reg(5, None, SEVERAL, "delivery_sink"),
        reg(6, "AFTER", Handler("h[k]", None, None, None, "unknown"), "needs_review"),
        reg(7, "AFTER", Handler("odd", "app.odd", False, False, "function"), "audit_plane"),
    )
    emissions = (Emission("app/run.py", 3, 0, "bus", "emit", "AFTER", ""),
                 Emission("app/run.py", 4, 0, "bus", "emit", "AFTER", ""),
                 Emission("app/run.py", 9, 4, "bus", "emit", None, "end"))
    mechanisms = (MechanismSummary("bus", "A bus", ("app.bus.Bus",), ("on",), ("emit",), 7),
                  MechanismSummary("quiet", "Nothing here", ("app.q.Q",), ("on",), (), 0))
    library = (Registration("lib/x.py", 9, 0, "bus", "on", "AFTER", AUDIT, "subscriber", "high"),)
    return ScanResult("/repo", registrations, emissions, mechanisms, library=library)


def test_every_plane_has_its_class_and_a_handler_in_two_planes_is_mixed() -> None:
    graph = build_graph(awkward())
    classes = {graph.nodes[n]["line"]: graph.nodes[n]["style_class"]
               for n in of_kind(graph, "registration") if not graph.nodes[n]["library"]}
    assert classes == {1: "interceptor", 2: "subscriber", 3: "commit_participant",
                       4: "observing_subscriber", 5: "delivery_sink", 6: "needs_review",
                       7: "other_plane"}
    assert graph.nodes["handler:app.hooks.audit"]["style_class"] == "mixed"
    assert graph.nodes["handler:app.hooks.audit"]["planes"] == "subscriber,commit_participant"
    assert graph.nodes["handler:app.hooks.check"]["style_class"] == "interceptor"
    mermaid = read_mermaid(render_mermaid(graph))
    assert {cls for _, cls in mermaid.nodes.values()} == {
        "interceptor", "subscriber", "commit_participant", "observing_subscriber",
        "delivery_sink", "needs_review", "other_plane", "mixed", "dispatcher", "point",
        "emitter"}
    assert "stroke-dasharray" in mermaid.classes["needs_review"]


def test_candidates_lambdas_pointless_sites_and_library_registrations() -> None:
    graph = build_graph(awkward())
    several = next(n for n in of_kind(graph, "registration") if graph.nodes[n]["line"] == 5)
    assert set(graph.successors(several)) == {"dispatcher:bus", "handler:app.a.one",
                                              "handler:app.b.two"}
    assert all(graph.edges[several, h]["candidate"] for h in ("handler:app.a.one",
                                                              "handler:app.b.two"))
    lam = next(n for n in of_kind(graph, "registration") if graph.nodes[n]["line"] == 4)
    assert [graph.nodes[t]["kind"] for t in graph.successors(lam)] == ["point"]
    module = "emitter:app/run.py:"
    assert graph.nodes[module]["label"] == "<module>\napp/run.py"
    assert graph.edges[module, "point:bus:AFTER"]["sites"] == 2
    assert graph.edges[module, "point:bus:AFTER"]["lines"] == "3,4"
    assert graph.has_edge("emitter:app/run.py:end", "dispatcher:bus")
    assert "dispatcher:quiet" not in graph  # a mechanism the tree never touches
    library = [n for n in of_kind(graph, "registration") if graph.nodes[n]["library"]]
    assert [graph.nodes[n]["file"] for n in library] == ["lib/x.py"]


def test_labels_are_escaped_and_ids_sanitised_in_every_format() -> None:
    graph = build_graph(awkward())
    point = 'point:bus:signal("say \\"hi\\" #1 <b> & `x`")'
    text = render_mermaid(graph)
    mermaid = read_mermaid(text)
    ids = mermaid_ids(graph)
    assert mermaid.nodes[ids[point]][0] == (
        "signal(#quot;say \\#quot;hi\\#quot; #35;1 #lt;b#gt; #38; #96;x#96;#quot;)")
    assert ids[point] == "p_bus_signal_say_hi_1_b_x"
    assert ids["emitter:app/run.py:end"] == "e_app_run_py_end"  # never the keyword `end`
    assert len(set(ids.values())) == graph.number_of_nodes()
    dot = read_dot(render_dot(graph))
    assert dot.nodes[point]["label"] == 'signal("say \\"hi\\" #1 <b> & `x`")'
    assert set(dot.nodes) == set(graph.nodes)
    back = nx.read_graphml(io.BytesIO(render_graphml(graph).encode("utf-8")))
    assert back.nodes[point]["point"] == 'signal("say \\"hi\\" #1 <b> & `x`")'
    assert back.number_of_nodes() == graph.number_of_nodes()


def test_colliding_sanitised_ids_get_a_suffix() -> None:
    result = ScanResult("/r", (reg(1, "a.b", AUDIT, "subscriber"),
                               reg(2, "a_b", AUDIT, "subscriber")),
                        (), (MechanismSummary("bus", "", (), (), (), 2),))
    ids = mermaid_ids(build_graph(result))
    assert ids["point:bus:a.b"] == "p_bus_a_b" and ids["point:bus:a_b"] == "p_bus_a_b_2"


def test_the_graph_page_example_is_what_the_command_writes(example: ScanResult) -> None:
    page = (EXAMPLE.parents[1] / "docs" / "commands" / "graph.md").read_text(encoding="utf-8")
    shown = page.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert shown == render_mermaid(build_graph(example, ["shop_events"]))


def test_a_tree_without_sites_draws_no_dispatcher(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'd'\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    result = scan(load_config(tmp_path).with_flags(use_cache=False, use_context=False))
    assert result.mechanisms and any(m.dormant_points for m in result.mechanisms)
    graph = build_graph(result)
    assert graph.number_of_nodes() == 0
    assert render_mermaid(graph) == "flowchart LR\n"
