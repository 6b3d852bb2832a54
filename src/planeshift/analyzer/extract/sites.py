"""Candidate registration and emission sites, found during the ``ast`` pass.

A site is syntactic: a call, a decorator or an attribute assignment that mentions a word of the
packs' vocabulary. The linker decides what each one is. Positions follow LibCST's convention
(1-based lines, 0-based columns counted in characters, not UTF-8 bytes), so a codemod that
re-parses the file with LibCST lands on the same place.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .facts import Arg, Site, Span
from .refs import from_ast

LIST_METHODS = frozenset({"append", "extend", "insert"})


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """The names a site must mention to be worth recording, compiled from the rule packs."""

    calls: frozenset[str] = frozenset()  # method / function / class / decorator last names
    keywords: frozenset[str] = frozenset()  # constructor keyword names
    list_attrs: frozenset[str] = frozenset()  # callback lists: <attr>.append(handler)
    assign_attrs: frozenset[str] = frozenset()  # setters: <obj>.<attr> = handler
    config_keys: frozenset[str] = frozenset()  # settings files: dotted paths to hook event maps
    item_attrs: frozenset[str] = frozenset()  # mappings of handlers: <obj>.<attr>[key] = handler
    decorators: frozenset[str] = frozenset()  # forms used as decorators: `receiver(...)(fn)` too
    # the packs' methods that change what they are called on (read in every file's bodies, not
    # only in files the prefilter admits)
    mutators: frozenset[str] = frozenset()

    def fingerprint(self) -> str:
        """A stable text for cache keys (frozenset order varies between processes)."""
        parts = (self.calls, self.keywords, self.list_attrs, self.assign_attrs, self.config_keys,
                 self.item_attrs, self.decorators, self.mutators)
        return "|".join(",".join(sorted(p)) for p in parts)


class Positions:
    """A file's text by ast position: character columns and exact segments."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = text.isascii()  # (most files) a byte column is a character column
        self._lines: list[bytes] | None = None

    @property
    def lines(self) -> list[bytes]:
        """The text's lines as UTF-8 bytes (split when a segment or a column first needs them)."""
        if self._lines is None:
            self._lines = self.text.encode("utf-8").splitlines(keepends=True)
        return self._lines

    def col(self, line: int, byte_col: int) -> int:
        if self.ascii:
            return byte_col
        raw = self.lines[line - 1] if 0 < line <= len(self.lines) else b""
        return len(raw[:byte_col].decode("utf-8", "replace")) if not raw.isascii() else byte_col

    def segment(self, node: ast.AST) -> str:
        start, end = node.lineno, node.end_lineno or node.lineno
        if start == end:
            raw = self.lines[start - 1][node.col_offset : node.end_col_offset]
        else:
            parts = [self.lines[start - 1][node.col_offset :]]
            parts += self.lines[start : end - 1]
            parts.append(self.lines[end - 1][: node.end_col_offset])
            raw = b"".join(parts)
        text = raw.decode("utf-8", "replace").strip()
        return " ".join(text.split()) if "\n" in text else text

    def span(self, node: ast.AST, start: ast.AST | None = None) -> Span:
        """(line, col, end line, end col) of *node*, in characters; from *start* when given."""
        first = start if start is not None else node
        end_line = node.end_lineno or node.lineno
        if self.ascii:  # (most files) byte columns are character columns
            return (first.lineno, first.col_offset, end_line, node.end_col_offset or 0)
        return (first.lineno, self.col(first.lineno, first.col_offset), end_line,
                self.col(end_line, node.end_col_offset or 0))

    def decorator_col(self, node: ast.expr) -> int:
        """Column of the ``@`` before a decorator expression."""
        raw = self.lines[node.lineno - 1][: node.col_offset]
        at = raw.rfind(b"@")
        return self.col(node.lineno, at if at >= 0 else node.col_offset)


def last_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def list_name(node: ast.expr) -> str | None:
    """The attribute a list is reached through: ``x.cbs``, or a bucket of a mapping of lists
    (``x.hooks.setdefault(key, [])``, ``x.hooks[key]``)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
            node.func.attr == "setdefault"):
        node = node.func.value
    elif isinstance(node, ast.Subscript):
        node = node.value
    return last_name(node) if isinstance(node, ast.Attribute) else None


def _args(call: ast.Call, src: Positions) -> tuple[Arg, ...]:
    out = [
        Arg(None, from_ast(a.value), src.segment(a.value), "*", src.span(a))
        if isinstance(a, ast.Starred)
        else Arg(None, from_ast(a), src.segment(a), "", src.span(a), _entries(a, src))
        for a in call.args
    ]
    out += [
        Arg(k.arg, from_ast(k.value), src.segment(k.value), "" if k.arg else "**", src.span(k),
            _entries(k.value, src))
        for k in call.keywords
    ]
    return tuple(out)


def _entries(node: ast.expr, src: Positions) -> tuple[Span, ...]:
    """Each entry of a dict literal, from its key (or ``**``) to its value."""
    if not isinstance(node, ast.Dict):
        return ()
    return tuple(src.span(value, key) if key is not None else src.span(value)
                 for key, value in zip(node.keys, node.values))


def call_site(
    node: ast.Call, scope: str, vocab: Vocabulary, src: Positions, aliases: frozenset[str] | set[str] = frozenset()
) -> Site | None:
    name = last_name(node.func)
    if name == "getattr" and isinstance(node.func, ast.Call) and len(node.func.args) >= 2:
        attr = node.func.args[1]  # getattr(bus, "on")(point, handler)
        if isinstance(attr, ast.Constant) and isinstance(attr.value, str):
            name = attr.value
    wanted = (
        name in vocab.calls
        or (isinstance(node.func, ast.Name) and name in aliases)
        or any(k.arg in vocab.keywords for k in node.keywords if k.arg)
    )
    if not wanted and name in LIST_METHODS and isinstance(node.func, ast.Attribute):
        wanted = list_name(node.func.value) in vocab.list_attrs
    if not wanted:
        return None
    line, col, end_line, end_col = src.span(node)
    return Site(
        kind="call",
        line=line,
        col=col,
        scope=scope,
        func=from_ast(node.func),
        args=_args(node, src),
        text=src.segment(node.func),
        end_line=end_line,
        end_col=end_col,
    )


def applied_decorator_site(
    node: ast.Call, scope: str, vocab: Vocabulary, src: Positions, owner: str | None = None,
) -> Site | None:
    """``sig.connect_via(app)(on_loaded)``, ``receiver(post_save)(on_save)``: a decorator applied
    by a call to a function it names, read as ``@sig.connect_via(app)`` on that function; in a
    method of class *owner*, also to one of its methods (``connect_via(app)(self.on_ready)``)."""
    inner = node.func
    if not (inner.__class__ is ast.Call and len(node.args) == 1 and not node.keywords):
        return None
    arg = node.args[0]
    if arg.__class__ is ast.Name:
        decorated = arg.id  # type: ignore[attr-defined]
    elif (owner and arg.__class__ is ast.Attribute
          and getattr(arg.value, "id", None) == "self"):  # type: ignore[attr-defined]
        decorated = f"{owner}.{arg.attr}"  # type: ignore[attr-defined]
    else:
        return None
    name = last_name(inner.func)  # type: ignore[attr-defined]
    if name not in vocab.decorators:  # (`validate(kind)(value)` is a call of a call)
        return None
    _, _, end_line, end_col = src.span(node)
    return Site(
        kind="decorator",
        line=inner.lineno,
        col=inner.col_offset,
        scope=scope,
        func=from_ast(inner.func),  # type: ignore[attr-defined]
        args=_args(inner, src),  # type: ignore[arg-type]
        text=src.segment(inner.func),  # type: ignore[attr-defined]
        decorated=decorated,
        has_call=True,
        end_line=end_line,
        end_col=end_col,
    )


def decorator_sites(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
    scope: str,
    decorated: str,
    vocab: Vocabulary,
    src: Positions,
    aliases: frozenset[str] | set[str] = frozenset(),
) -> list[Site]:
    out: list[Site] = []
    is_async = isinstance(node, ast.AsyncFunctionDef) if not isinstance(node, ast.ClassDef) else None
    for dec in node.decorator_list:
        if last_name(dec) not in vocab.calls and last_name(dec) not in aliases:
            continue
        is_call = isinstance(dec, ast.Call)
        target = dec.func if isinstance(dec, ast.Call) else dec
        _, _, end_line, end_col = src.span(dec)
        out.append(
            Site(
                kind="decorator",
                line=dec.lineno,
                col=src.decorator_col(dec),
                scope=scope,
                func=from_ast(target),
                args=_args(dec, src) if isinstance(dec, ast.Call) else (),
                text=src.segment(target),
                decorated=decorated,
                decorated_async=is_async,
                has_call=is_call,
                end_line=end_line,
                end_col=end_col,
            )
        )
    return out


def assign_site(
    stmt: ast.stmt, target: ast.expr, value: ast.expr, scope: str, vocab: Vocabulary, src: Positions
) -> Site | None:
    """``obj.slot = handler`` (a setter slot) or ``obj.hooks[key] = handler`` (a mapping)."""
    slot = isinstance(target, ast.Attribute) and target.attr in vocab.assign_attrs
    item = (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute)
            and target.value.attr in vocab.item_attrs)
    if not (slot or item):
        return None
    line, col, end_line, end_col = src.span(stmt)
    return Site(
        kind="assign",
        line=line,
        col=col,
        scope=scope,
        func=from_ast(target),
        args=(Arg(None, from_ast(value), src.segment(value), "", src.span(value)),),
        text=src.segment(target),
        end_line=end_line,
        end_col=end_col,
    )


def augassign_site(stmt: ast.AugAssign, scope: str, vocab: Vocabulary,
                   src: Positions) -> Site | None:
    """``obj.callbacks += [handler]``: handlers added to a callback list in place."""
    target = stmt.target
    if not (isinstance(stmt.op, ast.Add) and list_name(target) in vocab.list_attrs):
        return None
    line, col, end_line, end_col = src.span(stmt)
    return Site(
        kind="augassign",
        line=line,
        col=col,
        scope=scope,
        func=from_ast(target),
        args=(Arg(None, from_ast(stmt.value), src.segment(stmt.value), "", src.span(stmt.value)),),
        text=src.segment(target),
        end_line=end_line,
        end_col=end_col,
    )
