"""The built-in lionagi pack on small hand-written code that imports lionagi as a user would.

lionagi itself is not installed and not scanned: every lionagi name is external, so these tests
pin what the pack's dispatcher names, aliases, factories and point enums give on their own.
"""

from __future__ import annotations

from pathlib import Path

from .helpers import line_of, one, regs, scan_tree, show


def scan(tmp_path: Path, app: str, **more: str):
    return scan_tree(tmp_path, {"app.py": app, **more}, packs=(), builtin=("lionagi",), demo=False)


def rows(result, rel: str = "app.py") -> list[tuple]:
    return sorted(
        (r.line, r.mechanism, r.point, r.handler.qualname, r.plane)
        for r in regs(result, file=rel)
    )


def test_hookbus_tool_pre_is_interceptor_and_tool_post_is_subscriber(tmp_path: Path) -> None:
    app = """
    from lionagi.hooks import HookBus, HookPoint


    def guard(tool_name, arguments, **kw):
        return None


    async def log(tool_name, result, **kw):
        return None


    bus = HookBus()
    bus.on(HookPoint.TOOL_PRE, guard)
    bus.on(HookPoint.TOOL_POST, log)
    """
    result = scan(tmp_path, app)
    assert rows(result) == [
        (line_of(app, "TOOL_PRE, guard"), "hookbus", "TOOL_PRE", "app.guard", "interceptor"),
        (line_of(app, "TOOL_POST, log"), "hookbus", "TOOL_POST", "app.log", "subscriber"),
    ], show(result)
    pre = one(result, file="app.py", point="TOOL_PRE")
    assert pre.rule == "hookbus.blocking-point"
    assert any("ADR-0120 D4" in e for e in pre.evidence)


def test_hookbus_through_module_alias_decorator_and_session_factory(tmp_path: Path) -> None:
    app = """
    import lionagi.hooks as lh
    from lionagi.hooks import build_session_bus
    from lionagi.hooks.bus import hook


    @hook(lh.HookPoint.USER_PROMPT_SUBMIT)
    def screen(prompt, **kw):
        return None


    def record(**kw):
        return None


    def setup(session) -> None:
        bus = build_session_bus(session)
        bus.on(lh.HookPoint.SESSION_START, record)
        lh.HookBus().on(point=lh.HookPoint.TOOL_PRE, handler=record)
    """
    result = scan(tmp_path, app)
    assert rows(result) == [
        # found, but inert: lionagi 0.36.0's hook() only tags the function, nothing reads the tag
        (line_of(app, "@hook("), "hookbus", "USER_PROMPT_SUBMIT", "app.screen", "needs_review"),
        (line_of(app, "SESSION_START"), "hookbus", "SESSION_START", "app.record", "subscriber"),
        (line_of(app, "TOOL_PRE"), "hookbus", "TOOL_PRE", "app.record", "interceptor"),
    ], show(result)
    assert result.registrations[0].rule == "hookbus.tag-only"


def test_broadcaster_subclass_subscribe_is_subscriber(tmp_path: Path) -> None:
    app = """
    from lionagi import Broadcaster


    class DeployBroadcaster(Broadcaster):
        pass


    def on_deploy(event):
        print(event)


    DeployBroadcaster.subscribe(on_deploy)
    """
    result = scan(tmp_path, app)
    assert rows(result) == [
        (line_of(app, ".subscribe("), "broadcaster", None, "app.on_deploy", "subscriber"),
    ], show(result)


def test_a_bound_method_of_a_temporary_dies_in_the_broadcaster(tmp_path: Path) -> None:
    """Broadcaster.subscribe keeps a bound method as a WeakMethod (a function or a lambda
    strongly): `Mailer().on_event` is collected at once and never called (PS112)."""
    app = """
    from lionagi import Broadcaster


    class Mailer:
        def on_event(self, event):
            print(event)


    class Tickets(Broadcaster):
        pass


    MAILER = Mailer()
    Tickets.subscribe(Mailer().on_event)
    Tickets.subscribe(MAILER.on_event)
    Tickets.subscribe(lambda event: print(event))
    """
    result = scan(tmp_path, app)
    weak = [(f.line, f.rule) for f in result.findings if f.rule == "PS112"]
    assert weak == [(line_of(app, "Mailer().on_event"), "PS112")], show(result)


def test_table_entries_making_one_registration_are_all_in_its_evidence(tmp_path: Path) -> None:
    app = """
    from lionagi.tools.coding import CodingToolkit


    def redact(*args, **kwargs):
        return None


    kit = CodingToolkit(workspace_root=".")
    for tool in ("reader", "search"):
        kit.post(tool, redact)
    """
    result = scan(tmp_path, app)
    [reg] = result.registrations
    assert reg.evidence[-2:] == (
        "one entry of a literal table the code iterates or looks up: tool = 'reader'",
        "the same registration for the table's other entries: tool = 'search'"), show(result)


def test_session_observer_observe_gate_and_facade(tmp_path: Path) -> None:
    app = """
    from lionagi.session import SessionObserver
    from lionagi.session.signals import ToolCalled


    def h(signal, ctx):
        return None


    def check(signal, ctx):
        return True


    obs = SessionObserver()
    obs.observe(ToolCalled, handler=h)
    obs.gate(check)


    class MySession:
        def __init__(self) -> None:
            self.observer = SessionObserver()

        def observe(self, *keys, handler=None):
            return self.observer.observe(*keys, handler=handler)


    MySession().observe(ToolCalled, handler=h)
    """
    result = scan(tmp_path, app)
    assert rows(result) == [
        (line_of(app, "obs.observe("), "session_observer", "ToolCalled", "app.h", "subscriber"),
        (line_of(app, "obs.gate("), "session_observer", "GATE", "app.check", "interceptor"),
        (line_of(app, "MySession().observe("), "session_observer", "ToolCalled", "app.h",
         "subscriber"),
    ], show(result)


def test_message_manager_keyword_callbacks_carry_discard_unawaited(tmp_path: Path) -> None:
    app = """
    from lionagi.protocols.messages.manager import MessageManager


    def cb(message):
        print(message)


    async def acb(message):
        return None


    manager = MessageManager(on_message_added=[cb, acb])
    """
    result = scan(tmp_path, app)
    assert rows(result) == [
        (line_of(app, "on_message_added"), "message_manager", None, "app.acb", "subscriber"),
        (line_of(app, "on_message_added"), "message_manager", None, "app.cb", "subscriber"),
    ], show(result)
    sync = one(result, file="app.py", handler_qualname="app.cb")
    assert sync.via == "keyword"
    assert "discard_unawaited" in sync.flags
    # declared async under a by-declaration policy: awaited, so not a discard hazard
    assert "discard_unawaited" not in one(result, file="app.py", handler_qualname="app.acb").flags


def test_keyword_and_mapping_forms_through_public_aliases(tmp_path: Path) -> None:
    app = """
    from lionagi.protocols.messages import MessageManager
    from lionagi.service.hooks import HookEventTypes, HookRegistry


    def cb(message):
        print(message)


    manager = MessageManager(on_message_added=[cb])
    registry = HookRegistry(hooks={HookEventTypes.PostInvocation: cb})
    """
    result = scan(tmp_path, app)
    assert rows(result) == [
        (line_of(app, "on_message_added"), "message_manager", None, "app.cb", "subscriber"),
        (line_of(app, "HookRegistry(hooks"), "service_hook_registry", "PostInvocation", "app.cb",
         "interceptor"),
    ], show(result)


def test_message_manager_callback_list_through_a_users_property(tmp_path: Path) -> None:
    app = """
    from lionagi.protocols.messages import MessageManager


    class Chat:
        def __init__(self) -> None:
            self._manager = MessageManager()

        @property
        def message_callbacks(self):
            return self._manager._on_message_added


    def schedule(message):
        import asyncio
        return asyncio.ensure_future(asyncio.sleep(0))


    chat = Chat()
    chat.message_callbacks.append(schedule)
    """
    result = scan(tmp_path, app)
    assert rows(result) == [
        (line_of(app, ".append(schedule)"), "message_manager", None, "app.schedule", "subscriber"),
    ], show(result)
    reg = one(result, file="app.py")
    assert reg.handler.returns_awaitable is True
    assert {"discard_unawaited", "returns_awaitable"} <= set(reg.flags)


def test_service_hook_registry_decorator_and_mapping(tmp_path: Path) -> None:
    app = """
    from lionagi.service.hooks import HookEventTypes
    from lionagi.service.hooks.hook_registry import HookRegistry


    async def before(event, **kw):
        return None


    registry = HookRegistry(hooks={HookEventTypes.PostInvocation: before})


    @registry.pre_invoke
    async def audit(event, **kw):
        return None
    """
    result = scan(tmp_path, app)
    assert rows(result) == [
        (line_of(app, "HookRegistry(hooks"), "service_hook_registry", "PostInvocation",
         "app.before", "interceptor"),
        (line_of(app, "@registry.pre_invoke"), "service_hook_registry", "PreInvocation",
         "app.audit", "interceptor"),
    ], show(result)


def test_same_method_name_on_two_lionagi_dispatchers(tmp_path: Path) -> None:
    app = """
    from lionagi.hooks import HookBus, HookPoint
    from lionagi.tools.communication import LionMessenger


    def cb(**kw):
        return None


    HookBus().on(HookPoint.TOOL_POST, cb)
    LionMessenger().on("help", cb)
    """
    result = scan(tmp_path, app)
    assert rows(result) == [
        (line_of(app, "HookBus().on("), "hookbus", "TOOL_POST", "app.cb", "subscriber"),
        (line_of(app, "LionMessenger().on("), "messenger", "help", "app.cb", "needs_review"),
    ], show(result)


def test_untyped_receiver_is_corroborated_by_a_hookbus_point(tmp_path: Path) -> None:
    app = """
    from lionagi.hooks import HookPoint


    def guard(**kw):
        return None


    def install(bus) -> None:
        bus.on(HookPoint.TOOL_PRE, guard)
    """
    result = scan(tmp_path, app)
    reg = one(result, file="app.py")
    assert (reg.mechanism, reg.point, reg.plane) == ("hookbus", "TOOL_PRE", "interceptor")
    assert reg.confidence == "medium"
    assert "unresolved_receiver" in reg.flags
