"""Result types shared by the analyzer, the rules and the reports: frozen, plain, JSON-ready."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Any


class InputError(ValueError):
    """A mistake in a file the user wrote (configuration, rule pack): the message names the file
    and the key, so it can be fixed without reading a traceback."""

    def __init__(self, path: str, key: str, message: str) -> None:
        super().__init__(f"{path}: {key}: {message}")
        self.path, self.key, self.detail = path, key, message

PLANES = (  # ADR-0120 D1 planes a registration is classified into, in the ADR's order
    "interceptor",
    "subscriber",
    "observing_subscriber",
    "commit_participant",
    "delivery_sink",
    "needs_review",
)


# The flags a registration may carry, in the order a report lists them: how the link resolved
# it, then the hazards the rules found (each hazard flag is its rule's `kind`). A flag not named
# here (a new rule's) follows them, by name.
FLAG_ORDER = (
    "dynamic_receiver", "unresolved_receiver", "receiver_unknown", "handler_not_given",
    "dynamic_point", "unknown_point", "pass_through", "returns_awaitable", "discard_unawaited",
    "forwarder_without_callers", "dormant_point", "shell_command_string",
)
_FLAG_RANK = {flag: rank for rank, flag in enumerate(FLAG_ORDER)}


def ordered_flags(flags: Iterable[str]) -> tuple[str, ...]:
    """Each flag once, in report order."""
    return tuple(sorted(set(flags), key=lambda f: (_FLAG_RANK.get(f, len(FLAG_ORDER)), f)))


@dataclass(frozen=True, slots=True)
class Handler:
    expr: str
    qualname: str | None = None
    declared_async: bool | None = None
    returns_awaitable: bool | None = None  # can a call return an awaitable although declared sync?
    kind: str = "unknown"  # function | method | lambda | partial | class | instance | external |
    #                        several | unknown
    candidates: tuple[str, ...] = ()  # kind "several": every callable the expression may be
    may_be_none: bool = False  # the expression itself may be None (`h if c else None`, a call of
    #                            a function returning None on a path): not callable on every run
    by_name: bool = False  # `x.meth` on an untyped `x`: the only function of that name in view
    # what its body does (analyzer/link/match/effects.py): None when its body is not in view;
    # shown in a registration's evidence by the classify rule that reads it
    effects: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "expr": self.expr,
            "qualname": self.qualname,
            "declared_async": self.declared_async,
            "returns_awaitable": self.returns_awaitable,
            "kind": self.kind,
        }
        if self.candidates:
            out["candidates"] = list(self.candidates)
        if self.may_be_none:
            out["may_be_none"] = True
        if self.by_name:
            out["by_name"] = True
        return out


@dataclass(frozen=True, slots=True)
class Activation:
    """A call of the helper a registration sits in: where the registration happens at run time."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    scope: str  # the calling function's qualified name ("" at module level)
    helper: str  # the helper (or wrapper of it) this call runs
    resolved: bool = True  # False: the receiver has no type; matched by the method's name alone

    def to_json(self) -> dict[str, Any]:
        return _scalars(self)


@dataclass(frozen=True, slots=True)
class Registration:
    file: str
    line: int
    col: int
    mechanism: str
    api: str
    point: str | None
    handler: Handler
    plane: str
    confidence: str
    evidence: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    via: str = "method"  # the registration form: method, function, decorator, keyword, ...
    scope: str = ""  # enclosing function qualname
    rule: str = ""  # the classification rule that decided the plane
    end_line: int = 0  # where the registering node ends (with line, col: its exact span)
    end_col: int = 0
    activations: tuple[Activation, ...] = ()  # calls of the helper this registration is made in

    @property
    def sort_key(self) -> tuple:
        return (self.file, self.line, self.col, self.mechanism, self.handler.expr)

    @property
    def key(self) -> tuple:
        """What makes a registration one: its site, mechanism, handler and point."""
        return (self.file, self.line, self.col, self.mechanism, self.handler.expr, self.point)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "end_line": self.end_line,
            "end_col": self.end_col,
            "mechanism": self.mechanism,
            "api": self.api,
            "point": self.point,
            "handler": self.handler.to_json(),
            "plane": self.plane,
            "confidence": self.confidence,
            "evidence": list(self.evidence),
            "flags": list(self.flags),
            "via": self.via,
            "scope": self.scope,
            "rule": self.rule,
            "activations": [a.to_json() for a in self.activations],
        }


@dataclass(frozen=True, slots=True)
class Emission:
    file: str
    line: int
    col: int
    mechanism: str
    api: str
    point: str | None
    scope: str = ""
    end_line: int = 0
    end_col: int = 0
    dropped: bool = False  # the call is a statement of its own: what the handlers return is lost

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "col": self.col,
                "end_line": self.end_line, "end_col": self.end_col, "mechanism": self.mechanism,
                "api": self.api, "point": self.point, "scope": self.scope}


@dataclass(frozen=True, slots=True)
class AxisEvidence:
    """A line that decided a policy axis (file and line are None for a pack's declaration)."""

    file: str | None
    line: int | None
    seen: str

    def to_json(self) -> dict[str, Any]:
        return _scalars(self)


@dataclass(frozen=True, slots=True)
class PolicyAxis:
    """One ADR-0120 D2 axis of a dispatch policy and where its value comes from."""

    axis: str
    value: str  # "unknown" when neither the code nor the pack decides it
    provenance: str  # "inferred" (read from the code) | "declared" (by the pack) | "unknown"
    evidence: tuple[AxisEvidence, ...] = ()
    declared: str | None = None  # the pack's value, when it declares one

    def to_json(self) -> dict[str, Any]:
        return {"axis": self.axis, "value": self.value, "provenance": self.provenance,
                "evidence": [e.to_json() for e in self.evidence], "declared": self.declared}


@dataclass(frozen=True, slots=True)
class ProfileDifference:
    axis: str
    profile: str  # the named profile's pinned value
    code: str  # the value the dispatcher shows
    provenance: str  # of the dispatcher's value: inferred or declared
    evidence: tuple[AxisEvidence, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"axis": self.axis, "profile": self.profile, "code": self.code,
                "provenance": self.provenance, "evidence": [e.to_json() for e in self.evidence]}


@dataclass(frozen=True, slots=True)
class ProfileMatch:
    """The ADR-0120 D2 named profile a dispatch path is held to, and where it differs."""

    name: str
    matched: str  # "declared" (the pack names it) | "nearest" (fewest differences)
    compared: int = 0  # axes compared
    differences: tuple[ProfileDifference, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "matched": self.matched, "compared": self.compared,
                "differences": [d.to_json() for d in self.differences]}


@dataclass(frozen=True, slots=True)
class DispatchPath:
    """One way a mechanism fires its handlers (an emission method and the helpers it calls)."""

    entry: str  # qualname inside its module: "MessageManager.add_message"
    file: str
    line: int
    axes: tuple[PolicyAxis, ...] = ()
    profile: ProfileMatch | None = None
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"entry": self.entry, "file": self.file, "line": self.line,
                "policy": {a.axis: a.value for a in self.axes if a.provenance != "unknown"},
                "axes": [a.to_json() for a in self.axes],
                "profile": None if self.profile is None else self.profile.to_json(),
                "notes": list(self.notes)}


@dataclass(frozen=True, slots=True)
class MechanismPolicy:
    """A mechanism's resolved dispatch policy, as the link keeps it for the summary."""

    evidence: tuple[str, ...] = ()  # readable lines: the declaration, each path, disagreements
    axes: tuple[PolicyAxis, ...] = ()
    paths: tuple[DispatchPath, ...] = ()
    profile: ProfileMatch | None = None


@dataclass(frozen=True, slots=True)
class MechanismSummary:
    id: str
    title: str
    dispatcher: tuple[str, ...]
    registration_apis: tuple[str, ...]
    emission_apis: tuple[str, ...]
    registrations: int
    planes: tuple[tuple[str, int], ...] = ()
    policy: tuple[tuple[str, str], ...] = ()
    policy_evidence: tuple[str, ...] = ()
    pack: str = ""
    dormant_points: tuple[str, ...] = ()
    emitted_points: tuple[str, ...] = ()
    policy_axes: tuple[PolicyAxis, ...] = ()  # every axis of `policy`, with its provenance
    dispatch_paths: tuple[DispatchPath, ...] = ()
    profile: ProfileMatch | None = None  # of the first dispatch path (or the pack's declaration)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "dispatcher": list(self.dispatcher),
            "registration_apis": list(self.registration_apis),
            "emission_apis": list(self.emission_apis),
            "registrations": self.registrations,
            "planes": dict(self.planes),
            "policy": dict(self.policy),
            "policy_evidence": list(self.policy_evidence),
            "pack": self.pack,
            "dormant_points": list(self.dormant_points),
            "emitted_points": list(self.emitted_points),
            "policy_axes": [a.to_json() for a in self.policy_axes],
            "dispatch_paths": [p.to_json() for p in self.dispatch_paths],
            "profile": None if self.profile is None else self.profile.to_json(),
        }


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str  # the rule code, e.g. PS101
    kind: str  # the stable kind name, e.g. discard_unawaited
    file: str
    line: int
    col: int
    severity: str  # error | warning | info
    message: str
    mechanism: str = ""
    end_line: int | None = None  # the span of the node found, when it has one
    end_col: int | None = None
    owner: str | None = None  # from [tool.planeshift] owners, else CODEOWNERS (ADR-0120 D2)
    # the other files of the tree whose content decided it (the handler's definition, the
    # dispatcher's loop and policy, the helper's callers): lint judges it when one changes
    evidence_files: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "kind": self.kind, "file": self.file, "line": self.line,
                "col": self.col, "end_line": self.end_line, "end_col": self.end_col,
                "severity": self.severity, "message": self.message, "mechanism": self.mechanism,
                "owner": self.owner}


@dataclass(frozen=True, slots=True)
class FileError:
    file: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return _scalars(self)


@dataclass(frozen=True, slots=True)
class ContextUse:
    """The source of a pack's package, read to link the project and never reported; or, with
    no root, the package found nowhere, so its mechanisms were judged from the pack alone."""

    package: str
    root: str | None  # the package folder read
    version: str | None  # from its dist-info, when one is beside it
    origin: str  # "--context / config", "sys.path", "$VIRTUAL_ENV", ".venv", "venv", "not found"
    files: int  # the files read
    mechanisms: tuple[str, ...]  # the pack's mechanisms it serves

    def to_json(self) -> dict[str, Any]:
        return {"package": self.package, "root": self.root, "version": self.version,
                "origin": self.origin, "files": self.files, "mechanisms": list(self.mechanisms)}


@dataclass(frozen=True, slots=True)
class ScanResult:
    root: str
    registrations: tuple[Registration, ...]
    emissions: tuple[Emission, ...]
    mechanisms: tuple[MechanismSummary, ...]
    findings: tuple[Finding, ...] = ()
    errors: tuple[FileError, ...] = ()
    files_scanned: int = 0
    files_with_sites: int = 0  # files the vocabulary prefilter admitted to site collection
    packs: tuple[str, ...] = ()
    context: tuple[ContextUse, ...] = ()  # library source read beside the tree
    # registrations made inside a context library that the tree's own calls activate, each with
    # only those calls, its file relative to the folder holding the package ("lionagi/...")
    library: tuple[Registration, ...] = ()
    stats: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def library_activations(self) -> int:
        """The tree's calls activating a library's registration (``summary.library_activations``)."""
        return sum(len(r.activations) for r in self.library)


@dataclass(frozen=True, slots=True)
class Suppression:
    """One ``# planeshift: ignore[CODES] reason`` comment (read by ``lint.comments``, judged by
    the suppression rules, ``rules/suppressions/``)."""

    file: str
    line: int  # where the comment is (1-based)
    col: int  # 0-based
    codes: tuple[str, ...]
    reason: str
    covers: tuple[int, ...]  # the lines whose findings it suppresses
    problem: str = ""  # why it suppresses nothing; "" when it is well formed
    used: tuple[str, ...] = ()  # the codes that matched a finding (filled in by the lint run)


def _scalars(obj: Any) -> dict[str, Any]:
    """``dataclasses.asdict`` of a dataclass whose fields all hold strings, numbers, booleans or
    None (asdict deep-copies each value: the same values, at ten times the cost)."""
    return {f.name: getattr(obj, f.name) for f in fields(obj)}
