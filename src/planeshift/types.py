"""Result types shared by the analyzer, the rules and the reports: frozen, plain, JSON-ready."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
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
    "dynamic_point", "returns_awaitable", "discard_unawaited", "forwarder_without_callers",
    "dormant_point", "shell_command_string",
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
        return out


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

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


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
    owner: str | None = None  # from [tool.planeshift] owners, else CODEOWNERS (ADR-0120 D2)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class FileError:
    file: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


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
    stats: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
