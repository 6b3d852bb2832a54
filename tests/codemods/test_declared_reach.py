"""A call site declares a typed registration only where the dispatcher's façade reads it: through
a method that accepts it (``HookBus.on`` after `migrate --owners`), not through a list the handler
waits in until the owner takes it over, wrapped (lionagi's ``_pending_hook_bus_entries``)."""

from __future__ import annotations

from pathlib import Path

from analyzer.helpers import write_tree

from planeshift.codemods import MigrateOptions, migrate
from planeshift.config import Config

from .helpers import dedent

BUS = '''
    """HookBus as `migrate --owners` leaves it: `on` reads a call site's declaration."""
    from enum import Enum

    from planeshift.kernels import Declarations


    class HookPoint(str, Enum):
        TOOL_PRE = "tool_pre"
        API_PRE_CALL = "api_pre_call"


    class HookBus:
        def on(self, point, handler):
            handler = _HOOK_BUS_DECLARATIONS.accept(handler)


    _HOOK_BUS_DECLARATIONS = Declarations(planes=("interceptor", "subscriber"))
    '''
BRANCH = '''
    class Branch:
        def __init__(self):
            self._pending_hook_bus_entries = []

        def attach_hook_bus(self, bus):
            for point, handler in self._pending_hook_bus_entries:
                bus.on(point, lambda **kw: handler(**kw))  # wrapped: a declaration is no callable
    '''
APP = '''
    from lionagi.hooks import HookBus, HookPoint
    from lionagi.session.branch import Branch


    def guard(**kw):
        return None


    def wire(bus: HookBus, branch: Branch) -> None:
        bus.on(HookPoint.TOOL_PRE, guard)
        branch._pending_hook_bus_entries.append((HookPoint.API_PRE_CALL, guard))
    '''


def test_a_handler_queued_for_the_owner_is_not_declared_one_handed_to_on_is(
        tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "lionagi/__init__.py": "", "lionagi/session/__init__.py": "",
        "lionagi/hooks/__init__.py": "from .bus import HookBus, HookPoint\n",
        "lionagi/hooks/bus.py": dedent(BUS), "lionagi/session/branch.py": dedent(BRANCH),
        "app.py": dedent(APP)})
    config = Config(root=tmp_path, builtin_packs=("lionagi",), use_cache=False, jobs=1,
                    use_context=False, kernel_module="planeshift.kernels")
    result = migrate(config, MigrateOptions(select=("registration",), write=True))
    assert not result.failed
    assert [(m.file, m.line) for m in result.migrated] == [("app.py", 10)]
    refused = [n.reason for n in result.not_migrated if (n.file, n.line) == ("app.py", 11)]
    assert refused == [("not rewritten: `_pending_hook_bus_entries.append` does not hand "
                        "the handler to a method of HookBus that reads its declaration (on "
                        "does), so a typed registration would reach code that calls it")]
    text = (tmp_path / "app.py").read_text()
    assert "branch._pending_hook_bus_entries.append((HookPoint.API_PRE_CALL, guard))" in text
