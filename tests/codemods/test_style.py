"""What migrate writes follows the target's style: its line length, quotes, import sections."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest
from analyzer.helpers import DEMO_FILES, write_tree

from planeshift.codemods.support.layout import fit
from planeshift.codemods.support.style import TargetStyle, read_style

from .helpers import check_transformed, dedent, run

ONLY = ("registration",)
RUFF_100 = ('[tool.ruff]\nline-length = 100\n\n[tool.ruff.lint.isort]\n'
            'known-first-party = ["demo", "app", "pkg"]\n')


def test_the_style_comes_from_ruff_then_black_then_isort_else_the_defaults(
        tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    assert read_style(tmp_path).line_length == 88 and read_style(tmp_path).quote == '"'
    (tmp_path / "setup.cfg").write_text("[isort]\nline_length = 79\nknown_first_party = a, b\n")
    style = read_style(tmp_path)
    assert (style.line_length, style.known_first_party) == (79, ("a", "b"))
    (tmp_path / "pyproject.toml").write_text(
        '[tool.black]\nline-length = 120\n[tool.ruff]\nline-length = 100\n'
        '[tool.ruff.format]\nquote-style = "single"\n'
        '[tool.ruff.lint.isort]\nknown-first-party = ["mine"]\n')
    style = read_style(tmp_path)
    assert (style.line_length, style.quote, style.known_first_party) == (100, "'", ("mine",))
    (tmp_path / "ruff.toml").write_text("line-length = 110\n")
    assert read_style(tmp_path).line_length == 110  # ruff's own file wins
    (tmp_path / "ruff.toml").write_text("line-length = [")  # unreadable: as if absent
    assert read_style(tmp_path).line_length == 100


def test_sections_follow_the_configuration_and_the_project_folders(tmp_path: Path) -> None:
    (tmp_path / "src" / "mypkg").mkdir(parents=True)
    style = TargetStyle(known_first_party=("lionagi",), root=str(tmp_path))
    assert [style.section(m) for m in ("__future__", "asyncio", "anyio", "lionagi._kernels",
                                       "mypkg.x")] == [0, 1, 2, 3, 3]
    assert style.section("helpers", level=1) == 4


def test_a_long_call_is_split_one_argument_a_line_only_where_it_is_too_long() -> None:
    before = "f(short)\nvery_long_name_here = g(123)  # an old long line stays as it was\n"
    tree = cst.parse_module(before + "bus.on(Point.BEFORE, wrap(Registration(name='x', "
                            "stage='BEFORE', handler=h, order=0)))\n")
    laid = fit(tree, before, TargetStyle(line_length=40))
    assert laid == before + dedent('''
        bus.on(
            Point.BEFORE,
            wrap(
                Registration(
                    name='x',
                    stage='BEFORE',
                    handler=h,
                    order=0,
                )
            ),
        )
        ''')


def test_rewrites_follow_the_targets_line_length_quotes_and_sections(tmp_path: Path) -> None:
    pyproject = '[tool.ruff]\nline-length = 100\n[tool.ruff.format]\nquote-style = "single"\n'
    check_transformed(tmp_path, '''
        import logging

        from demo.bus import EventBus, Point

        log = logging.getLogger(__name__)


        class Service:
            def start(self, bus: EventBus) -> None:
                bus.on(Point.BEFORE, lambda **payload: None)
                bus.on(Point.AFTER, lambda **payload: log.info('after'))
                bus.on(Point.AFTER, lambda **payload: None)
        ''', '''
        import logging

        from planeshift.kernels import InterceptorRegistration
        from planeshift.kernels.adapters import Subscription, as_interceptor, as_subscriber

        from demo.bus import EventBus, Point

        log = logging.getLogger(__name__)


        class Service:
            def start(self, bus: EventBus) -> None:
                bus.on(
                    Point.BEFORE,
                    as_interceptor(
                        InterceptorRegistration(
                            name='app.Service.start.<lambda@BEFORE>',
                            stage='BEFORE',
                            handler=lambda **payload: None,
                            order=0,
                        )
                    ),
                )
                bus.on(
                    Point.AFTER,
                    as_subscriber(
                        Subscription(
                            name='app.Service.start.<lambda@AFTER>',
                            policy='demo_bus',
                            handler=lambda **payload: log.info('after'),
                        )
                    ),
                )
                bus.on(
                    Point.AFTER,
                    as_subscriber(
                        Subscription(
                            name='app.Service.start.<lambda@AFTER>#2',
                            policy='demo_bus',
                            handler=lambda **payload: None,
                        )
                    ),
                )
        ''', ONLY, files={"pyproject.toml": pyproject})


APP = '''
    """A small service wired onto the demo bus."""

    from __future__ import annotations

    import logging

    from demo.bus import EventBus, Point

    from .handlers import audit, guard

    log = logging.getLogger(__name__)


    def check(payload):
        return True


    def wire(bus: EventBus, on_error=None) -> EventBus:
        bus.on(Point.BEFORE, guard)  # the guard runs first
        bus.on(Point.AFTER, lambda **payload: log.info("after %s", payload))
        bus.subscribe(audit)
        bus.subscribe(on_error)
        bus.gate = check
        return EventBus(hooks={Point.AFTER: audit})
    '''
HANDLERS = '''
    def audit(**payload):
        return None


    def guard(**payload):
        return None
    '''


def _ruff(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=root, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed")
def test_a_project_clean_under_its_ruff_configuration_is_clean_after_migration(
        tmp_path: Path) -> None:
    write_tree(tmp_path, {**DEMO_FILES, "pyproject.toml": RUFF_100, "pkg/__init__.py": "",
                          "pkg/app.py": dedent(APP), "pkg/handlers.py": dedent(HANDLERS)})
    files = ["pkg/app.py", "pkg/handlers.py"]
    assert _ruff(tmp_path, "format", "--check", *files).returncode == 0  # clean before
    assert _ruff(tmp_path, "check", "--select", "E501,I", *files).returncode == 0
    result = run(tmp_path, ONLY)
    assert len(result.migrated) == 6 and not result.failed
    text = (tmp_path / "pkg" / "app.py").read_text()
    assert "import logging\n\nfrom planeshift.kernels import" in text  # third party, after stdlib
    formatted = _ruff(tmp_path, "format", "--check", "--diff", *files)
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr
    checked = _ruff(tmp_path, "check", "--select", "E501,I", *files)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_call_whose_arguments_shared_a_line_of_their_own_goes_one_argument_a_line() -> None:
    before = dedent('''
        registry.register(
            name, _filtered, kinds=["invocation"], ids=[inv_id], override=True
        )
        ''')
    after = before.replace("_filtered", "as_sink(SinkRegistration(name='x.y', handler=_filtered))")
    laid = fit(cst.parse_module(after), before, TargetStyle(line_length=70))
    assert laid == dedent('''
        registry.register(
            name,
            as_sink(SinkRegistration(name='x.y', handler=_filtered)),
            kinds=["invocation"],
            ids=[inv_id],
            override=True,
        )
        ''')


def test_a_bare_tuple_is_not_split_and_a_generator_argument_gets_no_trailing_comma() -> None:
    text = "x = 1, fn(aaaaaaaaaaaaaaaaaaaa)\ny = sum(v for v in range(100000000000000))\n"
    assert fit(cst.parse_module(text), "", TargetStyle(line_length=20)) == dedent('''
        x = 1, fn(
            aaaaaaaaaaaaaaaaaaaa
        )
        y = sum(
            v for v in range(
                100000000000000
            )
        )
        ''')


NOTE = "x = 1\n# planeshift: discard-unawaited owner=@team kept\n"  # the note above line 3


def test_a_note_above_a_registration_inside_the_brackets_keeps_its_statement_on_one_line(
        ) -> None:
    """The note holds for the line below it: split, `on_event=` (the registration) would move
    to a line the note no longer precedes."""
    adapters = frozenset({"as_subscriber"})
    inner = NOTE + "bus = EventBus(on_event=[as_subscriber(Subscription(name='a', handler=h))])\n"
    assert fit(cst.parse_module(inner), "", TargetStyle(line_length=40), adapters) == inner
    outer = NOTE + "bus.on(Point.AFTER, as_subscriber(Subscription(name='a', handler=h)))\n"
    assert fit(cst.parse_module(outer), "", TargetStyle(line_length=40), adapters) == \
        NOTE + dedent('''
        bus.on(
            Point.AFTER,
            as_subscriber(
                Subscription(
                    name='a', handler=h
                )
            ),
        )
        ''')  # the registration is the call: it still starts below the note


DEEP = '''
    from demo.bus import EventBus, Point


    class NotificationSettingsRegistrar:
        def register_the_run_outcome_scope_for_delivery(self, bus: EventBus) -> None:
            async def handler(**payload):
                return None

            bus.on(Point.AFTER, handler)
    '''


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed")
def test_a_declared_name_too_long_for_its_line_is_cut_after_a_dot_in_parentheses(
        tmp_path: Path) -> None:
    """A formatter never splits a string: the name goes in parenthesized parts, which ruff keeps
    as they are, and Python reads the same string."""
    rel = "pkg/lifecycle/notification_settings.py"
    write_tree(tmp_path, {**DEMO_FILES, "pyproject.toml": RUFF_100, "pkg/__init__.py": "",
                          "pkg/lifecycle/__init__.py": "", rel: dedent(DEEP)})
    assert _ruff(tmp_path, "format", "--check", rel).returncode == 0  # clean before
    result = run(tmp_path, ONLY)
    assert len(result.migrated) == 1 and not result.failed
    text = (tmp_path / rel).read_text()
    assert max(len(line) for line in text.splitlines()) <= 100
    assert '''
                    name=(
                        "pkg.lifecycle.notification_settings.NotificationSettingsRegistrar."
                        "register_the_run_outcome_scope_for_delivery.handler"
                    ),''' in text
    names = [k.value.value for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Call)
             for k in node.keywords if k.arg == "name" and isinstance(k.value, ast.Constant)]
    assert names == ["pkg.lifecycle.notification_settings.NotificationSettingsRegistrar."
                     "register_the_run_outcome_scope_for_delivery.handler"]
    formatted = _ruff(tmp_path, "format", "--check", "--diff", rel)
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr
    checked = _ruff(tmp_path, "check", "--select", "E501,I,ISC", rel)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert not run(tmp_path, ONLY).changes  # a second run finds nothing to do


def test_a_declared_name_that_fits_below_its_parenthesis_goes_there_whole() -> None:
    """ruff joins parts that fit on one line inside the parentheses: so does the layout."""
    name = "lionagi.state.lifecycle.notify_settings.register_run_notify_outcome_scope.handler"
    before = "def f():\n    registry.register(name, handler, kinds=[kind], override=True)\n"
    after = before.replace(", handler,", f", SinkRegistration(name='{name}', handler=handler),")
    laid = fit(cst.parse_module(after), before, TargetStyle(line_length=100),
               frozenset({"SinkRegistration"}))
    assert laid == dedent(f'''
        def f():
            registry.register(
                name,
                SinkRegistration(
                    name=(
                        '{name}'
                    ),
                    handler=handler,
                ),
                kinds=[kind],
                override=True,
            )
        ''')


def test_a_rewritten_statement_is_split_for_a_line_the_rewrite_made_long_not_one_it_had() -> None:
    """Given the tree first parsed (as migrate gives it), the layout pass looks only at the
    statement lines an edit rebuilt, and keeps a long line each already had as written."""
    had = "    point(" + ", ".join(f"argument_{i}" for i in range(9)) + "),\n"
    before = "bus.on(\n" + had + "    handler,\n)\nother(" + "x, " * 40 + "x)\n"
    original = cst.parse_module(before)
    first = original.body[0]
    statement = cast_line(first)

    def rewritten(handler: str) -> tuple[cst.Module, dict[int, tuple[cst.CSTNode, cst.CSTNode]]]:
        call = statement.body[0].value  # type: ignore[attr-defined]
        args = [call.args[0], call.args[1].with_changes(value=cst.parse_expression(handler))]
        line = statement.with_changes(body=[statement.body[0].with_changes(  # type: ignore[attr-defined]
            value=call.with_changes(args=args))])
        return original.with_changes(body=[line, *original.body[1:]]), {id(line): (line, first)}

    style = TargetStyle(line_length=60)
    tree, units = rewritten("wrap(handler)")
    assert fit(tree, before, style, original=original, units=units) == before.replace(
        "    handler,", "    wrap(handler),")  # the long lines were there: nothing split
    tree, units = rewritten("wrap(handler, name='a rather long name for it', order=1)")
    laid_out = fit(tree, before, style, original=original, units=units)
    assert "    wrap(\n        handler, name='a rather long name for it', order=1\n    ),\n" in laid_out
    assert laid_out.endswith("\nother(" + "x, " * 40 + "x)\n")  # not rewritten: as it was


def cast_line(node: cst.CSTNode) -> cst.SimpleStatementLine:
    assert isinstance(node, cst.SimpleStatementLine)
    return node
