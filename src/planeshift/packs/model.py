"""The rule-pack model: mechanisms and the forms that register on, emit from and classify them.

Plain frozen data, built by ``reader`` from a pack's YAML and read by the analyzer (which
matches code against the forms) and the classifier; nothing here imports yaml.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..types import InputError

POLICY_AXES: dict[str, tuple[str, ...]] = {
    "concurrency": ("sequential", "concurrent"),
    "failure": ("propagate", "collect", "isolate"),
    "completion": ("await_all", "stop_on_failure", "cancel_remaining_on_failure", "detach_bounded"),
    "error_surface": (
        "return_report", "raise_first", "raise_group", "unwrap_single_else_group", "log_only",
    ),
    "sync_handlers": ("inline", "offload"),
    "handler_classification": ("by_declaration", "by_return_value"),
    "returned_value_classifier": ("inspect_awaitable", "asyncio_coroutine_only", "not_inspected"),
    "returned_awaitable": (
        "await_in_invocation", "gather_after_invocations", "discard_unawaited", "reject",
    ),
    "sync_entry": ("unavailable", "allow", "reject_declared_async_before_owner_effect"),
    "handler_cancellation": ("propagate", "translate", "collect"),
    "predicate_failure": ("propagate", "collect_as_handler_failure", "no_match", "isolate"),
    "deadline": ("none", "shared", "per_handler"),
    "deadline_disposition": ("none", "raise", "return_report", "log_and_stop", "silent_stop"),
}


# the ADR-0120 D2 named profiles a mechanism's `profile:` may name: the reference kernels' named
# constructors, and the service HookRegistry's interceptor profile (analyzer/policy/profiles.py
# says which axis values each pins)
KERNEL_PROFILES = (
    "scheduler", "terminal_callback", "session_observer", "broadcaster",
    "message_manager_sync", "message_manager_async",
)
PROFILE_NAMES = (*KERNEL_PROFILES, "service_hook_registry")

WHEN_KEYS = (
    "point", "api", "via", "handler", "scope", "handler_async", "handler_returns_awaitable",
    "handler_effect", "flag", "condition",
)
# what a handler's body does, for `when: {handler_effect: [...]}` (read by
# analyzer/link/match/effects.py): sets an attribute or item of what it is handed; writes rows;
# sends mail, calls HTTP, queues a task or publishes; returns something other than None; raises
# an exception of its own (to abort the operation)
HANDLER_EFFECTS = ("mutates_argument", "durable_write", "delivery", "returns_value", "raises")


class PackError(InputError):
    """A malformed rule pack; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class ArgSpec:
    """Where an argument is found at a call: a position, a keyword, or the remaining positionals."""

    index: int | None = None
    keyword: str | None = None
    rest: bool = False  # all positional arguments not taken by another spec
    min_args: int = 0  # a negative index only counts when at least this many positionals exist
    receiver: bool = False  # (a point) the dispatcher instance itself: `post_save.connect(f)`


@dataclass(frozen=True, slots=True)
class RegistrationForm:
    kind: str  # a registration shape's kind (analyzer/shapes), or "config" for a settings file
    name: str  # method / attribute / keyword name, or a qualified function / decorator name
    callables: tuple[str, ...] = ()  # keyword / mapping: the callables receiving it
    point: ArgSpec | None = None
    handler: ArgSpec | None = None
    receiver: ArgSpec | None = None  # function registrations: the argument holding the dispatcher
    fixed_point: str | None = None  # a registration that implies its point (on_error= -> "ERROR")
    many: bool = False  # the handler argument may be a list of handlers
    keyed: bool = False  # append: the attribute is a mapping of lists, and a bucket's key its point
    owner: tuple[str, ...] = ()  # append / assign: the class holding the list or slot
    item: tuple[int, int] | None = None  # append: (point, handler) positions in an appended tuple
    fixed_handler: Any = None  # derived forwarders: the handler the forwarder always registers
    # derived forwarders: "file:line" of the registration it forwards to; not part of the form's
    # identity, so moving the forwarder's lines leaves it the same form
    forwards: str = field(default="", compare=False)
    default_point: str | None = None  # derived forwarders: the point when the caller omits it
    prefix: str = ""  # hookimpl: functions named so are implementations without a marker too
    spec: tuple[str, ...] = ()  # hookimpl: the spec markers (a module using one declares hooks)
    firstresult: tuple[str, ...] = ()  # hookimpl: hooks whose spec stops at the first result
    # hookimpl: the dispatcher's methods that register a plugin whole (`pm.register(module)`):
    # their calls are where the plugin's implementations are activated
    plugins: tuple[str, ...] = ()
    # hookimpl: the dispatcher's methods that add a module or class of specs whole
    # (`pm.add_hookspecs(hooks)`): its unmarked functions named with `prefix` are specs
    adds_specs: tuple[str, ...] = ()
    # keywords that narrow a registration, read into its evidence (`sender=Book`, `weak=False`)
    conditions: tuple[str, ...] = ()
    # method: a name only this library spells (blinker's `connect_via`): matched on a receiver of
    # unknown type even where the pack's package is not imported (Flask-Principal's signals)
    distinctive: bool = False
    # method: a decorator only (`@sig.connect_via(app)`): its arguments are not a handler, and a
    # call of it that decorates nothing registers nothing
    decorates: bool = False
    # derived forwarders: the handler parameter defaults to None, so a call without it is a
    # decorator (`@session.observe(NodeFailed)`): decorator sites register what they decorate
    decorates_too: bool = False

    @property
    def api_suffix(self) -> str:
        return self.name.rsplit(".", 1)[-1]


@dataclass(frozen=True, slots=True)
class EmissionForm:
    kind: str  # "method" | "function" | "relay"
    name: str
    point: ArgSpec | None = None
    # relay (`pm.hook.NAME(...)`: the attribute `name` holds the hooks, NAME is the point): the
    # start of NAME that makes such a call an emission when its owner is not known as the
    # dispatcher (pytest's `config.hook.pytest_x(...)`, `item.ihook.pytest_x(...)`)
    prefix: str = ""


@dataclass(frozen=True, slots=True)
class ConfigSource:
    """Settings files that register external hooks: ``{Event: [{matcher, hooks: [{command}]}]}``."""

    files: tuple[str, ...]  # gitignore-style patterns, relative to the scan root
    key: str  # dotted path to the event map inside the file


@dataclass(frozen=True, slots=True)
class TerminalFacts:
    """ADR-0124: where a mechanism's terminal facts may come from, and what identifies one."""

    source: tuple[str, ...] = ()  # functions of the owner's transition path: the one public source
    envelope: tuple[str, ...] = ()  # classes of the fact envelope
    identity: tuple[str, ...] = ()  # the envelope's identity fields (default: *_id, *_key)


@dataclass(frozen=True, slots=True)
class CharacterizeHints:
    """What ``planeshift characterize`` cannot read from the code: the point its tests register
    on and emit, constructor arguments (Python literals), or a reason to leave the mechanism out."""

    point: str | None = None  # a member name of the mechanism's points enum
    construct: tuple[tuple[str, str], ...] = ()  # (constructor parameter, literal source)
    skip: str | None = None


@dataclass(frozen=True, slots=True)
class ClassifyRule:
    id: str
    plane: str
    because: str
    when: tuple[tuple[str, Any], ...] = ()
    confidence: str = "high"


# `planeshift migrate`: the planes a registration can be rewritten for, and what a template may say
MIGRATE_PLANES = (
    "interceptor", "subscriber", "observing_subscriber", "commit_participant", "delivery_sink",
)
PLACEHOLDERS = ("handler", "name", "stage", "order", "policy")
DECLARATIONS = ("read", "always")  # a pack's migrate.declarations
DEFAULT_KERNEL_MODULE = "planeshift.kernels"
DEFAULT_IMPORTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("{kernel}", ("CommitParticipant", "DeliverySink", "InterceptorRegistration")),
    ("{kernel}.adapters", ("SinkRegistration", "Subscription", "as_interceptor", "as_sink",
                           "as_subscriber", "awaiting", "scheduling")),
)
# A call site hands the owner its typed registration itself: only an owner that reads
# declarations (one on the kernels, `migrate --owners`) is registered with, and its façade
# unwraps it (kernels' Declarations.accept).
DEFAULT_TEMPLATES: tuple[tuple[str, str], ...] = (
    ("interceptor", "InterceptorRegistration(name={name}, stage={stage}, handler={handler})"),
    ("subscriber", "Subscription(name={name}, policy={policy}, handler={handler})"),
    ("delivery_sink", "SinkRegistration(name={name}, port=DeliverySink, handler={handler})"),
    ("commit_participant", "SinkRegistration(name={name}, port=CommitParticipant, "
                           "handler={handler})"),
)
# With `declarations: always`, a call site keeps handing its legacy API the bare handler: the
# typed registration goes through an adapter that returns it.
ADAPTER_TEMPLATES: tuple[tuple[str, str], ...] = (
    ("interceptor", "as_interceptor(InterceptorRegistration(name={name}, stage={stage}, "
                    "handler={handler}))"),
    ("subscriber", "as_subscriber(Subscription(name={name}, policy={policy}, handler={handler}))"),
    ("delivery_sink", "as_sink(SinkRegistration(name={name}, port=DeliverySink, "
                      "handler={handler}))"),
    ("commit_participant", "as_sink(SinkRegistration(name={name}, port=CommitParticipant, "
                           "handler={handler}))"),
)


@dataclass(frozen=True, slots=True)
class PackMigrate:
    """A pack's ``migrate:`` section: the shape of each plane's rewrite and where its names come
    from (``{kernel}`` in a module stands for the kernel module, ``--kernel-module``)."""

    kernel_module: str | None = None  # the default for --kernel-module
    templates: tuple[tuple[str, str], ...] = DEFAULT_TEMPLATES  # plane -> expression template
    imports: tuple[tuple[str, tuple[str, ...]], ...] = DEFAULT_IMPORTS  # module -> names
    # "read": a call site is rewritten only for an owner that reads declarations (on the
    # kernels after `migrate --owners`); "always": every classified call site, through
    # templates that hand the legacy API the bare handler (adapters)
    declarations: str = "read"


@dataclass(frozen=True, slots=True)
class MechanismMigrate:
    """A mechanism's ``migrate:`` section; a mechanism without one is never rewritten."""

    policy: str = ""  # the named policy its subscriptions run under ({policy}); "" = its id
    stop: str | None = None  # the legacy exception a STOP decision raises (qualified name)
    deny: str | None = None  # the legacy exception a DENY decision raises
    templates: tuple[tuple[str, str], ...] = ()  # per-plane templates replacing the pack's
    convert_discard: str | None = None  # the --convert-discard template, e.g. "scheduling({handler})"


@dataclass(frozen=True, slots=True)
class Mechanism:
    id: str
    title: str
    dispatchers: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    factories: tuple[str, ...] = ()  # functions returning a dispatcher (for external dispatchers)
    points: tuple[str, ...] = ()  # qualified names of the point enum (and its aliases)
    point_types: tuple[str, ...] = ()  # type-keyed points: classes whose subclasses are points
    # dispatcher instances defined where the code may not be in view (``fnmatch`` patterns of
    # qualified names: ``django.db.models.signals.*``)
    instances: tuple[str, ...] = ()
    # ADR-0120 D2's DISCARD_UNAWAITED gate enumerates every registration on a dispatcher that
    # discards, those returning nothing too (PS101 info); false keeps only the real hazards
    discard_gate: bool = True
    # receivers held by weak reference: "all" (unless connected weak=False: Django's, blinker's
    # Signal.connect), "bound_methods" (a bound method only: lionagi's Broadcaster), "" none
    weak_receivers: str = ""
    dormant_points: tuple[str, ...] = ()
    registrations: tuple[RegistrationForm, ...] = ()
    emissions: tuple[EmissionForm, ...] = ()
    policy: tuple[tuple[str, str], ...] = ()
    policy_evidence: str = ""
    # (emitting method, the axes its own loop declares otherwise): Django's send_robust
    entry_policies: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    profile: tuple[tuple[str, str], ...] = ()  # (entry method or "*", ADR-0120 D2 profile name)
    classify: tuple[ClassifyRule, ...] = ()
    pack: str = ""
    description: str = ""
    config: tuple[ConfigSource, ...] = ()
    # exceptions a handler raises to deny or stop (beside PermissionError), for PS105
    denials: tuple[str, ...] = ()
    terminal: TerminalFacts | None = None  # for PS110 / PS111
    migrate: MechanismMigrate | None = None
    characterize: CharacterizeHints | None = None  # for `planeshift characterize`

    @property
    def policy_map(self) -> dict[str, str]:
        return dict(self.policy)

    def policy_for(self, method: str) -> dict[str, str]:
        """The axes the pack declares for one emitting method: the policy, with the method's
        own (``policy.entries``) over it."""
        return {**self.policy_map, **dict(dict(self.entry_policies).get(method, ()))}


@dataclass(frozen=True, slots=True)
class Pack:
    name: str
    path: str
    mechanisms: tuple[Mechanism, ...]
    description: str = ""
    not_registrations: tuple[str, ...] = field(default=())  # qualified names never to report
    # the library's methods that change the object they are called on (pytest's
    # `config.addinivalue_line(...)`): a handler calling one on what it is handed changes it
    mutators: tuple[str, ...] = field(default=())
    package: str = ""  # the import package whose mechanisms the pack describes (its context)
    # its source is looked for in the app's environment (false: read only when given with
    # --context: a large library whose own instances the pack names)
    context: bool = True
    migrate: PackMigrate = field(default_factory=PackMigrate)

