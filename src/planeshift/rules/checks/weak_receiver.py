"""PS112: a receiver held by weak reference that nothing else keeps alive (Django, blinker,
lionagi's Broadcaster)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .base import Hazard, Invalid, Rule, register
from .syntax import header_nodes, lines_of, statements_on

if TYPE_CHECKING:
    from ...project import ProjectFacts
    from ...types import Registration


@dataclass(frozen=True, slots=True)
class ConnectFacts:
    """The lines of a file's ``.connect(...)`` calls: those passing ``weak=False``, and those
    handing over a bound method of an object made in the call (``Cache().clear``); and the
    functions that also disconnect (they keep their receivers for as long as they mean to)."""

    strong: tuple[int, ...]
    temporary: tuple[int, ...]
    disconnecting: tuple[str, ...] = ()


@register
class WeakReceiver(Rule):
    """Flag a receiver connected by weak reference that nothing else keeps alive.

    ## What it does
    Reports a registration on a dispatcher that holds its receivers by weak reference unless
    told otherwise (`weak_receivers: true` in its pack: Django's and blinker's `Signal.connect`,
    `weak=True` by default), connected without `weak=False`, whose receiver is a lambda, a
    `functools.partial`, a bound method of an object made in the call itself, or a function
    defined inside the function that connects it (unless that function disconnects too, or is a
    test: then the receiver lives as long as it is meant to). A dispatcher that holds only bound
    methods weakly (`weak_receivers: bound_methods`: lionagi's `Broadcaster.subscribe`, a
    `WeakMethod`) is flagged for a bound method of an object made in the call itself.

    ## Why is this bad?
    The signal keeps only a weak reference: when the connecting code returns, nothing refers to
    the receiver, it is garbage-collected, and the signal silently stops calling it. Nothing
    fails; the work just stops happening, often only in production, where the collector runs at
    other moments than in a test.

    ## Example
    ```python
    def install(cache):
        post_save.connect(lambda sender, **kw: cache.clear(), sender=Book)
    ```

    ## Use instead
    ```python
    def install(cache):
        post_save.connect(lambda sender, **kw: cache.clear(), sender=Book, weak=False)
    ```
    or connect a module-level function.

    ## Fix safety
    Safe: `weak=False` keeps the receiver for the life of the signal, which is what the code
    assumed; disconnect it where it should stop (a test's teardown) to avoid a leak.

    ## References
    Django, "Listening to signals" (`weak`); blinker, `Signal.connect(weak=True)`; ADR-0120 D1
    (a registration that silently disappears is neither subscriber nor anything else).
    """

    code = "PS112"
    kind = "weak_receiver"
    severity = "warning"
    message = ("{handler} is connected by weak reference and nothing else keeps it alive: it is "
               "collected and {mechanism} stops calling it; connect it with weak=False")
    FACT_WORDS = (".connect(",)
    FACTS = ConnectFacts
    VALID = [
        """
        from demo.bus import Signal

        order_paid = Signal()


        def audit(sender, **kw):
            print("paid", kw)


        def install(cache):
            order_paid.connect(audit)
            order_paid.connect(lambda sender, **kw: cache.clear(), weak=False)
        """,
        """
        from demo.bus import Signal

        order_paid = Signal()


        def test_paid():
            seen = []

            def record(sender, **kw):
                seen.append(kw)

            order_paid.connect(record)
            order_paid.send(None)


        def while_running(cache, run):
            def forget(sender, **kw):
                cache.clear()

            order_paid.connect(forget)
            try:
                run()
            finally:
                order_paid.disconnect(forget)
        """,
    ]
    INVALID = [
        Invalid(
            """
            from demo.bus import Signal

            order_paid = Signal()


            def install(cache):
                order_paid.connect(lambda sender, **kw: cache.clear())
            """,
            line=7,
        ),
        Invalid(
            """
            from demo.bus import Signal

            order_paid = Signal()


            def install(cache):
                def forget(sender, **kw):
                    cache.clear()

                order_paid.connect(forget)
            """,
            line=10,
        ),
    ]

    def file_facts(self, tree: ast.Module, text: str = "") -> ConnectFacts | None:
        strong: list[int] = []
        temporary: list[int] = []
        connects = lines_of(_CONNECT, text)
        for stmt in statements_on(tree, connects):
            for node, _ in header_nodes(stmt.node):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr == "connect"):
                    continue
                if any(k.arg == "weak" and isinstance(k.value, ast.Constant)
                       and k.value.value is False for k in node.keywords):
                    strong.append(node.lineno)
                given = node.args[0] if node.args else next(
                    (k.value for k in node.keywords if k.arg == "receiver"), None)
                if isinstance(given, ast.Attribute) and isinstance(given.value, ast.Call):
                    temporary.append(node.lineno)
        disconnecting = sorted({stmt.function for stmt in statements_on(
            tree, lines_of(_DISCONNECT, text)) if stmt.function})
        if not (strong or temporary or disconnecting):
            return None
        return ConnectFacts(tuple(strong), tuple(temporary), tuple(disconnecting))

    def check(self, project: ProjectFacts) -> Iterator[Hazard]:
        strong: set[tuple[str, int]] = set()
        temporary: set[tuple[str, int]] = set()
        managed: set[tuple[str, str]] = set()
        for path, facts in self.facts(project):
            strong.update((path, line) for line in facts.strong)
            temporary.update((path, line) for line in facts.temporary)
            managed.update((path, scope) for scope in facts.disconnecting)
        modules = {f.path: f.module for f in project.files}
        for reg in project.registrations:
            weak = project.mechanism(reg.mechanism).model.weak_receivers
            if reg.via != "method" or not weak:
                continue
            if weak == "bound_methods":  # a function or lambda is held strongly
                if _of_a_temporary(reg.handler.expr):
                    yield self.on(reg, self.message.format(handler=reg.handler.expr,
                                                           mechanism=reg.mechanism))
                continue
            if (reg.file, reg.line) in strong:
                continue
            if (reg.handler.kind in ("lambda", "partial") or (reg.file, reg.line) in temporary
                    or ((reg.file, reg.scope) not in managed
                        and _local(reg, modules.get(reg.file, "")))):
                yield self.on(reg, self.message.format(handler=reg.handler.expr,
                                                       mechanism=reg.mechanism))


def _of_a_temporary(expr: str) -> bool:
    """``Mailer().on_event``: a bound method of an object made in the call itself."""
    try:
        node = ast.parse(expr, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return False
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call)


def _local(reg: Registration, module: str) -> bool:
    """The receiver is a function defined in the function that connects it, which is not a
    test (a test's receivers live as long as the test runs, which is as long as it needs)."""
    qualname = reg.handler.qualname or ""
    function = reg.scope.rsplit(".", 1)[-1]
    return (bool(reg.scope) and reg.handler.kind == "function"
            and not function.startswith(("test", "setUp"))
            and qualname.startswith(f"{module}.{reg.scope}."))


_CONNECT = re.compile(r"\.connect\s*\(")
_DISCONNECT = re.compile(r"\.disconnect\s*\(")
