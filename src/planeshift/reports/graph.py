"""The plane map: a ScanResult as a graph, rendered as Mermaid, DOT or GraphML.

Nodes (attribute ``kind``): one *dispatcher* per mechanism the tree touches, one *point* per
(mechanism, point) a registration or an emission names (``dormant``, drawn dashed, when the
scan found nothing that emits it), one *registration* per site (classified into its plane), one
*handler* per callable (or external process) the scan resolved a registration's handler to, and
one *emitter* per function (or module) that emits. Edges (attribute ``kind``): ``registers``
registration -> point, ``dispatched_by`` point -> dispatcher, ``handled_by`` registration ->
handler, ``emits`` emitter -> point. A registration or emission without a point (a mechanism
with one implicit point, or a point the scan could not read) links to the dispatcher itself.
Points are the scan's own strings, as in the JSON report.

networkx is imported here and in ``codemods/series/build.py`` (``migrate --series`` orders its patches
with it) only: ``planeshift graph`` is the one command that loads this module, so a scan never
pays for it.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable

import networkx as nx

from ..types import PLANES, Emission, MechanismSummary, Registration, ScanResult

FORMATS = ("mermaid", "dot", "graphml")
NODE_KINDS = ("dispatcher", "point", "registration", "handler", "emitter")
EDGE_KINDS = ("registers", "dispatched_by", "handled_by", "emits")

MIXED = "mixed"  # a handler registered in more than one plane
OTHER = "other_plane"  # a plane a pack invented
# fill, stroke: a plane's colour on its registrations and handlers, a kind's on the rest
COLOURS = {
    "interceptor": ("#f4cccc", "#cc0000"),
    "subscriber": ("#cfe2f3", "#3d85c6"),
    "observing_subscriber": ("#d0e0e3", "#45818e"),
    "commit_participant": ("#d9d2e9", "#674ea7"),
    "delivery_sink": ("#fce5cd", "#e69138"),
    "needs_review": ("#fff2cc", "#bf9000"),
    MIXED: ("#eeeeee", "#666666"),
    OTHER: ("#ffffff", "#999999"),
    "dispatcher": ("#d9d9d9", "#434343"),
    "point": ("#ffffff", "#434343"),
    "dormant": ("#ffffff", "#999999"),  # a point nothing emits
    "emitter": ("#d9ead3", "#6aa84f"),
}

DASHED = ("needs_review", "dormant")


def build_graph(result: ScanResult, mechanisms: Iterable[str] = ()) -> nx.DiGraph:
    """The inventory as a directed graph, nodes and edges in the result's order; with
    *mechanisms*, only those mechanisms and what hangs off them."""
    keep = set(mechanisms)
    wanted = (lambda m: m in keep) if keep else (lambda m: True)
    summaries = {m.id: m for m in result.mechanisms}
    registrations = [(r, False) for r in result.registrations if wanted(r.mechanism)]
    registrations += [(r, True) for r in result.library if wanted(r.mechanism)]
    emissions = [e for e in result.emissions if wanted(e.mechanism)]
    touched = {r.mechanism for r, _ in registrations} | {e.mechanism for e in emissions}
    order = [m.id for m in result.mechanisms] + sorted(touched - set(summaries))
    builder = _Builder(f"planeshift plane map of {result.root}")
    for mechanism in (m for m in order if m in touched):
        builder.dispatcher(mechanism, summaries.get(mechanism))
    for reg, library in registrations:
        builder.registration(reg, library)
    for emission in emissions:
        builder.emission(emission)
    builder.colour_handlers()
    return builder.graph


def counts(graph: nx.DiGraph) -> tuple[dict[str, int], dict[str, int]]:
    """Nodes and edges per kind, every kind present, in NODE_KINDS / EDGE_KINDS order."""
    nodes = dict.fromkeys(NODE_KINDS, 0)
    for _, kind in graph.nodes(data="kind"):
        nodes[kind] += 1
    edges = dict.fromkeys(EDGE_KINDS, 0)
    for _, _, kind in graph.edges(data="kind"):
        edges[kind] += 1
    return nodes, edges


def plane_class(plane: str) -> str:
    """The style class of a plane: the plane itself, ``mixed``, or ``other_plane``."""
    return plane if plane in PLANES or plane == MIXED else OTHER


def render(graph: nx.DiGraph, fmt: str) -> str:
    if fmt == "mermaid":
        return render_mermaid(graph)
    if fmt == "dot":
        return render_dot(graph)
    if fmt == "graphml":
        return render_graphml(graph)
    raise ValueError(f"unknown graph format {fmt!r}")


# -- building ----------------------------------------------------------------------------------

def _dispatcher_id(mechanism: str) -> str:
    return f"dispatcher:{mechanism}"


class _Builder:
    """Adds the nodes and edges of one result's sites, each node once."""

    def __init__(self, name: str) -> None:
        self.graph = nx.DiGraph(name=name)
        self.dormant: dict[str, tuple[str, ...]] = {}  # mechanism: the points nothing emits

    def dispatcher(self, mechanism: str, summary: MechanismSummary | None) -> None:
        classes = tuple(summary.dispatcher) if summary else ()
        label = [mechanism]
        if classes:  # a class or function by its last name; a settings key as the pack words it
            first = _short(classes[0], 1) if re.fullmatch(r"[\w.]+", classes[0]) else \
                classes[0].split(" in ")[0]
            label.append(first + (f" +{len(classes) - 1}" if len(classes) > 1 else ""))
        self.dormant[mechanism] = summary.dormant_points if summary else ()
        self.graph.add_node(_dispatcher_id(mechanism), kind="dispatcher", label="\n".join(label),
                            mechanism=mechanism, dispatchers="; ".join(classes),
                            title=summary.title if summary else "",
                            pack=summary.pack if summary else "", style_class="dispatcher")

    def point(self, mechanism: str, point: str | None) -> str:
        """The node a site on *point* links to (the dispatcher when there is no point)."""
        if point is None:
            return _dispatcher_id(mechanism)
        node = f"point:{mechanism}:{point}"
        if node not in self.graph:
            dormant = point in self.dormant[mechanism]
            self.graph.add_node(node, kind="point", label=point, mechanism=mechanism,
                                point=point, dormant=dormant,
                                style_class="dormant" if dormant else "point")
            self.graph.add_edge(node, _dispatcher_id(mechanism), kind="dispatched_by")
        return node

    def registration(self, reg: Registration, library: bool) -> None:
        graph = self.graph
        node = "registration:" + ":".join(str(part) for part in reg.key)
        graph.add_node(node, kind="registration", label=f"{reg.api}\n{reg.file}:{reg.line}",
                       mechanism=reg.mechanism, plane=reg.plane, file=reg.file, line=reg.line,
                       col=reg.col, api=reg.api, point=reg.point or "", handler=reg.handler.expr,
                       confidence=reg.confidence, via=reg.via, rule=reg.rule,
                       flags=",".join(reg.flags), library=library,
                       style_class=plane_class(reg.plane))
        graph.add_edge(node, self.point(reg.mechanism, reg.point), kind="registers")
        handler = reg.handler
        if handler.qualname:
            targets = [(handler.qualname, False)]
        elif handler.candidates:
            targets = [(c, True) for c in handler.candidates]
        elif handler.kind == "process":  # an external hook: the command is what runs
            targets = [(handler.expr, False)]
        else:  # a lambda, a subscript, a name the scan could not resolve
            return
        for name, candidate in targets:
            target = f"handler:{name}"
            if target not in graph:
                graph.add_node(target, kind="handler", qualname=name, handler_kind=handler.kind,
                               label=name if handler.kind == "process" else _short(name, 2),
                               planes=(), plane="", mechanism="")
            graph.nodes[target]["planes"] += (reg.plane,)
            graph.add_edge(node, target, kind="handled_by", candidate=candidate,
                           by_name=handler.by_name)

    def emission(self, emission: Emission) -> None:
        graph = self.graph
        node = f"emitter:{emission.file}:{emission.scope}"
        if node not in graph:
            where = f"{emission.scope}()" if emission.scope else "<module>"
            graph.add_node(node, kind="emitter", label=f"{where}\n{emission.file}",
                           file=emission.file, scope=emission.scope, mechanism="",
                           style_class="emitter")
        target = self.point(emission.mechanism, emission.point)
        if graph.has_edge(node, target):
            edge = graph.edges[node, target]
            edge["sites"] += 1
            edge["lines"] += f",{emission.line}"
            return
        graph.add_edge(node, target, kind="emits", api=emission.api, sites=1,
                       lines=str(emission.line))

    def colour_handlers(self) -> None:
        """A handler takes its registrations' plane when they agree, else ``mixed``."""
        for _, data in self.graph.nodes(data=True):
            if data["kind"] == "handler":
                planes = sorted(set(data["planes"]), key=lambda p: (
                    PLANES.index(p) if p in PLANES else len(PLANES), p))
                data["planes"] = ",".join(planes)  # GraphML holds scalars
                data["plane"] = planes[0] if len(planes) == 1 else MIXED
                data["style_class"] = plane_class(data["plane"])


def _short(dotted: str, parts: int) -> str:
    """The last *parts* components of a dotted name (a label; the node keeps the full name)."""
    return ".".join(dotted.split(".")[-parts:])


# -- Mermaid -----------------------------------------------------------------------------------

_MERMAID_SHAPES = {  # opening and closing of each kind's node shape
    "dispatcher": ("[[", "]]"),
    "point": ("{{", "}}"),
    "registration": ("[", "]"),
    "handler": ("(", ")"),
    "emitter": (">", "]"),
}
_MERMAID_ARROWS = {"registers": "-->", "dispatched_by": "-->", "handled_by": "-.->",
                   "emits": "==>"}
_MERMAID_ENTITIES = (("#", "#35;"), ('"', "#quot;"), ("&", "#38;"), ("<", "#lt;"),
                     (">", "#gt;"), ("`", "#96;"))


def ordered(graph: nx.DiGraph) -> tuple[list[str], list[tuple[str, str, str]]]:
    """Nodes by kind (NODE_KINDS order), edges by kind (EDGE_KINDS order), each in the order
    the graph holds them: the order every renderer writes."""
    nodes = sorted(graph.nodes, key=lambda n: NODE_KINDS.index(graph.nodes[n]["kind"]))
    edges = sorted(graph.edges(data="kind"), key=lambda e: EDGE_KINDS.index(e[2]))
    return nodes, edges


def mermaid_ids(graph: nx.DiGraph) -> dict[str, str]:
    """A Mermaid-safe id for every node: its kind's letter, then its key (a registration's: its
    file and line) with every character outside [A-Za-z0-9_] replaced, made unique with a
    numeric suffix."""
    ids: dict[str, str] = {}
    taken: set[str] = set()
    for node in ordered(graph)[0]:
        data = graph.nodes[node]
        kind = data["kind"]
        key = f"{data['file']}_{data['line']}" if kind == "registration" else node.split(":", 1)[1]
        base = f"{kind[0]}_{re.sub(r'_+', '_', re.sub(r'[^A-Za-z0-9_]', '_', key)).strip('_')}"
        candidate, n = base, 1
        while candidate in taken:
            n += 1
            candidate = f"{base}_{n}"
        taken.add(candidate)
        ids[node] = candidate
    return ids


def mermaid_text(text: str) -> str:
    """A label line made safe inside a quoted Mermaid label (entity codes for the characters
    Mermaid or its HTML labels would read)."""
    for char, entity in _MERMAID_ENTITIES:
        text = text.replace(char, entity)
    return text


def render_mermaid(graph: nx.DiGraph) -> str:
    """``flowchart LR``: a classDef per plane and kind in use, each node in its class, the
    edges."""
    ids = mermaid_ids(graph)
    lines = ["flowchart LR"]
    used = {cls for _, cls in graph.nodes(data="style_class")}
    for name, (fill, stroke) in ((n, c) for n, c in COLOURS.items() if n in used):
        dash = ",stroke-dasharray:4 3" if name in DASHED else ""
        lines.append(f"  classDef {name} fill:{fill},stroke:{stroke},color:#000{dash}")
    nodes, edges = ordered(graph)
    for node in nodes:
        data = graph.nodes[node]
        opening, closing = _MERMAID_SHAPES[data["kind"]]
        label = "<br/>".join(mermaid_text(line) for line in data["label"].split("\n"))
        lines.append(f'  {ids[node]}{opening}"{label}"{closing}:::{data["style_class"]}')
    for source, target, kind in edges:
        lines.append(f"  {ids[source]} {_MERMAID_ARROWS[kind]} {ids[target]}")
    return "\n".join(lines) + "\n"


# -- DOT ---------------------------------------------------------------------------------------

_DOT_SHAPES = {"dispatcher": "box3d", "point": "hexagon", "registration": "box",
               "handler": "ellipse", "emitter": "cds"}
_DOT_EDGES = {"registers": "", "dispatched_by": "", "handled_by": ", style=dashed",
              "emits": ", style=bold"}


def dot_quote(text: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, line breaks as ``\\n``."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\r", "").replace("\n", "\\n") + '"'


def render_dot(graph: nx.DiGraph) -> str:
    """A Graphviz digraph, left to right, every id quoted, each node filled with its colour."""
    lines = ["digraph planeshift {", "  rankdir=LR;",
             '  node [fontname="Helvetica", fontsize=10, style=filled];',
             '  edge [fontname="Helvetica", fontsize=9];']
    nodes, edges = ordered(graph)
    for node in nodes:
        data = graph.nodes[node]
        fill, stroke = COLOURS[data["style_class"]]
        dashed = ",dashed" if data["style_class"] in DASHED else ""
        lines.append(f"  {dot_quote(node)} [label={dot_quote(data['label'])}, "
                     f"shape={_DOT_SHAPES[data['kind']]}, fillcolor=\"{fill}\", "
                     f"color=\"{stroke}\", style=\"filled{dashed}\"];")
    for source, target, kind in edges:
        lines.append(f"  {dot_quote(source)} -> {dot_quote(target)} "
                     f"[label={dot_quote(kind)}{_DOT_EDGES[kind]}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- GraphML -----------------------------------------------------------------------------------

def render_graphml(graph: nx.DiGraph) -> str:
    """GraphML as ``networkx.write_graphml`` writes it (UTF-8, with its XML declaration), each
    node's fill colour as ``color``."""
    out = nx.DiGraph()
    out.graph.update(graph.graph)
    for node in ordered(graph)[0]:
        out.add_node(node, **graph.nodes[node], color=COLOURS[graph.nodes[node]["style_class"]][0])
    out.add_edges_from((s, t, graph.edges[s, t]) for s, t, _ in ordered(graph)[1])
    buffer = io.BytesIO()
    nx.write_graphml(out, buffer, encoding="utf-8")
    return buffer.getvalue().decode("utf-8")
