"""The validating reader: the YAML tree of a rule pack -> frozen pack objects, or a PackError
naming the file and the key.

A registration form's kind (``method``, ``keyword``, ``append``, ...) and the options it takes
belong to the analyzer's registration shapes; the reader knows them only as :class:`FormKind`
values the analyzer provides (``planeshift.analyzer.shapes`` calls :func:`provide_form_kinds`
when it is imported), so the pack model never imports the analyzer.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol

from ..types import PLANES
from .migrate_reader import read_mechanism_migrate, read_pack_migrate
from .model import (
    HANDLER_EFFECTS,
    POLICY_AXES,
    PROFILE_NAMES,
    WHEN_KEYS,
    ArgSpec,
    CharacterizeHints,
    ClassifyRule,
    ConfigSource,
    EmissionForm,
    Mechanism,
    Pack,
    RegistrationForm,
    TerminalFacts,
)
from .values import ValueReader

# every option any registration form takes (each shape says which of them it accepts)
FORM_OPTIONS = ("callable", "point", "handler", "receiver", "fixed_point", "many", "owner", "item",
                "keyed", "prefix", "spec", "firstresult", "plugins", "adds_specs", "conditions",
                "distinctive", "decorates")

# a pack's own keys
PACK_KEYS = ("pack", "package", "context", "description", "mechanisms", "not_registrations",
             "mutators", "migrate")


class FormKind(Protocol):
    """What the reader needs of a registration form kind: its pack key, the options it takes,
    whether it is reached through a dispatcher, and how it reads its own fields."""

    kind: ClassVar[str]
    options: ClassVar[tuple[str, ...]]
    needs_dispatcher: ClassVar[bool]

    def read(self, reader: ValueReader, data: dict[str, Any], key: str,
             dispatchers: tuple[str, ...]) -> dict[str, Any]: ...


_providers: list[Callable[[], Sequence[FormKind]]] = []


def provide_form_kinds(provider: Callable[[], Sequence[FormKind]]) -> None:
    """Give the reader the registration form kinds (called by ``planeshift.analyzer.shapes``;
    *provider* is called when a pack is first read, so the shapes may load lazily)."""
    if provider not in _providers:
        _providers.append(provider)


def form_kinds() -> dict[str, FormKind]:
    kinds = {k.kind: k for provider in _providers for k in provider()}
    if not kinds:
        raise RuntimeError("no registration form kinds: import planeshift.analyzer.shapes "
                           "before reading a pack")
    return kinds


class PackReader(ValueReader):
    """Validating conversion from the YAML tree to frozen pack objects."""

    def __init__(self, label: str) -> None:
        super().__init__(label)
        self.kinds = form_kinds()
        self.migrate = read_pack_migrate(self, None)

    def pack(self, data: Any) -> Pack:
        data = self.mapping(data, "<top>", PACK_KEYS)
        context = self.flag(data.get("context", True), "context")
        name = self.string(data.get("pack"), "pack")
        self.migrate = read_pack_migrate(self, data.get("migrate"))
        raw = data.get("mechanisms")
        if not isinstance(raw, list) or not raw:
            raise self.fail("mechanisms", "expected a non-empty list of mechanisms")
        mechanisms = tuple(self.mechanism(m, f"mechanisms[{i}]", name) for i, m in enumerate(raw))
        ids = [m.id for m in mechanisms]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise self.fail("mechanisms", f"duplicate mechanism id {dupes[0]!r}")
        return Pack(
            name=name,
            path=self.label,
            mechanisms=mechanisms,
            description=str(data.get("description") or "").strip(),
            not_registrations=self.strings(data.get("not_registrations"), "not_registrations"),
            mutators=self.method_names(data.get("mutators"), "mutators"),
            package=self.package(data.get("package")),
            context=context,
            migrate=self.migrate,
        )

    def package(self, value: Any) -> str:
        """An importable package name (``lionagi``), or "" when the pack names none."""
        if value is None:
            return ""
        name = self.string(value, "package")
        if not all(part.isidentifier() for part in name.split(".")):
            raise self.fail("package", f"{name!r} is not an importable package name")
        return name

    def mechanism(self, data: Any, key: str, pack: str) -> Mechanism:
        allowed = (
            "id", "title", "description", "dispatcher", "aliases", "factories", "instances",
            "discard_gate", "weak_receivers", "points", "point_types",
            "dormant_points", "config", "denials", "terminal", "characterize",
            "register", "emit", "policy", "profile", "classify", "migrate",
        )
        data = self.mapping(data, key, allowed)
        mid = self.string(data.get("id"), f"{key}.id")
        dispatchers = self.strings(data.get("dispatcher"), f"{key}.dispatcher")
        registrations = data.get("register") or []
        if not isinstance(registrations, list):
            raise self.fail(f"{key}.register", "expected a list of registration forms")
        if not registrations and not data.get("emit") and not data.get("config"):
            raise self.fail(f"{key}.register", "a mechanism needs registration, emission or config forms")
        needing = [k.kind for k in self.kinds.values() if k.needs_dispatcher]
        if not dispatchers and any(
            isinstance(r, dict) and any(kind in r for kind in needing) for r in registrations
        ):
            raise self.fail(f"{key}.dispatcher", f"{'/'.join(needing)} forms need a dispatcher")
        policy, evidence, entries = read_policy(self, data.get("policy"), f"{key}.policy")
        classify = data.get("classify")
        if not isinstance(classify, list) or not classify:
            raise self.fail(f"{key}.classify", "expected a non-empty list of rules")
        rules = tuple(self.rule(r, f"{key}.classify[{i}]", mid) for i, r in enumerate(classify))
        if rules[-1].when:
            raise self.fail(f"{key}.classify", "the last rule must have no `when` (the default)")
        return Mechanism(
            id=mid,
            title=str(data.get("title") or mid),
            description=str(data.get("description") or "").strip(),
            dispatchers=dispatchers,
            aliases=self.strings(data.get("aliases"), f"{key}.aliases"),
            factories=self.strings(data.get("factories"), f"{key}.factories"),
            instances=self.strings(data.get("instances"), f"{key}.instances"),
            discard_gate=self.flag(data.get("discard_gate", True), f"{key}.discard_gate"),
            weak_receivers=self.weak(data.get("weak_receivers", False), f"{key}.weak_receivers"),
            points=self.strings(data.get("points"), f"{key}.points"),
            point_types=self.strings(data.get("point_types"), f"{key}.point_types"),
            dormant_points=self.strings(data.get("dormant_points"), f"{key}.dormant_points"),
            denials=self.strings(data.get("denials"), f"{key}.denials"),
            terminal=self.terminal(data.get("terminal"), f"{key}.terminal"),
            characterize=self.characterize(data.get("characterize"), f"{key}.characterize"),
            registrations=tuple(
                self.registration(
                    r, f"{key}.register[{i}]",
                    dispatchers + self.strings(data.get("aliases"), f"{key}.aliases"),
                )
                for i, r in enumerate(registrations)
            ),
            emissions=tuple(
                self.emission(e, f"{key}.emit[{i}]") for i, e in enumerate(data.get("emit") or [])
            ),
            policy=policy,
            policy_evidence=evidence,
            entry_policies=entries,
            profile=self.profile(data.get("profile"), f"{key}.profile"),
            classify=rules,
            pack=pack,
            config=tuple(
                self.config(c, f"{key}.config[{i}]") for i, c in enumerate(data.get("config") or [])
            ),
            migrate=(read_mechanism_migrate(self, data["migrate"], f"{key}.migrate", self.migrate)
                     if "migrate" in data else None),
        )

    def terminal(self, data: Any, key: str) -> TerminalFacts | None:
        if data is None:
            return None
        data = self.mapping(data, key, ("source", "envelope", "identity"))
        facts = TerminalFacts(**{name: self.strings(data.get(name), f"{key}.{name}")
                                 for name in ("source", "envelope", "identity")})
        if not facts.source and not facts.envelope:
            raise self.fail(key, "give `source` (the owner's emitting functions) or `envelope`")
        return facts

    def characterize(self, data: Any, key: str) -> CharacterizeHints | None:
        if data is None:
            return None
        data = self.mapping(data, key, ("point", "construct", "skip"))
        point = data.get("point")
        if point is not None and not (isinstance(point, str) and point.isidentifier()):
            raise self.fail(f"{key}.point", "expected the name of a member of the points enum")
        construct = data.get("construct") or {}
        if not isinstance(construct, dict):
            raise self.fail(f"{key}.construct", "expected a mapping of parameter to literal")
        values: list[tuple[str, str]] = []
        for name, value in construct.items():
            where = f"{key}.construct.{name}"
            if not str(name).isidentifier():
                raise self.fail(where, "expected a constructor parameter name")
            source = value if isinstance(value, str) else repr(value)
            try:
                ast.literal_eval(source)
            except (ValueError, SyntaxError):
                raise self.fail(where, f"{source!r} is not a Python literal "
                                "(quote a string: \"'text'\")") from None
            values.append((str(name), source))
        skip = data.get("skip")
        return CharacterizeHints(
            point=point,
            construct=tuple(values),
            skip=self.string(skip, f"{key}.skip") if skip is not None else None,
        )

    def config(self, data: Any, key: str) -> ConfigSource:
        data = self.mapping(data, key, ("files", "key"))
        files = self.strings(data.get("files"), f"{key}.files")
        if not files:
            raise self.fail(f"{key}.files", "expected at least one file pattern")
        return ConfigSource(files=files, key=self.string(data.get("key"), f"{key}.key"))

    def argspec(self, value: Any, key: str) -> ArgSpec | None:
        if value is None:
            return None
        if isinstance(value, bool):
            raise self.fail(key, "expected a position, a keyword name or a mapping")
        if isinstance(value, int):
            return ArgSpec(index=value)
        if isinstance(value, str):
            return ArgSpec(keyword=self.string(value, key))
        data = self.mapping(value, key, ("arg", "keyword", "rest", "min_args", "receiver"))
        if data.get("receiver") is not None:
            if data["receiver"] is not True or len(data) > 1 or not key.endswith(".point"):
                raise self.fail(key, "`receiver: true` stands alone, and only for a point: the "
                                     "dispatcher instance is the point (`post_save.connect(f)`)")
            return ArgSpec(receiver=True)
        index = data.get("arg")
        if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
            raise self.fail(f"{key}.arg", "expected an integer position")
        keyword = data.get("keyword")
        rest = bool(data.get("rest", False))
        if index is None and keyword is None and not rest:
            raise self.fail(key, "give `arg`, `keyword` or `rest: true`")
        return ArgSpec(
            index=index,
            keyword=self.string(keyword, f"{key}.keyword") if keyword is not None else None,
            rest=rest,
            min_args=int(data.get("min_args", 0)),
        )

    def registration(self, data: Any, key: str, dispatchers: tuple[str, ...]) -> RegistrationForm:
        kinds = tuple(self.kinds)
        data = self.mapping(data, key, (*kinds, *FORM_OPTIONS))
        given = [k for k in kinds if k in data]
        if len(given) != 1:
            raise self.fail(key, f"give exactly one of: {', '.join(kinds)}")
        shape = self.kinds[given[0]]
        for option in data:
            if option != shape.kind and option not in shape.options:
                raise self.fail(f"{key}.{option}", f"a {shape.kind} form takes no {option!r} "
                                f"(it takes: {', '.join(shape.options) or 'nothing else'})")
        fields: dict[str, Any] = {
            "kind": shape.kind,
            "name": self.string(data[shape.kind], f"{key}.{shape.kind}"),
            "callables": self.strings(data.get("callable"), f"{key}.callable"),
            "point": self.argspec(data.get("point"), f"{key}.point"),
            "handler": self.argspec(data.get("handler"), f"{key}.handler"),
            "receiver": self.argspec(data.get("receiver"), f"{key}.receiver"),
            "fixed_point": data.get("fixed_point"),
            "many": bool(data.get("many", False)),
            "keyed": bool(data.get("keyed", False)),
            "owner": self.strings(data.get("owner"), f"{key}.owner"),
            "conditions": self.strings(data.get("conditions"), f"{key}.conditions"),
        }
        fields.update(shape.read(self, data, key, dispatchers))
        return RegistrationForm(**fields)

    def emission(self, data: Any, key: str) -> EmissionForm:
        data = self.mapping(data, key, ("method", "function", "relay", "point", "prefix"))
        kinds = [k for k in ("method", "function", "relay") if k in data]
        if len(kinds) != 1:
            raise self.fail(key, "give exactly one of: method, function, relay")
        kind = kinds[0]
        name = self.string(data[kind], f"{key}.{kind}")
        if kind == "relay" and not name.isidentifier():
            raise self.fail(f"{key}.relay", "expected the name of the attribute holding the hooks")
        prefix = data.get("prefix")
        if prefix is not None and (kind != "relay" or not isinstance(prefix, str)
                                   or not prefix.isidentifier()):
            raise self.fail(f"{key}.prefix", "a relay's prefix: the start of a hook's name")
        return EmissionForm(kind=kind, name=name,
                            point=self.argspec(data.get("point"), f"{key}.point"),
                            prefix=prefix or "")

    def profile(self, data: Any, key: str) -> tuple[tuple[str, str], ...]:
        """``profile: name`` (every dispatch path) or ``profile: {entry method: name}``."""
        if data is None:
            return ()
        if isinstance(data, str):
            pairs = [("*", data)]
        elif isinstance(data, dict):
            pairs = [(str(entry), name) for entry, name in data.items()]
        else:
            raise self.fail(key, "expected a profile name or a mapping of entry method to "
                                 "profile name")
        out = []
        for entry, name in pairs:
            where = key if entry == "*" else f"{key}.{entry}"
            name = self.string(name, where)
            if name not in PROFILE_NAMES:
                raise self.fail(where, f"{name!r} is not one of {', '.join(PROFILE_NAMES)}")
            out.append((str(entry), name))
        return tuple(out)

    def rule(self, data: Any, key: str, mechanism: str) -> ClassifyRule:
        data = self.mapping(data, key, ("id", "when", "plane", "because", "confidence"))
        plane = self.string(data.get("plane"), f"{key}.plane")
        if plane not in PLANES:
            raise self.fail(f"{key}.plane", f"{plane!r} is not one of {', '.join(PLANES)}")
        because = self.string(data.get("because"), f"{key}.because")
        when: list[tuple[str, Any]] = []
        if data.get("when") is not None:
            cond = self.mapping(data["when"], f"{key}.when", WHEN_KEYS)
            for name in WHEN_KEYS:
                if name not in cond:
                    continue
                value = cond[name]
                if name == "handler_effect":
                    effects = self.strings(value, f"{key}.when.{name}")
                    wrong = [e for e in effects if e not in HANDLER_EFFECTS]
                    if wrong or not effects:
                        raise self.fail(f"{key}.when.{name}",
                                        f"expected some of {', '.join(HANDLER_EFFECTS)}")
                    when.append((name, effects))
                elif name.startswith("handler_"):
                    when.append((name, self.flag(value, f"{key}.when.{name}")))
                else:
                    when.append((name, self.strings(value, f"{key}.when.{name}")))
        confidence = str(data.get("confidence", "high"))
        if confidence not in ("high", "medium", "low"):
            raise self.fail(f"{key}.confidence", "expected high, medium or low")
        index = key.rsplit("[", 1)[-1].rstrip("]")
        return ClassifyRule(
            id=str(data.get("id") or f"{mechanism}.{index}"),
            plane=plane,
            because=because,
            when=tuple(when),
            confidence=confidence,
        )


Axes = tuple[tuple[str, str], ...]


def read_policy(reader: ValueReader, data: Any, key: str
                ) -> tuple[Axes, str, tuple[tuple[str, Axes], ...]]:
    """A mechanism's ``policy``: its axes, their evidence, and ``entries``: an emitting method
    whose own loop differs (Django's ``send_robust``), with the axes it overrides."""
    if data is None:
        return (), "", ()
    data = reader.mapping(data, key, (*POLICY_AXES, "evidence", "entries"))
    entries = data.get("entries") or {}
    if not isinstance(entries, dict):
        raise reader.fail(f"{key}.entries", "expected a mapping of method name to axes")
    overrides = []
    for method, axes in entries.items():
        if not (isinstance(method, str) and method.isidentifier()):
            raise reader.fail(f"{key}.entries", f"expected a method name, got {method!r}")
        where = f"{key}.entries.{method}"
        overrides.append((method, _axes(reader, reader.mapping(axes, where, tuple(POLICY_AXES)),
                                        where)))
    return _axes(reader, data, key), str(data.get("evidence") or "").strip(), tuple(overrides)


def _axes(reader: ValueReader, data: dict[str, Any], key: str) -> Axes:
    out: list[tuple[str, str]] = []
    for axis, choices in POLICY_AXES.items():
        if axis in data:
            value = reader.string(data[axis], f"{key}.{axis}")
            if value not in choices:
                raise reader.fail(f"{key}.{axis}", f"{value!r} is not one of {', '.join(choices)}")
            out.append((axis, value))
    return tuple(out)
