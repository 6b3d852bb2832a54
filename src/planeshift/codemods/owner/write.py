"""Writes a dispatch method's fan-out as a call of the vendored kernel's ``fan_out``.

The method keeps every statement around its fan-out (the façade's own code: selecting entries,
counters, gates, records, what it returns). The fan-out becomes::

    async def _step(entry, call):          # the loop body / the nested step, its handler call
        ...                                # rewritten into `await call(handler, *args)`
    def _failed(entry, exc):               # the except clause's record, run where it ran
        ...
    await fan_out(_POLICY, entries, _step, logger=logger, failed=_failed)

and the policy is a module-level constant (or, with a deadline the owner computes, a function of
it) spelled as the named profile's constructor when it is one, else field by field, headed by a
comment naming the profile and the axes where the code differs from it.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field
from typing import cast

import libcst as cst
from libcst._types import CSTNodeT

from .idiom import Code
from .local_imports import drop_unused_local_imports
from .names import has_await, reads_and_binds, target_names
from .partition import Partition
from .policy import OwnerPolicy, axes_source
from .read import FanOut


@dataclass
class Written:
    body: list[cst.BaseStatement]  # the method's new statements
    module: list[str]  # module-level source to insert before the class
    imports: list[str] = field(default_factory=list)  # kernel names the code uses


def _snake(text: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", text).lower().strip("_")


class MethodWriter:
    def __init__(self, fan: FanOut, policy: OwnerPolicy, cls: str, method: cst.FunctionDef,
                 code: Code, taken: set[str], logger: str | None, call: str,
                 config: cst.PartialParserConfig, entry: str | None = None,
                 indent: int = 8, line_length: int = 88) -> None:
        self.fan, self.policy, self.cls, self.method = fan, policy, cls, method
        self.entry = entry or method.name.value  # the dispatch method (a sync entry's helper
        # holds the loop, but the policy is the entry's)
        self.code, self.taken, self.logger, self.config = code, taken, logger, config
        self.call = call
        # the column the fan-out statement starts at and the target's line length
        self.indent, self.line_length = indent, line_length

    def fresh(self, base: str) -> str:
        name, index = base, 2
        while name in self.taken:
            name, index = f"{base}{index}", index + 1
        self.taken.add(name)
        return name

    def stmt(self, text: str) -> cst.BaseStatement:
        return cst.parse_statement(text, config=self.config)

    # -- the policy ---------------------------------------------------------------------------

    def policy_source(self) -> tuple[str, list[str]]:
        """(the expression the call passes, module-level source)."""
        fan, policy = self.fan, self.policy
        label = f"{_snake(self.cls)}_{_snake(self.entry)}_policy"
        head = self._comment()
        if fan.deadline is None:
            const = self.fresh(f"_{label.upper()}")
            value = f"DispatchPolicy.{policy.profile}()" if policy.exact else \
                axes_source(policy.axes, None)
            return const, [f"{head}{const} = {value}\n"]
        func = self.fresh(f"_{label}")
        value = textwrap.indent(axes_source(policy.axes, "deadline_seconds"), "    ").lstrip()
        source = (f"{head}def {func}(deadline_seconds: float | None) -> DispatchPolicy:\n"
                  f"    # a budget of None is no deadline, as {self._deadline_call()}\n"
                  f"    return {value}\n")
        return f"{func}({self.code(fan.deadline).strip()})", [source]

    def _deadline_call(self) -> str:
        return "move_on_after(None)" if self.policy.axes["deadline_disposition"] == "silent_stop" \
            else "fail_after(None)"

    def _comment(self) -> str:
        policy = self.policy
        where = f"{self.cls}.{self.entry}"
        if policy.exact:
            what = f"ADR-0120 D2's {policy.profile} profile"
        else:
            diffs = ", ".join(f"{a}={c}" for a, _, c in policy.differences)
            what = f"nearest ADR-0120 D2 profile: {policy.profile}, differing in {diffs}"
        text = f"planeshift: {where}'s dispatch policy, read from its loop ({what})"
        return "".join(f"# {line}\n" for line in textwrap.wrap(text, 96))

    # -- the method ---------------------------------------------------------------------------

    def write(self, body: list[cst.BaseStatement]) -> Written:
        fan = self.fan
        expr, module = self.policy_source()
        call = self.call
        new = list(body)
        replaced: list[cst.BaseStatement] = []
        step: str
        if fan.step_def is not None:
            old = new[fan.step_def]
            assert isinstance(old, cst.FunctionDef)
            new[fan.step_def] = self._rewritten_def(old, call)
            step = old.name.value
        else:
            step, defs = self._loop_step(call)
            replaced += defs
        hook = self._hook()
        replaced += hook[1]
        kwargs = [f"logger={self.logger}"] if self.logger else []
        if fan.invocation.offload:
            kwargs.append(f"offload={fan.invocation.offload}")
        if hook[0]:
            kwargs.append(f"failed={hook[0]}")
        if fan.post is not None:
            kwargs += [f"group={_callee(fan.post.group)}", f"translated={fan.post.translated}"]
        if fan.stop is not None:
            kwargs.append(f"stop={fan.stop.source}")
        if fan.collected is not None:
            kwargs.append(f"group={_callee(fan.collected.group)}")
        entries = self.code(fan.entries).strip()
        if fan.partition is not None:
            kwargs.append(f"gather={fan.partition.gather}")
            entries, source = self._entries(fan.partition)
            # the gather block's own imports, then the loops as the entries' generator
            replaced[:0] = [*fan.partition.imports, self.stmt(source)]
        args = [expr, entries, step, *kwargs]
        head = report = ""
        if fan.post is not None or fan.partition is not None:
            report = self.fresh("report")
            head = f"{report} = "
        kernel = "fan_out_sync" if fan.sync else "await fan_out"
        text = f"{head}{kernel}({', '.join(args)})\n"
        # on one line (the layout pass splits it as the target's formatter would, after
        # owner_table dropped the policy and the entries), unless an argument spans lines
        if "\n" in text[:-1]:
            lines = "".join(_argument_lines(_one_line(a), self.indent + 4, self.line_length)
                            for a in args)
            text = f"{head}{kernel}(\n{lines})\n"
        calls = [self.stmt(text)]
        if fan.post is not None:
            calls.append(self.stmt(f"{fan.post.raw} = list({report}.values)\n"))
        if fan.partition is not None:  # the loop's two lists, as the report holds them
            calls += [self.stmt(f"{fan.partition.results}list({report}.invocation_values)\n"),
                      self.stmt(f"{fan.partition.gathered}list({report}.gathered_values)\n")]
        for i in range(1, len(replaced)):  # a blank line above a nested definition, as the
            # target's formatter puts one
            if isinstance(replaced[i], cst.FunctionDef) and not replaced[i].leading_lines:
                replaced[i] = replaced[i].with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        if replaced:  # a blank line between the definitions and the call
            calls[0] = calls[0].with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        replaced += calls
        at = len(replaced) - len(calls)  # the fan-out call
        first = body[fan.start]
        leading = list(getattr(first, "leading_lines", ()))
        if fan.start and not leading and isinstance(replaced[0], cst.FunctionDef):
            leading = [cst.EmptyLine(indent=False)]
        replaced[0] = replaced[0].with_changes(leading_lines=leading)
        # the comments of the loop (and of the step it rewrote) that none of the new code holds,
        # above the fan-out call: a noqa comment's "swallowed by design" explained a clause the
        # kernel now runs
        olds = [*body[fan.start:fan.end], *([body[fan.step_def]] if fan.step_def is not None
                                            else [])]
        news = [*replaced, *([new[fan.step_def]] if fan.step_def is not None else [])]
        replaced[at] = _with_comments(replaced[at], _lost_comments(olds, news))
        new[fan.start:fan.end] = replaced
        if fan.collected is not None:  # the list the kernel now collects into
            dropped = new.pop(fan.collected.init)
            after = new[fan.collected.init]
            kept = [*getattr(dropped, "leading_lines", ()), *getattr(after, "leading_lines", ())]
            new[fan.collected.init] = after.with_changes(leading_lines=kept)
        if fan.post is not None and fan.post.dead:  # what the kernel does now
            new = [s for s in new if not any(s is d for d in fan.post.dead)]
        new = drop_unused_local_imports(body, new)
        return Written(new, module, ["DispatchPolicy", "fan_out_sync" if fan.sync else "fan_out"])

    def _entries(self, partition: Partition) -> tuple[str, str]:
        """The call of a generator function holding the owner's loops, yielding what each
        step needs, and its definition."""
        name = self.fresh("_entries")
        body, indent = "", "    "
        for loop in partition.loops:
            body += f"{indent}{loop}\n"
            indent += "    "
        element = self.code(self.fan.target).strip()  # what each entry is: `handler, value`
        return f"{name}()", f"def {name}():\n{body}{indent}yield {element}\n"

    def _params(self, call: str) -> tuple[str, list[str]]:
        """The step's parameters and, for a tuple target, the unpacking its body starts with."""
        target = self.fan.target
        if isinstance(target, cst.Name):
            return f"{target.value}, {call}", []
        entry = self.fresh("_entry")
        return f"{entry}, {call}", [f"{self.code(target).strip()} = {entry}\n"]

    def _loop_step(self, call: str) -> tuple[str, list[cst.BaseStatement]]:
        fan = self.fan
        body = fan.step_body
        if isinstance(fan.target, cst.Name) and len(body) == 1 and \
                isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 and \
                isinstance(body[0].body[0], cst.Expr) and not body[0].leading_lines and \
                isinstance(body[0].body[0].value, cst.Call if fan.sync else cst.Await):
            value = body[0].body[0].value
            called = value if isinstance(value, cst.Call) else value.expression
            return f"lambda {fan.target.value}, {call}: {self.code(called).strip()}", []
        name = self.fresh("_step")
        params, unpack = self._params(call)
        source = self._def(f"{'def' if fan.sync else 'async def'} {name}({params}):", unpack, body)
        return name, [self.stmt(source)]

    def _rewritten_def(self, old: cst.FunctionDef, call: str) -> cst.FunctionDef:
        last = old.params.params[-1]
        if isinstance(last.comma, cst.Comma):  # one parameter a line: `call` takes the last line
            moved = last.with_changes(comma=cst.Comma(whitespace_before=last.comma.whitespace_before,
                                                      whitespace_after=old.whitespace_before_params))
            added = cst.Param(cst.Name(call), comma=last.comma)
        else:
            moved, added = last, cst.Param(cst.Name(call))
        params = old.params.with_changes(params=[*old.params.params[:-1], moved, added])
        body = self.fan.step_body
        block = old.body.with_changes(body=body) if isinstance(old.body, cst.IndentedBlock) \
            else old.body
        return old.with_changes(params=params, body=block)

    def _hook(self) -> tuple[str | None, list[cst.BaseStatement]]:
        failure = self.fan.failure
        if not failure.has_hook:
            return None, []
        name = self.fresh("_failed")
        target = self.fan.target
        exc = failure.exc or self.fresh("_error")
        if isinstance(target, cst.Name):
            params, unpack = f"{target.value}, {exc}", []
        else:
            entry = self.fresh("_entry")
            params, unpack = f"{entry}, {exc}", [f"{self.code(target).strip()} = {entry}\n"]
        prefix = "async def" if has_await(failure.hook) else "def"
        # a bare `raise` of the clause re-raised what it caught: in the hook, outside any except
        # clause, it names it (the kernel runs the hook inside its own; linters flag it bare)
        hook = [cast(cst.BaseStatement, s.visit(_NamedRaise(exc))) for s in failure.hook]
        source = self._def(f"{prefix} {name}({params}) -> None:", unpack, hook)
        return name, [self.stmt(source)]

    def _def(self, header: str, unpack: list[str], body: list[cst.BaseStatement]) -> str:
        lines = [*unpack, *(self.code(s) for s in body)] or ["pass\n"]
        text = "".join(_dedent_statement(line) for line in lines)
        return f"{header}\n{textwrap.indent(text, '    ')}"


def _callee(source: str) -> str:
    """``lambda errors: raise_group(errors)`` -> ``raise_group``: a lambda that only hands its
    one argument to a function is that function; anything else as it is."""
    found = re.fullmatch(r"lambda (\w+): ([A-Za-z_][\w.]*)\(\1\)", source.strip())
    return found.group(2) if found else source


class _NamedRaise(cst.CSTTransformer):
    """``raise`` -> ``raise <name>``, except inside a nested except clause (where it re-raises
    that clause's exception) or a nested function or class."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name, self.inside = name, 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.ExceptHandler, cst.ExceptStarHandler)):
            self.inside += 1
        return super().on_visit(node)

    def on_leave(self, original_node: CSTNodeT, updated_node: CSTNodeT
                 ) -> CSTNodeT | cst.RemovalSentinel | cst.FlattenSentinel[CSTNodeT]:
        if isinstance(original_node, (cst.ExceptHandler, cst.ExceptStarHandler)):
            self.inside -= 1
        return super().on_leave(original_node, updated_node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def leave_Raise(self, original_node: cst.Raise, updated_node: cst.Raise) -> cst.Raise:
        if updated_node.exc is not None or self.inside:
            return updated_node
        return updated_node.with_changes(exc=cst.Name(self.name),
                                         whitespace_after_raise=cst.SimpleWhitespace(" "))


class _Comments(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found.append(node.value)


def _comments(nodes: list[cst.BaseStatement]) -> list[str]:
    visitor = _Comments()
    for node in nodes:
        node.visit(visitor)
    return visitor.found


# what a comment says to a tool about the line it is on, meaningless once the line is gone
_PRAGMA = re.compile(r"^(?:noqa\b(?::\s*[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)?|type:\s*ignore\b"
                     r"(?:\[[^\]]*\])?|pragma:\s*no\s*(?:cover|branch)\b|nosec\b)[\s:;,#—–-]*")


def _lost_comments(old: list[cst.BaseStatement], new: list[cst.BaseStatement]) -> list[str]:
    """The comments of *old* that *new* does not hold, in order, without what they said to a
    tool about their line (``noqa``, ``type: ignore``, ``pragma``); planeshift's own notes
    (held for the line below them, gone) are not carried."""
    left = _comments(new)
    lost: list[str] = []
    for comment in _comments(old):
        if comment in left:
            left.remove(comment)
            continue
        text = comment.lstrip("#").strip()
        while (match := _PRAGMA.match(text)) and match.end():
            text = text[match.end():]
        if text and not text.lower().startswith("planeshift:"):
            lost.append(f"# {text}")
    return lost


def _with_comments(stmt: cst.BaseStatement, comments: list[str]) -> cst.BaseStatement:
    if not comments:
        return stmt
    lines = [cst.EmptyLine(comment=cst.Comment(c)) for c in comments]
    return stmt.with_changes(leading_lines=[*getattr(stmt, "leading_lines", ()), *lines])


def _argument_lines(source: str, column: int, line_length: int) -> str:
    """One argument of the fan-out call (its line starts at *column*) as ruff lays it out: on
    its line, or, when that line is too long and the argument ends in a call (``group=lambda
    errors: Group(msg, errors)``), that call's arguments one a line with a magic trailing
    comma."""
    one = f"    {source},\n"
    if column + len(source) + 1 <= line_length or "\n" in source:
        return one
    head = re.match(r"(?:[A-Za-z_]\w*=)?(?:lambda[^:]*:\s*)?", source)
    rest = source[head.end():] if head else source
    try:
        call = ast.parse(rest, mode="eval").body
    except SyntaxError:
        return one
    if not isinstance(call, ast.Call) or not (call.args or call.keywords):
        return one
    parts = [ast.get_source_segment(rest, a) for a in [*call.args, *call.keywords]]
    callee = ast.get_source_segment(rest, call.func)
    if callee is None or None in parts:
        return one
    joined = f"{callee}({', '.join(p for p in parts if p)})"
    if ast.dump(ast.parse(joined, mode="eval").body) != ast.dump(call):
        return one
    inner = "".join(f"        {part},\n" for part in parts)
    return f"    {source[: len(source) - len(rest)]}{callee}(\n{inner}    ),\n"


def _one_line(source: str) -> str:
    """An argument's source on one line, when joining its lines keeps the same expression."""
    if "\n" not in source:
        return source
    keyword = re.match(r"([A-Za-z_]\w*)=(?!=)", source)
    if keyword:
        return f"{keyword.group(1)}={_one_line(source[keyword.end():])}"
    joined = " ".join(line.strip() for line in source.splitlines())
    joined = joined.replace("( ", "(").replace(", )", ")").replace(",)", ")")
    try:
        same = ast.dump(ast.parse(joined, mode="eval")) == ast.dump(ast.parse(source, mode="eval"))
    except SyntaxError:
        return source
    return joined if same else source


def _dedent_statement(text: str) -> str:
    """A statement rendered on its own starts at column 0 with its own leading lines."""
    return text if text.endswith("\n") else text + "\n"


def step_names(fan: FanOut) -> set[str]:
    """Names the step and hook read or bind (so the names the writer adds avoid them)."""
    reads, binds = reads_and_binds([*fan.step_body, *fan.failure.hook])
    return reads | binds | target_names(fan.target)
