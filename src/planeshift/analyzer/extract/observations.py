"""What a function on a dispatch path was seen to do with its handlers: one typed record a kind of
observation, so policy inference (``analyzer/policy/``) reads fields, never parses strings.

``analyzer/extract/loops.py`` makes them; a :class:`Seen` wraps one with where it was seen. Each
record names its kind (``Seen.kind``), which is also its tag in the scan cache
(``store/codec.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True, slots=True)
class Origin:
    """Where the handler (or the list of errors) an observation is about comes from: made in the
    function itself (no field set), a parameter of it, or an attribute of the dispatcher."""

    param: str = ""  # a parameter's name: the callers on the path say what it holds
    attr: str = ""  # "A" of ``self.A``, or "A.b" of an entry's handler attribute ``self.A[k].b``

    @property
    def local(self) -> bool:
        return not (self.param or self.attr)


LOCAL = Origin()


@dataclass(frozen=True, slots=True)
class Result:
    """What becomes of the value a handler call returned (``analyzer/extract/loop_results.py``)."""

    what: str  # "awaited" | "maybe_await" | "inspected" | "stored" | "dropped" | "returned" |
    #            "gathered" | "task" | "used" | "passed"
    classifier: str = ""  # awaited, stored or inspected under `if <classifier>(value):`
    into: str = ""  # stored: the list it is appended to; passed: the callee it is handed to


@dataclass(frozen=True, slots=True)
class HandlerCall:
    """A handler call, and what becomes of its result."""

    kind: ClassVar[str] = "call"
    result: Result
    via: str = ""  # the helper the handler was fetched through (its body is not read here)
    declared_async: Result | None = None  # in an `if is_coro_func(h):` branch: what becomes of
    #                                       the awaited coroutine's result


@dataclass(frozen=True, slots=True)
class Offload:
    """A handler handed to a worker thread: ``run_sync(h, x)``."""

    kind: ClassVar[str] = "offload"
    name: str  # "run_sync" | "to_thread" | "run_in_threadpool" | "run_in_executor"


@dataclass(frozen=True, slots=True)
class Predicate:
    """A tested call that selects handlers (``Seen.at``: the loop it filters)."""

    kind: ClassVar[str] = "predicate"
    name: str  # the called name: ``matches`` of ``r.matches(e)``
    on_entry: bool = False  # a method of the registration entry (its body is not on the path)


@dataclass(frozen=True, slots=True)
class Classify:
    """A test of what a handler is, or of what it returned."""

    kind: ClassVar[str] = "classify"
    test: str  # "by_declaration" | "isawaitable" | "iscoroutine" | "maybe_await"
    rejects: bool = False  # by_declaration: the branch raises


@dataclass(frozen=True, slots=True)
class Action:
    """One thing an except clause does."""

    kind: str  # "raise" | "raise_if" (a raise not at the clause's top) | "raise_new" | "log" |
    #            "collect" | "report" | "return" | "break" | "continue" | "assign" | "pass"
    target: str = ""  # raise_new: the class raised; collect: the list the error is appended to


@dataclass(frozen=True, slots=True)
class Guard:
    """An except clause around a handler call (``Seen.at``), or one its concurrency implies."""

    kind: ClassVar[str] = "guard"
    caught: str  # the caught type's text; "BaseException" for an implied one
    actions: tuple[Action, ...] = ()  # an except clause's, in order (loop_shapes.clause_actions)
    try_line: int = 0  # an except clause: the line of its try (shared by the try's clauses)
    implied: str = ""  # a guard the concurrency implies: "gathered" (inside
    #                    ``gather(..., return_exceptions=True)``), "gather", "task_group", "task"
    library: str = ""  # implied by a task group: "anyio" | "asyncio"


@dataclass(frozen=True, slots=True)
class Loop:
    """A loop holding handler calls or calls passing handlers on (``Seen.at``: its last line)."""

    kind: ClassVar[str] = "loop"
    iterates: str  # the text of what it iterates ("self._subs")


@dataclass(frozen=True, slots=True)
class Passed:
    """What one parameter of a followed function receives from the call."""

    param: str
    role: str  # "item" (a handler or a registry entry) | "errors" (a list of collected errors)
    root: Origin  # where the value comes from


@dataclass(frozen=True, slots=True)
class Follow:
    """A call of a function of this file, read as part of the path."""

    kind: ClassVar[str] = "follow"
    target: str  # its qualname in the module
    passes: tuple[Passed, ...] = ()


@dataclass(frozen=True, slots=True)
class Concurrency:
    """Handlers (or their awaitables) run together (``Seen.at``: the span's last line)."""

    kind: ClassVar[str] = "concurrency"
    form: str  # "gather" | "task_group"
    return_exceptions: bool = False  # gather(..., return_exceptions=True)
    awaitables: str = ""  # gather: the list of stored handler results it gathers
    library: str = ""  # task_group: "anyio" | "asyncio"


@dataclass(frozen=True, slots=True)
class Deadline:
    """A time budget around calls (``Seen.at``: the span's last line)."""

    kind: ClassVar[str] = "deadline"
    name: str  # "move_on_after" | "fail_after" | "timeout" | "wait_for" | ...


@dataclass(frozen=True, slots=True)
class Raise:
    """A raise outside except clauses, of collected errors or of a cancellation."""

    kind: ClassVar[str] = "raise"
    form: str  # "group" | "one" | "translate" (a cancellation class of its own)
    single: bool = False  # one: under ``if len(errors) == 1:``
    raised: str = ""  # translate: the class raised


@dataclass(frozen=True, slots=True)
class Drops:
    """The results of ``gather(..., return_exceptions=True)`` kept only where
    ``isinstance(r, Exception)``: nothing here picks out their cancellations."""

    kind: ClassVar[str] = "drops"


Detail = (HandlerCall | Offload | Predicate | Classify | Guard | Loop | Follow | Concurrency
          | Deadline | Raise | Drops)
DETAILS: tuple[type, ...] = (HandlerCall, Offload, Predicate, Classify, Guard, Loop, Follow,
                             Concurrency, Deadline, Raise, Drops)


@dataclass(frozen=True, slots=True)
class Seen:
    """One observation on a dispatch path: what was seen (``detail``), and where."""

    detail: Detail
    line: int
    at: int = 0  # the line this one qualifies: a guard's guarded call, a call's loop, a span's end
    root: Origin = LOCAL  # where the callable or error list comes from
    text: str = ""  # the source seen (shortened), for evidence

    @property
    def kind(self) -> str:
        """"call", "offload", "predicate", "classify", "guard", "loop", "follow",
        "concurrency", "deadline", "raise" or "drops"."""
        return self.detail.kind


@dataclass(frozen=True, slots=True)
class LoopFacts:
    """What a function on a dispatch path does with the handlers it calls: the raw material of
    policy inference (``analyzer/policy/policy.py``)."""

    iterates: tuple[str, ...] = ()  # text of what its dispatch loops iterate ("self._subs")
    lines: tuple[int, ...] = ()  # where the handler calls are
    seen: tuple[Seen, ...] = ()
