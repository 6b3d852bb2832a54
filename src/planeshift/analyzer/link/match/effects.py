"""What a handler does, read from its body and from the bodies in view it calls (its class's
methods through ``self``, functions by name, methods of the instances it names), three calls
deep.

ADR-0120's planes turn on it where the point does not decide: a Django ``pre_save`` receiver that
sets a field on the instance shapes the write (an interceptor), one that writes rows takes part
in the sender's transaction (a commit participant), one that sends mail or queues a task delivers
(a delivery sink), one that only clears a cache is told (a subscriber). The words below are the
common vocabulary of Python's web stacks (Django's ORM and mail, SQLAlchemy sessions, Celery,
RQ, requests, httpx, smtplib); a call is judged by its spelling, never by running it.
"""

from __future__ import annotations

from ....packs.model import HANDLER_EFFECTS
from ...extract.facts import CallRow, Ref, call_rows
from ...extract.refs import last_word
from ..evaluate.engine import Evaluator
from ..memo import Memo

MUTATES, DURABLE, DELIVERY, RETURNS, RAISES = EFFECTS = HANDLER_EFFECTS

_DURABLE_ANY = frozenset({"save", "bulk_create", "bulk_update", "get_or_create",
                          "update_or_create"})
# spelled on a manager, a query or a session (`X.objects.create`, `qs.filter(...).update(...)`,
# `db.session.add(row)`) only: a cache's `delete`, a dict's `update` or a stream's `flush` is not
# a write, nor is a cursor's `execute` (as often a read)
_DURABLE_ON_QUERY = frozenset({"create", "update", "delete", "insert", "add", "add_all",
                               "flush", "merge", "commit", "log_action", "log_actions"})
_QUERY_WORDS = frozenset({"objects", "_default_manager", "_base_manager", "all", "filter",
                          "exclude", "using", "select_for_update", "query", "session"})
# (a container's own mutators called on what the handler is handed are read at extraction:
# `Function.arg_stores`, `pelican.settings["MD_EXTENSIONS"].append(ext)`)
_DELIVERY_FUNCS = frozenset({"send_mail", "send_mass_mail", "mail_admins", "mail_managers",
                             "urlopen", "send_email", "send_message", "send_task"})
_DELIVERY_METHODS = frozenset({"delay", "apply_async", "send_task", "enqueue", "publish",
                               "send_mail", "send_messages", "sendmail", "send_message",
                               "basic_publish", "produce"})
_HTTP_CLIENTS = frozenset({"requests", "httpx", "urllib3", "aiohttp"})
# what a `send` goes out of the process through: mail, a socket, an IPC channel (execnet's)
_OUTBOUND = frozenset({"mail", "email", "message", "msg", "channel", "socket", "sock"})
_HTTP_VERBS = frozenset({"get", "post", "put", "patch", "delete", "request", "head"})
DEPTH = 3


class Effects:
    """The effects of functions in view, by qualified name (None: not in view)."""

    def __init__(self, evaluator: Evaluator) -> None:
        self.ev = evaluator
        self._memo: Memo[tuple[str, ...] | None] = Memo(evaluator.index.deps)
        self._rows: dict[str, dict[str, list[CallRow]]] = {}  # module -> scope -> its calls

    def of(self, qualname: str) -> tuple[str, ...] | None:
        def compute() -> tuple[str, ...] | None:
            found = self._collect(qualname, DEPTH, set())
            return None if found is None else tuple(e for e in EFFECTS if e in found)

        return self._memo.get(qualname, compute)

    def _calls(self, module: str, scope: str) -> list[CallRow]:
        facts = self.ev.index.modules.get(module)  # (read each time: the unit's dependency,
        self.ev.index.note(("calls", module))       # the module's calls with it)
        if module not in self._rows:
            by_scope: dict[str, list[CallRow]] = {}
            for row in call_rows(facts) if facts is not None else ():
                by_scope.setdefault(row[1], []).append(row)
            self._rows[module] = by_scope
        return self._rows[module].get(scope, [])

    def _collect(self, qualname: str, depth: int, seen: set[str]) -> set[str] | None:
        func = self.ev.index.functions.get(qualname)
        module = self.ev.index.function_module.get(qualname)
        if func is None or module is None:
            return None
        seen.add(qualname)
        out: set[str] = {MUTATES} if func.arg_stores else set()
        if func.raises:  # (a raise in a helper it calls goes through the handler too)
            out.add(RAISES)
        if depth == DEPTH and any(r != ("const", "None") for r in func.return_values):
            out.add(RETURNS)  # (what a helper returns goes to the handler, not the emitter)
        params = {p.name for p in func.params if p.kind not in ("self", "cls", "vararg", "kwarg")}
        scope = qualname[len(module) + 1:]
        owner = scope.rpartition(".")[0]
        for row in self._calls(module, scope):
            callee, handed = row[0], set(row[6])
            effect = _effect_of(callee) or self._bound(callee, module, scope)
            if effect is not None:
                out.add(effect)
            elif callee == ("name", "setattr") and params & handed:
                out.add(MUTATES)
            elif _registers(callee, params, handed | set(row[7])):
                out.add(MUTATES)
            target = self._own(callee, module, owner, scope)
            if target is not None and target not in seen and depth > 1:
                inner = self._collect(target, depth - 1, seen) or set()
                out |= inner - ({MUTATES, RAISES} if self._guard(callee, target, module)
                                else {MUTATES})
                if MUTATES in inner and (params & handed or last_word(callee) in func.hands_on):
                    out.add(MUTATES)  # a helper changes what it was handed
        return out

    def _bound(self, callee: Ref, module: str, scope: str) -> str | None:
        """The effect a call has through what a name is bound to, read through the index (so
        an edit of the binding alone reaches the memo): ``condition.delete()`` on a local bound
        to what a query returned (``condition = Condition.objects.get(...)``, ``for row in
        Book.objects.filter(...)``), a row written as the same call on the query itself is; and
        a module-level alias of a method called by its name (``create_log_entry =
        LogEntry.objects.log_action``, then ``create_log_entry(...)``)."""
        if callee[0] == "name":
            refs = self.ev.index.binding((module, ""), callee[1]) or []
            effects = (_effect_of(ref) for ref in refs if ref[0] == "attr")
            return next((effect for effect in effects if effect is not None), None)
        if callee[0] != "attr" or callee[1][0] != "name" or callee[2] not in _DURABLE_ON_QUERY:
            return None
        refs = self.ev.index.binding((module, scope), callee[1][1]) or []
        return DURABLE if any(_queried(ref) for ref in refs) else None

    def _guard(self, callee: Ref, target: str, module: str) -> bool:
        """Is *target* a method of another module's class, called on an object other than
        ``self`` (``group.addoption(...)``, ``config.getini(...)``)? Its raise guards that
        object (an option declared twice, an unknown key): not the handler deciding to stop the
        call, as a raise in a function it calls (``check_order(instance)``) or in its own class
        is."""
        if callee[0] != "attr" or callee[1] == ("name", "self"):
            return False
        func = self.ev.index.functions.get(target)
        return (func is not None and func.kind != "function"
                and self.ev.index.function_module.get(target) != module)

    def _own(self, callee: Ref, module: str, owner: str, scope: str) -> str | None:
        """A function in view it calls: ``self.m(...)``, ``helper(...)`` (its module's or an
        imported one), ``PARSER.read(...)`` on an instance of a class in view."""
        if callee[0] == "attr" and callee[1] == ("name", "self") and owner:
            qn = f"{module}.{owner}.{callee[2]}"
            return qn if self.ev.index.functions.get(qn) is not None else None
        if callee[0] not in ("name", "attr"):
            return None
        for value in self.ev.eval(callee, module, scope):
            if value[0] == "func":
                return value[1]
            if value[0] == "bound":
                return self.ev.method(value[1], value[2])
        return None


def _effect_of(callee: Ref) -> str | None:
    if callee[0] == "name":
        return DELIVERY if callee[1] in _DELIVERY_FUNCS else None
    if callee[0] != "attr":
        return None
    base, name = callee[1], callee[2]
    if name in _DURABLE_ANY:
        return DURABLE
    if name in _DURABLE_ON_QUERY and last_word(base) in _QUERY_WORDS:
        return DURABLE
    if name in _DELIVERY_METHODS:
        return DELIVERY
    if name in _HTTP_VERBS and base[0] == "name" and base[1] in _HTTP_CLIENTS:
        return DELIVERY
    if name in ("send", "sendall") and last_word(base) in _OUTBOUND:
        return DELIVERY
    return None


def _queried(ref: Ref) -> bool:
    """Is *ref* a query's result: a chain of calls and attributes through a manager, a
    queryset method or a session (``Model.objects.get(pk=1)``, ``qs.filter(...).first()``)?"""
    if ref[0] == "iter":
        ref = ref[1]
    while ref[0] in ("call", "attr"):
        if ref[0] == "attr" and ref[2] in _QUERY_WORDS:
            return True
        ref = ref[1]
    return False


def _registers(callee: Ref, params: set[str], handed: set[str]) -> bool:
    """``config.pluginmanager.register(plugin)``, ``manager.register(p)``,
    ``register_hstore(connection.connection)``: a registration on what the handler is handed
    (or a part of it: a plugin,
    a handler, an adapter added to the caller's registry changes what the caller runs next);
    not ``atexit.register(report, config)``, which only hands it over."""
    word = last_word(callee)
    if word != "register" and not word.startswith("register_"):
        return False
    if callee[0] == "attr":
        return _root_name(callee[1]) in params
    return bool(params & handed)


def _root_name(ref: Ref) -> str:
    """The name an attribute or item chain starts from: ``config`` of ``config["pm"].x``."""
    while ref[0] in ("attr", "sub"):
        ref = ref[1]
    return ref[1] if ref[0] == "name" else ""
