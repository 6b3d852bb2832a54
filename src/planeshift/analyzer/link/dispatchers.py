"""Dispatchers: each mechanism's dispatcher classes (subclasses found through an inheritance
graph) and its dispatch policy, read from the dispatcher's own loops and checked
against the pack's declaration."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...packs.model import Mechanism
from ..policy.policy import resolve
from .evaluate.engine import Evaluator
from .incremental import FullLink, example
from .index import DepKey, ProjectIndex
from .match.matcher import Matcher


@dataclass
class Dispatchers:
    """Each mechanism's dispatcher classes (subclasses included) and its dispatch policy, with
    what finding each read: a later scan reuses them while no edit reaches those reads."""

    classes: dict[str, list[str]]
    class_reads: frozenset[DepKey]
    policies: dict[str, dict[str, str]]
    notes: dict[str, list]  # per mechanism: its resolved policy as a plain row (policy/policy.py)
    policy_reads: frozenset[DepKey]


class DispatcherFinder:
    """Finds dispatcher classes and policies, recording what it read (a relink reuses them
    while no edit reaches those reads)."""

    def __init__(self, index: ProjectIndex, evaluator: Evaluator, matcher: Matcher,
                 mechanisms: list[Mechanism]) -> None:
        self.index, self.ev, self.matcher, self.mechanisms = index, evaluator, matcher, mechanisms

    def inheritance(self) -> dict[str, list[str]]:
        """base -> its subclasses over every project class (bases may be external names): every
        class and base is a key. A dict, not a networkx graph: importing networkx cost a cold scan
        0.1 to 0.2 s for one reachability walk."""
        subclasses: dict[str, list[str]] = {}
        for cls in self.index.classes:
            subclasses.setdefault(cls, [])
            for base in self.ev.mro(cls)[1:]:
                subclasses.setdefault(base, []).append(cls)
        return subclasses

    def dispatcher_classes(self, graph: dict[str, list[str]], mech: Mechanism) -> list[str]:
        roots = [c for c in self.matcher.dispatcher_ids(mech) if c in graph]
        found = set(roots)
        todo = list(roots)
        while todo:  # every class with a path to the dispatcher
            for sub in graph[todo.pop()]:
                if sub not in found:
                    found.add(sub)
                    todo.append(sub)
        return sorted(found)

    def is_dispatcher_class(self, cls: str, mech: Mechanism) -> bool:
        """``cls`` is in ``dispatcher_classes`` (for a class defined in the project)."""
        roots = self.matcher.dispatcher_ids(mech)
        return any(c in roots for c in self.ev.mro(cls))

    def find(self) -> Dispatchers:
        """Every mechanism's dispatcher classes and policy, from scratch."""
        deps = self.index.deps
        deps.push()
        graph = self.inheritance()
        classes = {mech.id: self.dispatcher_classes(graph, mech) for mech in self.mechanisms}
        class_reads = deps.pop()
        return Dispatchers(classes, class_reads, *self.policies(classes))

    def reuse(self, found: Dispatchers, touched: set[DepKey]) -> Dispatchers:
        """The last link's dispatcher classes and policies, while the edit leaves them as they were."""
        if found.class_reads & touched:
            raise FullLink(f"class ancestry changed ({example(found.class_reads & touched)})")
        # a class that existed before had its bases read when every class's ancestry was drawn,
        # so only a class the edit adds can be a dispatcher it was not before
        added = [key[1] for key in touched if key[0] == "bases" and key[1] in self.index.classes]
        if any(cls not in found.classes[mech.id] and self.is_dispatcher_class(cls, mech)
               for mech in self.mechanisms for cls in added):
            raise FullLink("a new class is a dispatcher")
        if found.policy_reads & touched:
            policies, notes, reads = self.policies(found.classes)
            if policies != found.policies:
                raise FullLink("a dispatch policy changed")
            found = replace(found, notes=notes, policy_reads=reads)  # (their lines may move)
        return found

    def policies(self, classes: dict[str, list[str]]):
        """Each mechanism's policy: the pack's, checked against the dispatcher's own loops."""
        deps = self.index.deps
        deps.push()
        policies: dict[str, dict[str, str]] = {}
        policy_notes: dict[str, list] = {}
        for mech in self.mechanisms:
            policies[mech.id], policy_notes[mech.id] = resolve(
                mech, classes[mech.id], self.index, self.mechanisms, self.ev.mro)
        return policies, policy_notes, deps.pop()
