"""Turn one file into plain facts: decode, one ``ast`` pass for symbols, sites where the prefilter
admits the file.

This module knows nothing of other files; it is what the forked helpers (``planeshift.workers``) and the cache run.
What the hazard rules read of a file's syntax (``rule_facts``) is theirs to say: the rules sit
above the analyzer, so ``planeshift.rules.checks`` gives its reader here when it is imported
(:func:`provide_rule_facts`), before any file is extracted.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ...heap import collector_paused
from .entry_points import setup_py_entry_points
from .facts import FileFacts
from .outline import outline
from .sites import Vocabulary
from .symbols import collect_symbols

RuleFacts = Callable[[ast.Module, str], tuple[tuple[str, Any], ...]]
_rule_facts: list[RuleFacts] = []


def provide_rule_facts(reader: RuleFacts) -> None:
    """Give extraction the rules' per-file reader (``rules.checks.file_facts``)."""
    _rule_facts[:] = [reader]


def rule_facts_reader() -> RuleFacts:
    if not _rule_facts:
        raise RuntimeError("no rule facts reader: import planeshift.rules.checks before "
                           "extracting a file (its facts would be cached without them)")
    return _rule_facts[0]


@dataclass(frozen=True)
class Prefilter:
    """Whether a text could hold a site for a vocabulary: a call, import alias, decorator or
    bound-method reference of a call word (``on(``, ``on as``, ``x.on,``), a keyword
    (``hooks=``), a list, mapping or setter attribute (``.hook_handlers``).

    Every form but the attribute ones starts at a character that must precede the word (``.``,
    space, ``(``, ``@`` ...): searched forwards, that is every space of the text, and the regex
    engine tries the words at each. So those forms are searched in the text reversed, from the
    ``(``, ``=`` or ``as`` after the word, which the engine skips to at once; the text's start
    stands for a preceding newline.
    """

    forward: tuple[re.Pattern[str], ...]  # searched in the text
    backward: tuple[re.Pattern[str], ...]  # searched in the text reversed, a newline after it
    alias: re.Pattern[str] | None = None  # `<call> as ` reversed, whitespace before its match

    def admits(self, text: str) -> bool:
        for pattern in self.forward:
            if pattern.search(text) is not None:
                return True
        if not (self.backward or self.alias):
            return False
        reverse = text[::-1] + "\n"
        for pattern in self.backward:
            if pattern.search(reverse) is not None:
                return True
        if self.alias is not None:
            found = self.alias.search(reverse)
            while found is not None:
                start = found.start()
                if start and _SPACE.match(reverse, start - 1) is not None:
                    return True
                found = self.alias.search(reverse, start + 1)
        return False


_SPACE = re.compile(r"\s")


@functools.lru_cache(maxsize=8)
def prefilter_for(vocab: Vocabulary) -> Prefilter | None:
    """The :class:`Prefilter` of *vocab*; None when it has no words to look for.

    Forwards, an attribute form starts at its ``.`` and looks ahead at the characters its words
    start with, so the engine skips most positions at once.
    """

    def words(names: frozenset[str]) -> str:
        return "|".join(re.escape(w) for w in sorted(names))

    def backwards(names: frozenset[str]) -> str:
        return "|".join(re.escape(w[::-1]) for w in sorted(names))

    def firsts(chars: set[str]) -> str:
        return "" if "" in chars else "(?=[" + "".join(re.escape(c) for c in sorted(chars)) + "])"

    lead = r"(?=[.\s(=@,\[{])"  # after the word reversed: the character before it
    backward: list[re.Pattern[str]] = []
    alias = None
    dot_parts, dot_first = [], set()
    if vocab.calls:
        # a call, an import alias, a decorator, a bound-method reference (`register = bus.on`)
        backward.append(re.compile(rf"\([ \t]*(?:{backwards(vocab.calls)}){lead}"))
        alias = re.compile(rf"sa\s+(?:{backwards(vocab.calls)}){lead}")
        dot_parts.append(rf"(?:{words(vocab.calls)})[ \t]*(?:$|[,)\]#])")
        dot_first |= {w[:1] for w in vocab.calls}
    if vocab.keywords:
        backward.append(re.compile(rf"=[ \t]*(?:{backwards(vocab.keywords)}){lead}"))
    for names, tail in ((vocab.list_attrs, r"\b"), (vocab.item_attrs, r"[ \t]*\["),
                        (vocab.assign_attrs, r"[ \t]*(?::[^=\n]*)?=(?!=)")):
        if names:
            dot_parts.append(rf"[ \t]*(?:{words(names)}){tail}")
            dot_first |= {w[:1] for w in names} | {" ", "\t"}
    forward = (re.compile(rf"\.{firsts(dot_first)}(?:{'|'.join(dot_parts)})", re.MULTILINE),
               ) if dot_parts else ()
    if not (forward or backward):
        return None
    return Prefilter(forward, tuple(backward), alias)


def decode_source(data: bytes) -> str:
    """Decode Python source honouring its coding cookie and BOM; raises on bad bytes."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


def extract_source(
    data: bytes, path: str, module: str, is_package: bool, vocab: Vocabulary,
    rule_facts: tuple | None = None,
) -> FileFacts:
    """Facts for one Python file given its bytes; never raises for a bad file. *rule_facts*:
    the rules' facts of these bytes, when an extraction under another vocabulary read them."""
    with collector_paused():  # its tree and facts hold no cycles: reference counting frees them
        return _extract(data, path, module, is_package, vocab, rule_facts)


def _extract(data: bytes, path: str, module: str, is_package: bool, vocab: Vocabulary,
             rule_facts: tuple | None) -> FileFacts:
    try:
        text = decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        if data.startswith(b"\xef\xbb\xbf") and "encoding problem" in str(exc):
            exc = SyntaxError("a UTF-8 BOM, but a coding declaration of another encoding")
        return FileFacts(path=path, module=module, error=f"cannot decode: {exc}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        where = f" (line {line})" if line else ""
        return FileFacts(path=path, module=module, error=f"syntax error{where}: {exc.args[0]}")
    except (RecursionError, MemoryError):
        return FileFacts(path=path, module=module, error="cannot parse: nesting too deep")
    file_facts = rule_facts_reader()
    prefilter = prefilter_for(vocab)
    wants_sites = prefilter is not None and prefilter.admits(text)
    try:
        facts = collect_symbols(tree, path, module, is_package, vocab if wants_sites else None,
                                text, vocab.mutators)
        return replace(facts, rule_facts=file_facts(tree, text) if rule_facts is None
                       else rule_facts, entry_points=setup_py_entry_points(tree)
                       if path == "setup.py" else (), outline=outline(tree.body, text))
    except RecursionError:
        return FileFacts(path=path, module=module, error="cannot analyse: nesting too deep")
