"""Rule-pack loading: a valid pack parses to frozen objects; a malformed one is a PackError that
names the file and the key."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from planeshift.api import load_packs
from planeshift.config import Config
from planeshift.packs.load import builtin_pack_names, builtin_pack_path, load_pack
from planeshift.packs.model import ArgSpec, PackError

DEMO_PACK = Path(__file__).resolve().parent.parent / "fixtures" / "packs" / "demo.yaml"

VALID = """
pack: mini
mechanisms:
  - id: mini_bus
    dispatcher: mini.Bus
    register:
      - method: on
        point: {arg: 0, keyword: point}
        handler: {arg: 1, keyword: handler}
      - keyword: yes
        many: true
    classify:
      - id: mini.pre
        when: {point: [PRE]}
        plane: interceptor
        because: ADR-0120 D4.
      - plane: subscriber
        because: ADR-0120 D1.
"""


def write(tmp_path: Path, text: str, name: str = "pack.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def load_error(tmp_path: Path, text: str) -> PackError:
    path = write(tmp_path, text)
    with pytest.raises(PackError) as info:
        load_pack(path)
    err = info.value
    assert err.path == str(path)
    assert str(err).startswith(f"{path}: {err.key}: "), str(err)
    return err


def test_valid_pack_parses(tmp_path: Path) -> None:
    pack = load_pack(write(tmp_path, VALID))
    assert pack.name == "mini"
    (mech,) = pack.mechanisms
    assert mech.dispatchers == ("mini.Bus",)
    on, keyword = mech.registrations
    assert (on.kind, on.name) == ("method", "on")
    assert on.point == ArgSpec(index=0, keyword="point")
    assert (keyword.kind, keyword.name, keyword.many) == ("keyword", "yes", True)
    assert keyword.callables == ("mini.Bus",)  # a keyword form defaults to the dispatcher
    assert [r.plane for r in mech.classify] == ["interceptor", "subscriber"]
    assert mech.classify[1].id == "mini_bus.1"


def test_method_on_is_the_string_on_not_a_boolean(tmp_path: Path) -> None:
    text = VALID.replace("- method: on", "- method: on\n      - method: off\n      - method: no")
    pack = load_pack(write(tmp_path, text))
    names = [r.name for r in pack.mechanisms[0].registrations]
    assert names[:3] == ["on", "off", "no"]
    assert all(isinstance(n, str) for n in names)


@pytest.mark.parametrize("path", [DEMO_PACK, *map(builtin_pack_path, builtin_pack_names())],
                         ids=lambda p: Path(p).name)
def test_shipped_packs_load(path: Path) -> None:
    pack = load_pack(path)
    assert pack.mechanisms
    for mech in pack.mechanisms:
        assert not mech.classify[-1].when


def test_unknown_key_names_the_key(tmp_path: Path) -> None:
    err = load_error(tmp_path, VALID.replace("    dispatcher: mini.Bus",
                                             "    dispatcher: mini.Bus\n    dispatchers: x"))
    assert err.key == "mechanisms[0].dispatchers"
    assert "unknown key" in err.detail and "dispatcher" in err.detail


def test_unknown_key_inside_a_registration(tmp_path: Path) -> None:
    text = VALID.replace("        many: true", "        many: true\n        hadler: 1")
    err = load_error(tmp_path, text)
    assert err.key == "mechanisms[0].register[1].hadler"


def test_unknown_top_level_key(tmp_path: Path) -> None:
    err = load_error(tmp_path, "packs: mini\n" + VALID)
    assert err.key == "<top>.packs"


def test_bad_plane(tmp_path: Path) -> None:
    err = load_error(tmp_path, VALID.replace("plane: interceptor", "plane: interceptors"))
    assert err.key == "mechanisms[0].classify[0].plane"
    assert "'interceptors'" in err.detail and "subscriber" in err.detail


def test_missing_because(tmp_path: Path) -> None:
    err = load_error(tmp_path, VALID.replace("        because: ADR-0120 D1.\n", ""))
    assert err.key == "mechanisms[0].classify[1].because"


@pytest.mark.parametrize(
    ("point", "detail"),
    [
        ("true", "expected a position, a keyword name or a mapping"),
        ("[0, 1]", "expected a mapping, got list"),
        ("{arg: first}", "expected an integer position"),
        ("{}", "give `arg`, `keyword` or `rest: true`"),
    ],
)
def test_wrong_type_of_point(tmp_path: Path, point: str, detail: str) -> None:
    err = load_error(tmp_path, VALID.replace("point: {arg: 0, keyword: point}", f"point: {point}"))
    assert err.key.startswith("mechanisms[0].register[0].point"), err.key
    assert detail in err.detail


@pytest.mark.parametrize(("value", "read"), [("true", "all"), ("false", ""),
                                           ("bound_methods", "bound_methods"), ("sometimes", None)])
def test_weak_receivers_is_a_flag_or_bound_methods(tmp_path: Path, value: str,
                                                   read: str | None) -> None:
    text = VALID.replace("    dispatcher: mini.Bus\n",
                         f"    dispatcher: mini.Bus\n    weak_receivers: {value}\n")
    if read is None:
        err = load_error(tmp_path, text)
        assert (err.key, err.detail) == ("mechanisms[0].weak_receivers",
                                         "expected true, false or bound_methods")
        return
    (tmp_path / "p.yaml").write_text(text)
    assert load_pack(tmp_path / "p.yaml").mechanisms[0].weak_receivers == read


def test_duplicate_mechanism_id_in_one_pack(tmp_path: Path) -> None:
    second = """
  - id: mini_bus
    emit:
      - function: mini.fire
    classify:
      - plane: subscriber
        because: ADR-0120 D1.
"""
    err = load_error(tmp_path, VALID.rstrip("\n") + second)
    assert err.key == "mechanisms"
    assert "duplicate mechanism id 'mini_bus'" in err.detail


def test_duplicate_mechanism_id_across_packs(tmp_path: Path) -> None:
    first = write(tmp_path, VALID, "first.yaml")
    second = write(tmp_path, VALID.replace("pack: mini", "pack: other"), "second.yaml")
    config = Config(root=tmp_path, packs=(first, second), builtin_packs=())
    with pytest.raises(PackError) as info:
        load_packs(config)
    assert info.value.path == str(second)
    assert info.value.key == "mechanisms.mini_bus"
    assert "mini" in info.value.detail


def test_last_classify_rule_must_be_the_default(tmp_path: Path) -> None:
    text = VALID.replace("      - plane: subscriber\n",
                         "      - when: {api: [on]}\n        plane: subscriber\n")
    err = load_error(tmp_path, text)
    assert err.key == "mechanisms[0].classify"
    assert "last rule" in err.detail


def test_invalid_yaml_reports_its_line(tmp_path: Path) -> None:
    text = VALID.replace("    dispatcher: mini.Bus", "    dispatcher: [mini.Bus")
    err = load_error(tmp_path, text)
    assert err.key.startswith("line "), err.key
    line = int(err.key.split()[1])
    assert 3 <= line <= 6, err.key
    assert "invalid YAML" in err.detail


def test_bad_policy_value(tmp_path: Path) -> None:
    text = VALID.replace("    dispatcher: mini.Bus",
                         "    dispatcher: mini.Bus\n    policy: {returned_awaitable: ignore}")
    err = load_error(tmp_path, text)
    assert err.key == "mechanisms[0].policy.returned_awaitable"
    assert "discard_unawaited" in err.detail


def test_handler_async_condition_must_be_boolean(tmp_path: Path) -> None:
    text = VALID.replace("when: {point: [PRE]}", "when: {handler_async: yes}")
    err = load_error(tmp_path, text)
    assert err.key == "mechanisms[0].classify[0].when.handler_async"


def test_method_form_needs_a_dispatcher(tmp_path: Path) -> None:
    err = load_error(tmp_path, VALID.replace("    dispatcher: mini.Bus\n", ""))
    assert err.key == "mechanisms[0].dispatcher"


def test_missing_file_is_a_pack_error(tmp_path: Path) -> None:
    with pytest.raises(PackError) as info:
        load_pack(tmp_path / "nope.yaml")
    assert info.value.key == "<file>"
    assert "nope.yaml" in str(info.value)


def test_cached_pack_data_gives_the_same_pack_and_the_same_errors(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = write(tmp_path, VALID)
    fresh = load_pack(path, cache)
    (entry,) = (cache / "packs").glob("*.data")
    assert load_pack(path, cache) == fresh == load_pack(path)

    entry.write_bytes(b"\x00not marshal")  # a corrupt entry is parsed again and rewritten
    assert load_pack(path, cache) == fresh
    assert entry.read_bytes() != b"\x00not marshal"

    bad = write(tmp_path, VALID.replace("plane: subscriber", "plane: bystander"), "bad.yaml")
    errors = []
    for _ in range(2):  # the second time from the cached data: validation still runs
        with pytest.raises(PackError) as info:
            load_pack(bad, cache)
        errors.append(str(info.value))
    assert errors[0] == errors[1] and "bystander" in errors[0]


def test_yaml_marshal_cannot_hold_is_parsed_every_time(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = write(tmp_path, VALID.replace("pack: mini", "pack: mini\ndescription: 2026-11-30"))
    assert load_pack(path, cache) == load_pack(path, cache) == load_pack(path)
    assert not list(cache.glob("packs/*.data"))  # a YAML date: marshal cannot hold it


def test_profile_names_an_adr_profile_for_all_paths_or_per_entry(tmp_path: Path) -> None:
    one = VALID.replace("    dispatcher: mini.Bus", "    dispatcher: mini.Bus\n    profile: broadcaster")
    assert load_pack(write(tmp_path, one)).mechanisms[0].profile == (("*", "broadcaster"),)
    per = VALID.replace("    dispatcher: mini.Bus",
                        "    dispatcher: mini.Bus\n    profile: {emit: scheduler, notify: broadcaster}")
    assert load_pack(write(tmp_path, per, "per.yaml")).mechanisms[0].profile == (
        ("emit", "scheduler"), ("notify", "broadcaster"))


def test_unknown_profile_is_an_error_naming_the_entry(tmp_path: Path) -> None:
    text = VALID.replace("    dispatcher: mini.Bus", "    dispatcher: mini.Bus\n    profile: {emit: fast}")
    err = load_error(tmp_path, text)
    assert err.key == "mechanisms[0].profile.emit"
    assert "terminal_callback" in err.detail


def test_the_new_policy_axes_are_declarable(tmp_path: Path) -> None:
    text = VALID.replace("    dispatcher: mini.Bus", "    dispatcher: mini.Bus\n    policy: "
                         "{handler_cancellation: translate, predicate_failure: no_match, "
                         "deadline_disposition: silent_stop}")
    policy = load_pack(write(tmp_path, text)).mechanisms[0].policy_map
    assert policy == {"handler_cancellation": "translate", "predicate_failure": "no_match",
                      "deadline_disposition": "silent_stop"}


def test_denials_name_the_exceptions_a_handler_denies_with(tmp_path: Path) -> None:
    text = VALID.replace("    dispatcher: mini.Bus", "    dispatcher: mini.Bus\n    denials: [mini.Stop]")
    assert load_pack(write(tmp_path, text)).mechanisms[0].denials == ("mini.Stop",)
    err = load_error(tmp_path, VALID.replace("    dispatcher: mini.Bus",
                                             "    dispatcher: mini.Bus\n    denials: [1]"))
    assert err.key == "mechanisms[0].denials[0]"


def test_terminal_names_the_owner_source_envelope_and_identity(tmp_path: Path) -> None:
    text = VALID.replace("    dispatcher: mini.Bus", "    dispatcher: mini.Bus\n    terminal:\n"
                         "      source: [mini.Owner.finish]\n      envelope: mini.Fact\n"
                         "      identity: [fact_id]")
    terminal = load_pack(write(tmp_path, text)).mechanisms[0].terminal
    assert (terminal.source, terminal.envelope, terminal.identity) == (
        ("mini.Owner.finish",), ("mini.Fact",), ("fact_id",))
    err = load_error(tmp_path, VALID.replace("    dispatcher: mini.Bus",
                                             "    dispatcher: mini.Bus\n    terminal: {identity: x}"))
    assert err.key == "mechanisms[0].terminal" and "source" in err.detail
    err = load_error(tmp_path, VALID.replace("    dispatcher: mini.Bus",
                                             "    dispatcher: mini.Bus\n    terminal: {owner: x}"))
    assert err.key == "mechanisms[0].terminal.owner"


MIGRATING = """
pack: mini
migrate:
  kernel_module: app.dispatch
  imports:
    "{kernel}": [InterceptorRegistration]
    "{kernel}.adapters": [as_interceptor, as_subscriber, Subscription, scheduling]
  templates:
    interceptor: "as_interceptor(InterceptorRegistration(name={name}, stage={stage}, handler={handler}, order={order}))"
mechanisms:
  - id: mini_bus
    dispatcher: mini.Bus
    register:
      - method: on
    migrate:
      policy: mini_policy
      stop: mini.Stop
      deny: PermissionError
      convert_discard: "scheduling({handler})"
      templates:
        subscriber: "as_subscriber(Subscription(name={name}, policy={policy}, handler={handler}))"
    classify:
      - plane: subscriber
        because: ADR-0120 D1.
  - id: untouched
    dispatcher: mini.Other
    register:
      - method: on
    classify:
      - plane: subscriber
        because: ADR-0120 D1.
"""


def test_migrate_sections_parse_with_pack_defaults_and_mechanism_overrides(tmp_path: Path) -> None:
    pack = load_pack(write(tmp_path, MIGRATING))
    assert pack.migrate.kernel_module == "app.dispatch"
    assert dict(pack.migrate.templates) == {
        "interceptor": "as_interceptor(InterceptorRegistration(name={name}, stage={stage}, "
                       "handler={handler}, order={order}))"}
    assert dict(pack.migrate.imports)["{kernel}"] == ("InterceptorRegistration",)
    bus, untouched = pack.mechanisms
    assert bus.migrate is not None and untouched.migrate is None
    assert (bus.migrate.policy, bus.migrate.stop, bus.migrate.deny) == (
        "mini_policy", "mini.Stop", "builtins.PermissionError")
    assert bus.migrate.convert_discard == "scheduling({handler})"
    assert dict(bus.migrate.templates)["subscriber"].startswith("as_subscriber(")


def test_a_pack_without_migrate_gets_the_default_templates(tmp_path: Path) -> None:
    pack = load_pack(write(tmp_path, VALID))
    assert pack.migrate.kernel_module is None
    assert {plane for plane, _ in pack.migrate.templates} == {
        "interceptor", "subscriber", "delivery_sink", "commit_participant"}


@pytest.mark.parametrize(("change", "key", "detail"), [
    ("handler={handler}, order={order}))", "migrate.templates.interceptor", "unknown placeholder"),
    ("handler={handler}, order={handler}))", "migrate.templates.interceptor", "exactly once"),
    ("handler={handler}, order={order})", "migrate.templates.interceptor", "not a Python"),
    ("handler={handler}, order=Order))", "migrate.templates.interceptor", "'Order' is neither"),
])
def test_a_bad_template_is_a_pack_error_naming_it(tmp_path: Path, change: str, key: str,
                                                  detail: str) -> None:
    text = MIGRATING.replace("handler={handler}, order={order}))", change)
    if detail == "unknown placeholder":
        text = text.replace("stage={stage}", "stage={point}")
    err = load_error(tmp_path, text)
    assert err.key == key and detail in err.detail


@pytest.mark.parametrize(("old", "new", "key"), [
    ("kernel_module: app.dispatch", "kernel_module: app dispatch", "migrate.kernel_module"),
    ("stop: mini.Stop", "stop: 'not a name'", "mechanisms[0].migrate.stop"),
    ('convert_discard: "scheduling({handler})"', 'convert_discard: "scheduling({name})"',
     "mechanisms[0].migrate.convert_discard"),
    ("      policy: mini_policy", "      policy: mini_policy\n      owner: me",
     "mechanisms[0].migrate.owner"),
    ('    "{kernel}": [InterceptorRegistration]', '    "{kernel}": [not-a-name]',
     "migrate.imports.{kernel}"),
])
def test_a_bad_migrate_value_names_its_key(tmp_path: Path, old: str, new: str, key: str) -> None:
    assert old in MIGRATING
    err = load_error(tmp_path, MIGRATING.replace(old, new))
    assert err.key == key


def test_characterize_hints_name_a_point_literal_constructor_arguments_or_a_skip(
    tmp_path: Path,
) -> None:
    text = VALID.replace("    dispatcher: mini.Bus", "    dispatcher: mini.Bus\n    characterize: "
                         "{point: PRE, construct: {region: \"'eu'\", retries: 3}, skip: no}")
    hints = load_pack(write(tmp_path, text)).mechanisms[0].characterize
    assert hints is not None
    assert (hints.point, hints.construct) == ("PRE", (("region", "'eu'"), ("retries", "3")))
    assert hints.skip == "no"


@pytest.mark.parametrize(("hints", "key", "detail"), [
    ("{pointt: PRE}", "mechanisms[0].characterize.pointt", "unknown key"),
    ("{point: 3}", "mechanisms[0].characterize.point", "a member of the points enum"),
    ("{construct: {region: eu}}", "mechanisms[0].characterize.construct.region",
     "'eu' is not a Python literal"),
    ("{construct: [a]}", "mechanisms[0].characterize.construct", "mapping of parameter"),
])
def test_bad_characterize_hints_name_the_key(tmp_path: Path, hints: str, key: str,
                                             detail: str) -> None:
    err = load_error(tmp_path, VALID.replace(
        "    dispatcher: mini.Bus", f"    dispatcher: mini.Bus\n    characterize: {hints}"))
    assert err.key == key
    assert detail in err.detail


def test_a_receiver_point_and_a_handler_effect_read(tmp_path: Path) -> None:
    text = VALID.replace("        point: {arg: 0, keyword: point}", "        point: {receiver: true}")
    text = text.replace("when: {point: [PRE]}", "when: {handler_effect: [mutates_argument]}")
    text = text.replace("    dispatcher: mini.Bus", "    dispatcher: mini.Bus\n"
                                                   "    instances: [mini.signals.*]")
    mech = load_pack(write(tmp_path, text)).mechanisms[0]
    assert mech.registrations[0].point == ArgSpec(receiver=True)
    assert mech.classify[0].when == (("handler_effect", ("mutates_argument",)),)
    assert mech.instances == ("mini.signals.*",)


def test_a_receiver_spec_only_for_a_point(tmp_path: Path) -> None:
    err = load_error(tmp_path, VALID.replace("        handler: {arg: 1, keyword: handler}",
                                             "        handler: {receiver: true}"))
    assert err.key == "mechanisms[0].register[0].handler"
    assert "only for a point" in err.detail


def test_an_unknown_handler_effect_is_refused(tmp_path: Path) -> None:
    err = load_error(tmp_path, VALID.replace("when: {point: [PRE]}",
                                             "when: {handler_effect: [sends_mail]}"))
    assert err.key == "mechanisms[0].classify[0].when.handler_effect"
    assert "durable_write" in err.detail


def test_a_pack_whose_context_is_false_is_looked_for_only_where_context_points(
        tmp_path: Path) -> None:
    from planeshift.analyzer.context import find_roots

    site = tmp_path / "site"
    (site / "mini").mkdir(parents=True)
    (site / "mini" / "__init__.py").write_text("")
    text = VALID.replace("pack: mini\n", "pack: mini\npackage: mini\ncontext: false\n")
    pack = load_pack(write(tmp_path, text))
    assert find_roots([pack], tmp_path, [], set(), search_path=[str(site)]) == ([], [])
    roots, missing = find_roots([pack], tmp_path, [site], set(), search_path=[])
    assert [r.package for r in roots] == ["mini"] and missing == []


def test_a_decorator_form_that_matches_nothing_is_a_warning(tmp_path: Path) -> None:
    from planeshift.api import scan
    from planeshift.config import Config

    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "events.py").write_text(
        "def on_topic(topic):\n    def wrap(fn):\n        return fn\n    return wrap\n")
    (tmp_path / "shop" / "app.py").write_text(
        "from shop.events import on_topic\n\n\n@on_topic('paid')\ndef audit(**kw):\n"
        "    pass\n")
    text = VALID.replace("      - keyword: yes\n        many: true\n",
                         "      - decorator: shop.event.on_topic\n        point: 0\n")
    pack = write(tmp_path, text, "mini.yaml")
    result = scan(Config(root=tmp_path, packs=(pack,), builtin_packs=(), use_cache=False,
                         jobs=1, use_context=False))
    assert [w for w in result.stats["warnings"] if "matched nothing" in w] == [
        "pack mini: the decorator form shop.event.on_topic of mini_bus matched nothing, though "
        "the tree has @on_topic decorators: check its qualified name (a decorator matches by "
        "what it resolves to)"]


@pytest.mark.parametrize(("plugins", "key", "detail"), [
    ("[register]", None, None),
    ("[register, add_plugin]", None, None),
    ("[pm.register]", "mechanisms[0].register[2].plugins[0]", "expected a method name"),
    ("{register: 1}", "mechanisms[0].register[2].plugins", "expected a string or a list"),
])
def test_a_hookimpl_form_names_the_methods_registering_a_plugin_whole(
        tmp_path: Path, plugins: str, key: str | None, detail: str | None) -> None:
    text = VALID.replace("        many: true\n", "        many: true\n"
                         f"      - hookimpl: mini.HookimplMarker\n        plugins: {plugins}\n")
    if key is None:
        form = load_pack(write(tmp_path, text)).mechanisms[0].registrations[2]
        assert form.plugins == tuple(plugins.strip("[]").split(", "))
        return
    err = load_error(tmp_path, text)
    assert err.key == key and detail in err.detail, err



def test_a_pack_names_the_library_s_mutating_methods(tmp_path: Path) -> None:
    pack = load_pack(write(tmp_path, "mutators: [addinivalue_line, refresh]\n" + VALID))
    assert pack.mutators == ("addinivalue_line", "refresh")
    err = load_error(tmp_path, "mutators: [config.add]\n" + VALID)
    assert err.key == "mutators[0]" and "expected a method name" in err.detail, err



@pytest.mark.parametrize(("entries", "key", "detail"), [
    ("{send_robust: {failure: isolate, error_surface: return_report}}", None, None),
    ("{send_robust: {failure: maybe}}", "mechanisms[0].policy.entries.send_robust.failure",
     "is not one of"),
    ("{send_robust: {colour: red}}", "mechanisms[0].policy.entries.send_robust.colour",
     "unknown key"),
    ("{'send robust': {failure: isolate}}", "mechanisms[0].policy.entries", "a method name"),
    ("[send_robust]", "mechanisms[0].policy.entries", "expected a mapping"),
])
def test_a_policy_names_the_entries_whose_own_loop_differs(
        tmp_path: Path, entries: str, key: str | None, detail: str | None) -> None:
    text = VALID.replace("    classify:\n", "    policy:\n      failure: propagate\n"
                         f"      entries: {entries}\n    classify:\n", 1)
    if key is None:
        mech = load_pack(write(tmp_path, text)).mechanisms[0]
        assert mech.policy_for("send_robust") == {"failure": "isolate",
                                                  "error_surface": "return_report"}
        assert mech.policy_for("send") == {"failure": "propagate"}
        return
    err = load_error(tmp_path, text)
    assert err.key == key and detail in err.detail, err
