"""The brackets the layout pass splits: which nodes are brackets, their elements, whether one is
flat (not split yet) or hugged (its elements on one line of their own), and the same bracket
with its elements one a line (exploded) or together on a line of their own (hugged), as Black
and ruff write them."""

from __future__ import annotations

import libcst as cst


BRACKETS = (cst.Call, cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ImportFrom)


def elements(node: cst.CSTNode) -> list[cst.CSTNode]:
    if isinstance(node, cst.Call):
        return list(node.args)
    if isinstance(node, cst.ImportFrom):
        return [] if isinstance(node.names, cst.ImportStar) else list(node.names)
    if isinstance(node, cst.Tuple) and not node.lpar:
        return []  # a bare tuple has no bracket to split at
    return list(getattr(node, "elements", ()))


def is_flat(node: cst.CSTNode) -> bool:
    """A bracket with elements, not split yet: no line break right inside it or after a comma
    of its own (a comment there is the author's layout)."""
    if not isinstance(node, BRACKETS):
        return False
    items = elements(node)
    if not items:
        return False  # (a sole generator argument is hugged, never given a trailing comma)
    opening = _opening(node)
    spaces = [opening] + [getattr(i, "comma", None) for i in items]
    return not any(isinstance(w, cst.ParenthesizedWhitespace) or (
        isinstance(w, cst.Comma) and isinstance(w.whitespace_after, cst.ParenthesizedWhitespace))
        for w in spaces)


def is_hugged(node: cst.CSTNode) -> bool:
    """A bracket whose elements (more than one) share one line of their own, as the formatter
    writes them when they fit: ``f(\\n    a, b\\n)``."""
    if not isinstance(node, BRACKETS) or isinstance(node, cst.ImportFrom):
        return False
    items = elements(node)
    if len(items) < 2:
        return False
    opening = _opening(node)
    if not isinstance(opening, cst.ParenthesizedWhitespace) or \
            opening.first_line.comment is not None or opening.empty_lines:
        return False
    commas = [getattr(i, "comma", None) for i in items[:-1]]
    return all(isinstance(c, cst.Comma) and isinstance(c.whitespace_after, cst.SimpleWhitespace)
               for c in commas)


def _opening(node: cst.CSTNode) -> cst.BaseParenthesizableWhitespace | None:
    if isinstance(node, cst.Call):
        return node.whitespace_before_args
    if isinstance(node, cst.ImportFrom):
        return node.lpar.whitespace_after if node.lpar else None
    if isinstance(node, cst.Tuple):
        return node.lpar[0].whitespace_after
    bracket = getattr(node, "lbracket", None) or getattr(node, "lbrace", None)
    return bracket.whitespace_after if bracket is not None else None


def _break(indent: str) -> cst.ParenthesizedWhitespace:
    return cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(indent))


def explode(node: cst.CSTNode, inner: str, outer: str, hug: bool = False) -> cst.CSTNode:
    """*node*'s elements one a line at *inner*, each with a comma (the trailing comma the
    formatter then keeps), its closing bracket at *outer*; with *hug*, all of them on one line
    at *inner* and no trailing comma, as the formatter writes a body that fits (or a single
    element it goes on to split inside)."""
    items = elements(node)
    out = []
    space, none = cst.SimpleWhitespace(" "), cst.SimpleWhitespace("")
    call = isinstance(node, cst.Call)
    for index, item in enumerate(items):
        last = index == len(items) - 1
        if hug:
            comma: cst.Comma | cst.MaybeSentinel = cst.MaybeSentinel.DEFAULT if last else \
                cst.Comma(whitespace_after=space)
            after = _break(outer) if last else none
        else:
            after = _break(outer if last else inner)
            comma = cst.Comma(whitespace_after=none if last and call else after)
        if call:
            changes = {"comma": comma, "whitespace_after_arg": after if last else none}
        elif last and hug and not isinstance(item, cst.ImportAlias):
            changes = {"comma": cst.Comma(whitespace_before=none, whitespace_after=after)
                       if _needs_comma(node, items) else cst.MaybeSentinel.DEFAULT}
        else:
            changes = {"comma": comma}
        if isinstance(item, cst.ImportAlias) and last:
            changes = {"comma": cst.Comma() if not hug else cst.MaybeSentinel.DEFAULT}
        out.append(item.with_changes(**changes))
    opening = _break(inner)
    if hug and not call and not isinstance(node, cst.ImportFrom) and not _needs_comma(node, items):
        node = _close_on_own_line(node, outer)
    if isinstance(node, cst.Call):
        return node.with_changes(args=out, whitespace_before_args=opening)
    if isinstance(node, cst.ImportFrom):
        return node.with_changes(names=out, lpar=cst.LeftParen(whitespace_after=opening),
                                 rpar=cst.RightParen(whitespace_before=_break(outer)))
    if isinstance(node, cst.Tuple):
        return node.with_changes(elements=out,
                                 lpar=[node.lpar[0].with_changes(whitespace_after=opening),
                                       *node.lpar[1:]])
    key = "lbracket" if hasattr(node, "lbracket") else "lbrace"
    bracket = getattr(node, key)
    return node.with_changes(elements=out, **{key: bracket.with_changes(whitespace_after=opening)})


def _needs_comma(node: cst.CSTNode, items: list[cst.CSTNode]) -> bool:
    """A one-element tuple keeps its comma."""
    return isinstance(node, cst.Tuple) and len(items) == 1


def _close_on_own_line(node: cst.CSTNode, outer: str) -> cst.CSTNode:
    """*node* with a line break before its closing bracket."""
    if isinstance(node, cst.Tuple):
        return node.with_changes(rpar=[node.rpar[0].with_changes(whitespace_before=_break(outer)),
                                       *node.rpar[1:]])
    key = "rbracket" if hasattr(node, "rbracket") else "rbrace"
    bracket = getattr(node, key)
    return node.with_changes(**{key: bracket.with_changes(whitespace_before=_break(outer))})
