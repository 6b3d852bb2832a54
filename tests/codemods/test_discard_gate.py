"""Codemod `discard_gate`: each DISCARD_UNAWAITED registration recorded with its owner, or
converted; `planeshift lint` reads the record."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from analyzer.helpers import DEMO_FILES, DEMO_PACK, write_tree

from planeshift.api import load_packs
from planeshift.codemods import MigrateOptions, migrate
from planeshift.codemods.discard_gate import _mixed
from planeshift.codemods.facts import MigrateFacts
from planeshift.codemods.report.text import render_report
from planeshift.config import Config
from planeshift.lint import Scope, lint
from planeshift.rules.discard_annotation import is_recorded, parse_annotation
from planeshift.types import Handler, Registration, ScanResult

from .helpers import (
    DISCARDING_BUS,
    check_noop,
    check_transformed,
    dedent,
    discarding_pack,
    flat,
    run,
)

GATE = ("discard_gate",)
# the note's reason shortened to fit the default line length (88) at these indentations
NOTE = "# planeshift: discard-unawaited owner=@demo-team unawaited as today (ADR-0120 D2)"


def test_a_continuation_line_gets_its_comment_inside_the_brackets(tmp_path: Path) -> None:
    check_transformed(tmp_path, '''
        from demo.bus import EventBus

        buses = dict(
            main=EventBus(on_event=[print]),
        )
        ''', f'''
        from demo.bus import EventBus

        buses = dict(
            {NOTE}
            main=EventBus(on_event=[print]),
        )
        ''', GATE)


def test_two_registrations_on_one_line_share_one_record(tmp_path: Path) -> None:
    result = check_transformed(tmp_path, '''
        from demo.bus import EventBus

        bus = EventBus(on_event=[print, repr])
        ''', f'''
        from demo.bus import EventBus

        {NOTE}
        bus = EventBus(on_event=[print, repr])
        ''', GATE)
    assert len(result.migrated) == 2


def test_recorded_registrations_are_left_alone(tmp_path: Path) -> None:
    result = check_noop(tmp_path, '''
        from demo.bus import EventBus

        # planeshift: ignore[PS101] print returns None; owner @ops
        one = EventBus(on_event=[print])
        two = EventBus(on_event=[repr])  # planeshift: discard-unawaited owner=@ops repr is sync
        ''', GATE)
    assert result.already == 2 and result.not_migrated == ()


def test_without_an_owner_the_registration_is_recorded_unassigned_and_listed_once(
        tmp_path: Path) -> None:
    write_tree(tmp_path, {**DEMO_FILES, "app.py": "from demo.bus import EventBus\n\n"
                                                  "bus = EventBus(on_event=[print])\n"
                                                  "other = EventBus(on_event=[repr])\n"})
    config = Config(root=tmp_path, packs=(DEMO_PACK,), builtin_packs=(), use_cache=False)
    result = migrate(config, MigrateOptions(select=GATE, write=True))
    assert result.not_migrated == ()
    assert [m.action for m in result.migrated] == ["recorded as discarding (owner unassigned)"] * 2
    text = (tmp_path / "app.py").read_text()
    assert text.count("# planeshift: discard-unawaited owner=unassigned ") == 2
    report = render_report(result)
    assert report.count("owner to fill in (1 file;") == 1 and "\n  app.py\n" in report
    linted = lint(config, Scope())  # an unassigned owner suppresses nothing
    assert sorted(f.finding.rule for f in linted.findings if f.status == "open"
                  and f.finding.rule in ("PS101", "PS901")) == ["PS101", "PS101", "PS901", "PS901"]
    again = migrate(config, MigrateOptions(select=GATE, check=True))
    assert again.changes == () and again.already == 2  # recorded once, not again


def test_the_owner_comes_from_codeowners_too(tmp_path: Path) -> None:
    write_tree(tmp_path, {**DEMO_FILES, "app.py": "from demo.bus import EventBus\n\n"
                                                  "bus = EventBus(on_event=[print])\n"})
    (tmp_path / "CODEOWNERS").write_text("*.py @py-team @ops\n")
    config = Config(root=tmp_path, packs=(DEMO_PACK,), builtin_packs=(), use_cache=False)
    migrate(config, MigrateOptions(select=GATE, write=True))
    assert "# planeshift: discard-unawaited owner=@py-team,@ops " in (
        tmp_path / "app.py").read_text()


def test_a_decorator_registration_is_recorded_above_its_decorator(tmp_path: Path) -> None:
    pack = discarding_pack(tmp_path)
    write_tree(tmp_path / "t", {**DEMO_FILES, "demo/bus.py": DISCARDING_BUS, "app.py": '''
        from demo.bus import Point, hook


        @staticmethod
        @hook(Point.AFTER)
        def after(**payload):
            return None
        '''})
    config = Config(root=tmp_path / "t", packs=(pack,), builtin_packs=(), use_cache=False,
                    owners=(("**", "@demo-team"),))
    result = migrate(config, MigrateOptions(select=GATE, write=True, convert_discard=True))
    text = (tmp_path / "t" / "app.py").read_text()
    assert f"@staticmethod\n{NOTE}\n@hook(Point.AFTER)\n" in text
    (done,) = result.migrated
    assert done.registration is not None
    assert (done.line, done.registration.via) == (5, "decorator")  # at its `@`
    assert any(n.reason.startswith("not converted (") and n.reason.endswith("annotated instead")
               for n in result.not_migrated)


def test_convert_needs_the_mechanisms_template_else_it_records(tmp_path: Path) -> None:
    pack = tmp_path / "pack.yaml"
    pack.write_text(DEMO_PACK.read_text().replace('      convert_discard: "scheduling({handler})"\n',
                                                  ""))
    write_tree(tmp_path / "t", {**DEMO_FILES, "app.py": "from demo.bus import EventBus\n\n"
                                                        "bus = EventBus(on_event=[print])\n"})
    config = Config(root=tmp_path / "t", packs=(pack,), builtin_packs=(), use_cache=False,
                    owners=(("**", "@demo-team"),))
    result = migrate(config, MigrateOptions(select=GATE, write=True, convert_discard=True))
    assert NOTE in (tmp_path / "t" / "app.py").read_text()
    assert any("has no convert_discard template" in n.reason for n in result.not_migrated)


def test_a_discarding_registration_rewritten_alone_is_still_found_and_recorded_later(
        tmp_path: Path) -> None:
    # the scan reads the handler inside as_subscriber(Subscription(..., handler=h)) as h, so the
    # rewrite hides nothing from the gate: registration need not wait for it
    write_tree(tmp_path, {**DEMO_FILES, "app.py": "from demo.bus import EventBus\n\n"
                                                  "bus = EventBus(on_event=[print])\n"})
    first = run(tmp_path, ("registration",))
    assert [m.codemod for m in first.migrated] == ["registration"] and not first.not_migrated
    second = run(tmp_path, GATE)
    assert [m.action for m in second.migrated] == ["recorded as discarding (owner @demo-team)"]
    assert (tmp_path / "app.py").read_text().endswith(
        "bus = EventBus(\n"
        f"    {NOTE}\n"  # the registration (on_event=) starts on the line below now
        "    on_event=[\n"
        "        as_subscriber(\n"
        '            Subscription(name="builtins.print", policy="demo_callbacks", handler=print)\n'
        "        )\n"
        "    ]\n"
        ")\n")
    assert run(tmp_path).changes == ()


def test_lint_reads_the_record_as_the_decision_for_ps101_and_wants_an_owner(
        tmp_path: Path) -> None:
    source = dedent(f'''
        from demo.bus import EventBus

        {NOTE}
        kept = EventBus(on_event=[print])
        # planeshift: discard-unawaited returned None anyway
        unowned = EventBus(on_event=[repr])
        ''')
    write_tree(tmp_path, {**DEMO_FILES, "app.py": source})
    config = Config(root=tmp_path, packs=(DEMO_PACK,), builtin_packs=(), use_cache=False)
    result = lint(config, Scope())
    status = {(f.finding.rule, f.finding.line): f.status for f in result.findings}
    assert status[("PS101", 4)] == "suppressed"
    assert status[("PS101", 6)] == "open"
    assert ("PS901", 5) in status


def test_the_annotation_format() -> None:
    assert parse_annotation("# planeshift: discard-unawaited owner=@a,@b kept on purpose") == (
        "@a,@b", "kept on purpose", "")
    reasonless, ownerless = (parse_annotation("# planeshift: discard-unawaited owner=@a"),
                             parse_annotation("# planeshift: discard-unawaited kept"))
    assert reasonless is not None and reasonless[2].startswith("it gives")
    assert ownerless is not None and ownerless[2].startswith("it names no")
    assert parse_annotation("# planeshift: ignore[PS101] x") is None
    lines = ["x = 1", "# planeshift: discard-unawaited owner=@a why", "bus.on(h)",
             "y = f(g)  # planeshift: ignore[PS102,PS101] why"]
    assert is_recorded(lines, 3) and is_recorded(lines, 4) and not is_recorded(lines, 1)


def test_convert_after_registration_wraps_the_handler_inside_the_typed_registration(
        tmp_path: Path) -> None:
    check_transformed(tmp_path, '''
        from demo.bus import EventBus


        async def notify(event):
            return None


        first, second = EventBus(on_event=[print]), EventBus(on_event=[lambda e: notify(e)])
        ''', '''
        from planeshift.kernels.adapters import Subscription, as_subscriber, scheduling

        from demo.bus import EventBus


        async def notify(event):
            return None


        first, second = EventBus(
            on_event=[
                as_subscriber(
                    Subscription(
                        name="builtins.print",
                        policy="demo_callbacks",
                        handler=scheduling(print),
                    )
                )
            ]
        ), EventBus(
            on_event=[
                as_subscriber(
                    Subscription(
                        name="app.<lambda@on_event>",
                        policy="demo_callbacks",
                        handler=scheduling(lambda e: notify(e)),
                    )
                )
            ]
        )
        ''', ("registration", "discard_gate"), convert_discard=True)


TABLE_LOOP = '''
    from demo.bus import EventBus, Point


    def log(**payload):
        return None


    bus = EventBus()
    for point in (Point.AFTER, Point.NEVER_EMITTED):
        bus.on(point, log)
    '''


def test_a_call_registering_one_handler_per_table_entry_is_converted_once(
        tmp_path: Path) -> None:
    result = check_transformed(tmp_path, TABLE_LOOP, '''
        from planeshift.kernels.adapters import Subscription, as_subscriber, scheduling

        from demo.bus import EventBus, Point


        def log(**payload):
            return None


        bus = EventBus()
        for point in (Point.AFTER, Point.NEVER_EMITTED):
            bus.on(
                point,
                as_subscriber(
                    Subscription(name="app.log", policy="demo_bus", handler=scheduling(log))
                ),
            )
        ''', ("registration", "discard_gate"), files={"demo/bus.py": DISCARDING_BUS},
        pack=discarding_pack(tmp_path.parent / f"{tmp_path.name}-pack", "scheduling({handler})"),
        convert_discard=True)
    assert sorted((m.codemod, m.registration.point) for m in result.migrated
                  if m.registration is not None) == [
        ("discard_gate", "AFTER"), ("discard_gate", "NEVER_EMITTED"),
        ("registration", "AFTER"), ("registration", "NEVER_EMITTED")]


def test_a_call_whose_table_entries_convert_differently_is_annotated(tmp_path: Path) -> None:
    pack = discarding_pack(tmp_path.parent / f"{tmp_path.name}-pack", "scheduling({handler})")
    facts = MigrateFacts(Config(root=tmp_path, packs=(pack,), builtin_packs=(), use_cache=False),
                         ScanResult(str(tmp_path), (), (), ()), load_packs(Config(
                             root=tmp_path, packs=(pack,), builtin_packs=())),
                         MigrateOptions(convert_discard=True))
    handler = Handler(expr="log", qualname="app.log", declared_async=False,
                      returns_awaitable=False, kind="function")
    one, two = (Registration("app.py", 9, 4, mechanism, "on", point, handler, "subscriber",
                             "high", flags=flags)
                for mechanism, point, flags in (("demo_bus", "AFTER", ("discard_unawaited",)),
                                                ("demo_callbacks", "BEFORE", ())))
    assert _mixed([one, two], facts) == (
        "the 2 registrations log makes at this call (points AFTER, BEFORE) are converted "
        "together or not at all, and at point BEFORE what it returns is not dropped")
    two = replace(two, flags=("discard_unawaited",))
    assert _mixed([one, two], facts) == ""  # both have scheduling({handler})
    assert _mixed([one], facts) == ""


def test_a_later_conversion_wraps_the_handler_inside_its_typed_registration(
        tmp_path: Path) -> None:
    write_tree(tmp_path, {**DEMO_FILES, "app.py": "from demo.bus import EventBus\n\n"
                                                  "bus = EventBus(on_event=[print])\n"})
    run(tmp_path, ("registration",))
    converted = run(tmp_path, GATE, convert_discard=True)
    assert [m.action for m in converted.migrated] == ["converted: scheduling(print)"]
    assert flat((tmp_path / "app.py").read_text()).rstrip().endswith(
        'bus = EventBus(on_event=[as_subscriber(Subscription(name="builtins.print", '
        'policy="demo_callbacks", handler=scheduling(print)))])')
    assert run(tmp_path, GATE).changes == ()  # converted: not recorded on top


OPTIONAL_LISTENER = '''
    from demo.bus import EventBus


    def install(on_event=None):
        return EventBus(on_event=[on_event])
    '''
CONVERTED_OPTIONAL = ('    return EventBus(on_event=[optional(on_event, lambda handler: as_subscriber('
                      'Subscription(name="app.install.on_event", policy="demo_callbacks", '
                      'handler=scheduling(handler))))])\n')


def test_convert_in_the_optional_form_wraps_the_lambdas_handler_so_none_stays_none(
        tmp_path: Path) -> None:
    after = '''
        from planeshift.kernels.adapters import (
            Subscription,
            as_subscriber,
            optional,
            scheduling,
        )

        from demo.bus import EventBus


        def install(on_event=None):
            return EventBus(
                on_event=[
                    optional(
                        on_event,
                        lambda handler: as_subscriber(
                            Subscription(
                                name="app.install.on_event",
                                policy="demo_callbacks",
                                handler=scheduling(handler),
                            )
                        ),
                    )
                ]
            )
        '''
    result = check_transformed(tmp_path, OPTIONAL_LISTENER, after,
                               ("registration", "discard_gate"), convert_discard=True)
    (converted,) = [m for m in result.migrated if m.codemod == "discard_gate"]
    assert converted.action == ("converted: scheduling(handler) inside the typed registration "
                                "of optional(...) (None is handed on unconverted)")


def test_a_later_conversion_of_the_optional_form_wraps_the_lambdas_handler(
        tmp_path: Path) -> None:
    write_tree(tmp_path, {**DEMO_FILES, "app.py": dedent(OPTIONAL_LISTENER)})
    run(tmp_path, ("registration",))
    assert "optional(on_event, lambda handler: " in flat((tmp_path / "app.py").read_text())
    converted = run(tmp_path, GATE, convert_discard=True)
    assert [m.action.split(" inside ")[0] for m in converted.migrated] == [
        "converted: scheduling(handler)"]
    assert flat((tmp_path / "app.py").read_text()).rstrip().endswith(
        flat(CONVERTED_OPTIONAL).rstrip())
    assert run(tmp_path, ()).changes == ()  # converted and migrated: nothing more to do
    assert run(tmp_path, GATE, convert_discard=True).changes == ()


def test_the_optional_form_unconverted_is_recorded_like_any_other(tmp_path: Path) -> None:
    write_tree(tmp_path, {**DEMO_FILES, "app.py": dedent(OPTIONAL_LISTENER)})
    run(tmp_path, ("registration",))
    recorded = run(tmp_path, GATE)
    assert [m.action for m in recorded.migrated] == ["recorded as discarding (owner @demo-team)"]
    text = (tmp_path / "app.py").read_text()
    # deep in the rewritten call: the shortest reason keeps the line within 88
    note = "# planeshift: discard-unawaited owner=@demo-team ADR-0120 D2"
    assert note in text and "optional(on_event, lambda handler: as_subscriber(" in flat(text)
    assert max(map(len, text.splitlines())) <= 88
    assert run(tmp_path, ()).changes == ()


def test_a_note_on_the_first_line_of_a_file_with_a_bom_is_seen_again(tmp_path: Path) -> None:
    """With a UTF-8 BOM the file's first line starts with U+FEFF, which is not whitespace: the
    note written there must still be read as the record (write, check, write again: no second
    note)."""
    write_tree(tmp_path, DEMO_FILES)
    app = tmp_path / "app.py"
    app.write_bytes(b"\xef\xbb\xbffrom demo.bus import EventBus; bus = EventBus(on_event=[print])\n")
    first = run(tmp_path, GATE)
    assert len(first.migrated) == 1 and not first.failed
    written = app.read_bytes()
    assert written == b"\xef\xbb\xbf" + NOTE.encode() + \
        b"\nfrom demo.bus import EventBus; bus = EventBus(on_event=[print])\n"
    check = run(tmp_path, GATE, write=False)  # what `migrate --check` exits 0 on
    assert check.changes == () and check.migrated == () and not check.failed
    assert check.already == 1
    again = run(tmp_path, GATE)
    assert again.changes == () and app.read_bytes() == written
