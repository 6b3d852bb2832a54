"""The declarations a generated test needs, read again from the dispatcher's own files.

The scan reports policies and dispatch paths; building a dispatcher also needs its classes, their
bases, constructor and method parameters, and the members of a points enum. Those are the
symbol facts the extractor already produces per file (``analyzer/extract``): this module reads
the few files it needs, on demand, and resolves names across them. Nothing is imported or run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..analyzer.discover import SourceFile
from ..analyzer.extract.facts import Class, FileFacts, Function
from ..analyzer.extract.file import extract_source
from ..analyzer.extract.refs import Ref
from ..analyzer.extract.sites import Vocabulary

MAX_BASES = 8


@dataclass(frozen=True, slots=True)
class Found:
    """A class of the tree: its module, its facts and the file they come from."""

    module: str
    cls: Class
    facts: FileFacts

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.cls.qualname}"

    def methods(self) -> dict[str, Function]:
        prefix = f"{self.cls.qualname}."
        return {f.name: f for f in self.facts.functions
                if f.qualname.startswith(prefix) and "." not in f.qualname[len(prefix):]}


class Sources:
    """Symbol facts of the tree's files, read once each, and names resolved across them."""

    def __init__(self, files: list[SourceFile], vocab: Vocabulary) -> None:
        self.by_rel = {f.rel: f for f in files if f.path.suffix == ".py"}
        self.by_module = {f.module: f for f in self.by_rel.values() if f.module}
        self.vocab = vocab
        self._facts: dict[str, FileFacts | None] = {}

    def facts(self, rel: str) -> FileFacts | None:
        """The file's facts; None when it is not in the tree or cannot be parsed."""
        if rel not in self._facts:
            source = self.by_rel.get(rel)
            self._facts[rel] = None if source is None else self._read(source)
        return self._facts[rel]

    def _read(self, source: SourceFile) -> FileFacts | None:
        try:
            data = Path(source.path).read_bytes()
        except OSError:
            return None
        facts = extract_source(data, source.rel, source.module, source.is_package, self.vocab)
        return None if facts.error else facts

    def module(self, name: str) -> FileFacts | None:
        source = self.by_module.get(name)
        return None if source is None else self.facts(source.rel)

    def find_class(self, qualname: str) -> Found | None:
        """The class a dotted name designates (``pkg.mod.Class``, or re-exported elsewhere)."""
        parts = qualname.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            facts = self.module(".".join(parts[:cut]))
            if facts is None:
                continue
            inner = ".".join(parts[cut:])
            for cls in facts.classes:
                if cls.qualname == inner:
                    return Found(facts.module, cls, facts)
            target = self.resolve(facts, ("name", parts[cut])) if cut + 1 == len(parts) else None
            if target and target != qualname:
                return self.find_class(target)
            return None
        return None

    def resolve(self, facts: FileFacts, ref: Ref | None) -> str | None:
        """The qualified name a ``name`` / ``attr`` ref of *facts*' module level designates."""
        if ref is None:
            return None
        if ref[0] == "attr":
            base = self.resolve(facts, ref[1])
            return f"{base}.{ref[2]}" if base else None
        if ref[0] != "name":
            return None
        for name, value in reversed(facts.bindings):
            if name != ref[1]:
                continue
            if value[0] == "class":
                return f"{facts.module}.{value[1]}"
            if value[0] == "import":
                return value[1]
            return None
        return None

    def mro(self, found: Found) -> list[Found]:
        """The class and its bases found in the tree, depth first (enough for single
        inheritance and simple mixins); a base outside the tree ends its branch."""
        out: list[Found] = []
        todo = [found]
        while todo and len(out) < MAX_BASES:
            current = todo.pop(0)
            if any(f.qualname == current.qualname for f in out):
                continue
            out.append(current)
            for base in current.cls.bases:
                name = self.resolve(current.facts, base)
                parent = self.find_class(name) if name else None
                if parent is not None:
                    todo.append(parent)
        return out

    def outside_bases(self, found: Found) -> list[str]:
        """Bases of the class (or its in-tree bases) that are not classes of the tree."""
        out: list[str] = []
        for current in self.mro(found):
            for base in current.cls.bases:
                name = self.resolve(current.facts, base) or _text(base)
                if self.find_class(name) is None and name not in ("object", "builtins.object"):
                    out.append(name)
        return out

    def method(self, found: Found, name: str) -> tuple[Found, Function] | None:
        """The method *name* the class defines or inherits from a base in the tree."""
        for current in self.mro(found):
            func = current.methods().get(name)
            if func is not None:
                return current, func
        return None


def _text(ref: Ref) -> str:
    if ref[0] == "name":
        return str(ref[1])
    if ref[0] == "attr":
        return f"{_text(ref[1])}.{ref[2]}"
    if ref[0] == "sub":
        return _text(ref[1])
    return "?"
