"""Django signals and blinker, with the built-in packs and no library source in view (as an app
scanned without its venv): the signal instance is the point, registration is by call or by
decorator, and the plane comes from what the receiver's body does."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from planeshift.api import scan
from planeshift.config import Config
from planeshift.types import ScanResult

from .helpers import one, regs, show, write_tree


def scan_app(tmp_path: Path, files: dict[str, str]) -> ScanResult:
    write_tree(tmp_path, files)
    return scan(Config(root=tmp_path, packs=(), builtin_packs=("django", "blinker", "celery"),
                       use_cache=False, jobs=1, use_context=False))


def planes(result: ScanResult, rel: str) -> dict[tuple[str | None, str], str]:
    """(point, handler) -> plane of each registration in *rel*."""
    return {(r.point, r.handler.expr): r.plane for r in regs(result, file=rel)}


DJANGO_RECEIVERS = """
from django.core.cache import cache
from django.core.mail import send_mail
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver
from django.utils.text import slugify

from .models import Book, BookHistory


@receiver(pre_save, sender=Book)
def fill_slug(sender, instance, **kwargs):
    if not instance.slug:
        instance.slug = slugify(instance.title)


@receiver(post_save, sender=Book)
def write_history(sender, instance, created, **kwargs):
    record(instance, "+" if created else "~")


def record(instance, kind):
    BookHistory.objects.create(book=instance, kind=kind)


@receiver(post_save, sender=Book)
def tell_the_author(sender, instance, created, **kwargs):
    if created:
        send_mail("Published", instance.title, "noreply@example.com", [instance.author_email])


@receiver([post_save, post_delete], sender=Book)
def forget_cached_list(sender, **kwargs):
    cache.delete("book-list")
"""

MODELS = """
from django.db import models


class Book(models.Model):
    title = models.CharField(max_length=100)
    slug = models.SlugField()


class BookHistory(models.Model):
    kind = models.CharField(max_length=1)
"""


def test_django_receivers_are_found_by_decorator_with_the_signal_as_point(tmp_path: Path) -> None:
    result = scan_app(tmp_path, {"shop/__init__.py": "", "shop/models.py": MODELS,
                                 "shop/receivers.py": DJANGO_RECEIVERS})
    found = regs(result, file="shop/receivers.py")
    assert {r.mechanism for r in found} == {"django_signals"}, show(result)
    assert sorted((r.line, r.point) for r in found) == [
        (10, "pre_save"), (16, "post_save"), (25, "post_save"), (31, "post_delete"),
        (31, "post_save")], show(result)


def test_a_django_receiver_s_plane_comes_from_what_its_body_does(tmp_path: Path) -> None:
    result = scan_app(tmp_path, {"shop/__init__.py": "", "shop/models.py": MODELS,
                                 "shop/receivers.py": DJANGO_RECEIVERS})
    assert planes(result, "shop/receivers.py") == {
        ("pre_save", "fill_slug"): "interceptor",  # sets a field before the write
        ("post_save", "write_history"): "commit_participant",  # writes rows, through a helper
        ("post_save", "tell_the_author"): "delivery_sink",  # sends mail
        ("post_save", "forget_cached_list"): "subscriber",  # a cache's delete is not a write
        ("post_delete", "forget_cached_list"): "subscriber",
    }, show(result)
    slug = next(r for r in regs(result, file="shop/receivers.py") if r.point == "pre_save")
    assert "handler_effect mutates_argument" in slug.evidence[0]


def test_connect_and_send_on_a_project_signal_and_on_django_s_own(tmp_path: Path) -> None:
    signals = """
    import django.dispatch

    order_paid = django.dispatch.Signal()
    """
    app = """
    from django.contrib.auth.signals import user_logged_in
    from django.db.models import signals

    from shop.signals import order_paid


    def log_login(sender, request, user, **kwargs):
        print(user)


    def mark_shipped(sender, order, **kwargs):
        order.status = "shipped"


    user_logged_in.connect(log_login, dispatch_uid="log_login")
    signals.post_migrate.connect(log_login)
    order_paid.connect(mark_shipped)


    def pay(order):
        order_paid.send(sender=None, order=order)
    """
    result = scan_app(tmp_path, {"shop/__init__.py": "", "shop/signals.py": signals,
                                 "shop/app.py": app})
    assert planes(result, "shop/app.py") == {
        ("user_logged_in", "log_login"): "subscriber",
        ("post_migrate", "log_login"): "subscriber",
        # a change after the point (not a `pre_*` signal) shapes nothing that is still to come
        ("order_paid", "mark_shipped"): "subscriber",
    }, show(result)
    assert [(e.point, e.api) for e in result.emissions] == [("order_paid", "send")]


def test_a_receiver_whose_body_is_not_in_view_needs_review(tmp_path: Path) -> None:
    app = """
    from django.db.models.signals import pre_save
    from thirdparty.handlers import stamp

    pre_save.connect(stamp)
    """
    result = scan_app(tmp_path, {"app.py": app})
    (reg,) = regs(result, file="app.py")
    assert reg.plane == "needs_review", show(result)
    assert reg.evidence[0].startswith("rule django_signals.shapes-the-operation -> interceptor "
                                      "cannot be decided: handler_effect unknown"), reg.evidence


BLINKER_APP = """
from blinker import Namespace, signal
from flask import template_rendered

ns = Namespace()
saved = ns.signal("saved")
started = signal("started")


def add_footer(sender, context, **extra):
    context["footer"] = "(c) example"


@started.connect
def announce(sender):
    print("started", sender)


@saved.connect_via("api")
def push(sender, **extra):
    requests.post("https://example.com/hook", json=extra)


signal("stopped").connect(announce)
template_rendered.connect(add_footer)


def run(app):
    started.send(app)
"""


def test_blinker_signals_named_anonymous_and_flask_s(tmp_path: Path) -> None:
    result = scan_app(tmp_path, {"app.py": "import requests\n" + BLINKER_APP})
    assert planes(result, "app.py") == {
        ("started", "announce"): "subscriber",
        ("saved", "push"): "delivery_sink",
        ("stopped", "announce"): "subscriber",
        ("template_rendered", "add_footer"): "interceptor",
    }, show(result)
    assert {r.mechanism for r in regs(result, file="app.py")} == {"blinker_signals"}
    assert [(e.point, e.api) for e in result.emissions] == [("started", "send")]


def test_celery_signals_as_a_django_app_connects_them(tmp_path: Path) -> None:
    result = scan_app(tmp_path, {"shop/__init__.py": "", "shop/celery_hooks.py": """
        import requests
        from celery.signals import before_task_publish, task_failure, task_prerun

        from shop.models import TaskRun


        @before_task_publish.connect
        def add_tenant(sender=None, headers=None, **kwargs):
            headers["tenant"] = "eu"


        @task_prerun.connect(sender="shop.tasks.charge")
        def record_start(sender=None, task_id=None, **kwargs):
            TaskRun.objects.create(task_id=task_id)


        def alert(sender=None, exception=None, **kwargs):
            requests.post("https://alerts.example", json={"error": str(exception)})


        task_failure.connect(alert, weak=False)
        """})
    assert planes(result, "shop/celery_hooks.py") == {
        ("before_task_publish", "add_tenant"): "interceptor",
        ("task_prerun", "record_start"): "commit_participant",
        ("task_failure", "alert"): "delivery_sink",
    }, show(result)
    assert {r.mechanism for r in result.registrations} == {"celery_signals"}
    start = next(r for r in result.registrations if r.point == "task_prerun")
    assert any("sender='shop.tasks.charge'" in e or 'sender="shop.tasks.charge"' in e
               for e in start.evidence), start.evidence


def test_a_send_bound_to_a_name_first_is_an_emission(tmp_path: Path) -> None:
    """Celery's hot path: ``send_prerun = signals.task_prerun.send`` ... ``send_prerun(...)``."""
    result = scan_app(tmp_path, {"app.py": """
        from django.dispatch import Signal

        order_paid = Signal()
        send_paid = order_paid.send


        def pay(order):
            send_paid(sender=None, order=order)


        def refund(order):
            notify = order_paid.send_robust
            return notify(sender=None, order=order)


        def relay(send_paid, order):  # a parameter shadowing the bound send: not an emission
            send_paid(order)
        """})
    assert sorted((e.line, e.point, e.api) for e in result.emissions) == [
        (8, "order_paid", "send"), (13, "order_paid", "send_robust")], result.emissions


def test_flask_extension_signals_with_the_extension_s_code_not_in_view(tmp_path: Path) -> None:
    """Flask-Principal's and Flask-Login's signals, in a Flask app that never imports blinker:
    named by the pack, or spelled with a method only blinker has (`connect_via`)."""
    result = scan_app(tmp_path, {"app.py": """
        from flask import Flask
        from flask_login import user_logged_in
        from flask_mailing import email_dispatched
        from flask_principal import RoleNeed, identity_loaded

        app = Flask(__name__)


        @identity_loaded.connect_via(app)
        def on_identity_loaded(sender, identity):
            identity.provides.add(RoleNeed("admin"))


        def remember(sender, user, **extra):
            print(user)


        user_logged_in.connect(remember)


        @email_dispatched.connect_via(app)
        def log_mail(sender, message):
            print(message.subject)
        """})
    assert planes(result, "app.py") == {
        ("identity_loaded", "on_identity_loaded"): "interceptor",
        ("user_logged_in", "remember"): "subscriber",
        ("email_dispatched", "log_mail"): "subscriber",
    }, show(result)
    via = next(r for r in result.registrations if r.point == "email_dispatched")
    assert any("spelled by blinker_signals alone" in e for e in via.evidence), via.evidence


def test_a_decorator_applied_by_a_call_registers_the_function_it_names(tmp_path: Path) -> None:
    """Flask-Security's `identity_loaded.connect_via(app)(_on_identity_loaded)` inside a method:
    the handler is the module's function, not connect_via's argument (the sender)."""
    result = scan_app(tmp_path, {"app.py": """
        from blinker import Namespace
        from django.db.models.signals import post_save
        from django.dispatch import receiver

        loaded = Namespace().signal("loaded")


        def on_loaded(sender, identity):
            identity.name = "x"


        def on_save(sender, instance, **kwargs):
            print(instance)


        class Security:
            def init_app(self, app):
                loaded.connect_via(app)(on_loaded)
                receiver(post_save, sender=app)(on_save)
                loaded.connect_via(app)(self.on_ready)

            def on_ready(self, sender, **kw):
                sender.security = self
        """})
    assert planes(result, "app.py") == {("loaded", "on_loaded"): "interceptor",
                                        ("post_save", "on_save"): "subscriber",
                                        ("loaded", "on_ready"): "interceptor"}, show(result)


def test_a_validator_in_another_module_still_stops_the_save(tmp_path: Path) -> None:
    """A raise in a function the receiver calls, wherever it lives, is the receiver's decision;
    a raise in a method of an object it calls into (another module's class) is that object's
    guard; handing a parameter to `atexit.register` changes nothing."""
    result = scan_app(tmp_path, {"shop/__init__.py": "", "shop/validators.py": """
        class ValidationError(Exception):
            pass


        def check_order(order):
            if order.total < 0:
                raise ValidationError("negative total")


        class Registry:
            def add(self, name):
                if name in self.names:
                    raise KeyError(name)
        """, "shop/receivers.py": """
        import atexit

        from django.db.models.signals import post_save, pre_save
        from django.dispatch import receiver

        from shop.validators import Registry, check_order

        REGISTRY = Registry()


        @receiver(pre_save)
        def validate(sender, instance, **kwargs):
            check_order(instance)


        @receiver(pre_save)
        def remember(sender, instance, **kwargs):
            REGISTRY.add(instance.name)


        @receiver(post_save)
        def report_at_exit(sender, instance, **kwargs):
            atexit.register(print, instance)
        """})
    assert planes(result, "shop/receivers.py") == {
        ("pre_save", "validate"): "interceptor",
        ("pre_save", "remember"): "subscriber",
        ("post_save", "report_at_exit"): "subscriber",
    }, show(result)


def test_connect_via_alone_registers_nothing_and_a_local_handler_is_the_local(
        tmp_path: Path) -> None:
    result = scan_app(tmp_path, {"app.py": """
        from blinker import Namespace

        loaded = Namespace().signal("loaded")


        def on_loaded(sender, **kw):
            pass


        def setup(app):
            decorate = loaded.connect_via(app)

            def on_loaded(sender, **kw):
                sender.ready = True

            loaded.connect_via(app)(on_loaded)
            return decorate
        """})
    found = [(r.line, r.handler.qualname, r.plane) for r in result.registrations]
    assert found == [(16, "app.setup.on_loaded", "interceptor")], show(result)


def test_a_connect_on_something_else_is_not_a_signal(tmp_path: Path) -> None:
    app = """
    import sqlite3

    from django.db import connection


    def show(value):
        print(value)


    conn = sqlite3.connect(":memory:")
    connection.connect()
    """
    result = scan_app(tmp_path, {"app.py": app})
    assert regs(result, file="app.py") == [], show(result)


def scan_plugins(tmp_path: Path, files: dict[str, str]) -> ScanResult:
    write_tree(tmp_path, files)
    return scan(Config(root=tmp_path, packs=(), builtin_packs=("pluggy",), use_cache=False,
                       jobs=1, use_context=False))



def test_a_receiver_reloading_the_instance_changes_it(tmp_path: Path) -> None:
    result = scan_app(tmp_path, {"shop/__init__.py": "", "shop/receivers.py": """
        from django.db.models.signals import pre_save
        from django.dispatch import receiver


        @receiver(pre_save)
        def reload(sender, instance, **kwargs):
            instance.refresh_from_db()  # the Django pack's mutator


        @receiver(pre_save)
        def peek(sender, instance, **kwargs):
            print(instance.pk)
        """})
    assert planes(result, "shop/receivers.py") == {
        ("pre_save", "reload"): "interceptor", ("pre_save", "peek"): "subscriber"}, show(result)

def test_rows_written_through_a_manager_a_fetched_row_or_an_alias(
        tmp_path: Path) -> None:
    """django-oscar's and django-cms's receivers: a row created through `_default_manager`,
    a row fetched by a query then deleted, a log entry written through a module-level alias of
    the manager's method; a row only read stays a read."""
    result = scan_app(tmp_path, {"shop/__init__.py": "", "shop/receivers.py": """
        from django.contrib.admin.models import LogEntry
        from django.db.models.signals import post_delete, post_save
        from django.dispatch import Signal, receiver

        from .models import Condition, Offer, UserSearch

        user_search = Signal()
        create_log_entry = LogEntry.objects.log_action


        @receiver(user_search)
        def remember(sender, query, user, **kwargs):
            UserSearch._default_manager.create(user=user, query=query)


        @receiver(post_delete, sender=Offer)
        def drop_unused(instance, **kwargs):
            condition = Condition.objects.get(id=instance.condition_id)
            if not condition.offers.exists():
                condition.delete()


        @receiver(post_save, sender=Offer)
        def log_it(sender, instance, **kwargs):
            create_log_entry(user_id=1, object_id=instance.pk)


        @receiver(post_save, sender=Offer)
        def peek(sender, instance, **kwargs):
            found = Offer.objects.get(pk=instance.pk)
            print(found.name)
        """})
    assert planes(result, "shop/receivers.py") == {
        ("user_search", "remember"): "commit_participant",
        ("post_delete", "drop_unused"): "commit_participant",
        ("post_save", "log_it"): "commit_participant",
        ("post_save", "peek"): "subscriber"}, show(result)


PYTEST_PLUGIN = """
import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.name)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    return (yield)


def pytest_runtest_logreport(report):
    print(report.nodeid)


def pytest_report_header(config):
    return "plugin: on"


class Recorder:
    @staticmethod
    def pytest_configure(config):
        print("configured")


pytest_plugins = ["other"]
"""


def test_pytest_hooks_by_marker_and_by_name_with_their_options(tmp_path: Path) -> None:
    result = scan_plugins(tmp_path, {"myplugin/__init__.py": "",
                                     "myplugin/plugin.py": PYTEST_PLUGIN})
    found = {(r.line, r.point): (r.plane, r.flags, r.confidence)
             for r in regs(result, file="myplugin/plugin.py")}
    assert found == {
        (5, "pytest_collection_modifyitems"): ("interceptor", ("tryfirst",), "high"),
        (10, "pytest_runtest_call"): ("interceptor", ("wrapper",), "high"),
        (14, "pytest_runtest_logreport"): ("subscriber", (), "medium"),
        (18, "pytest_report_header"): ("interceptor", (), "medium"),  # its lines are printed
        (24, "pytest_configure"): ("subscriber", (), "medium"),
    }, show(result)


def test_a_value_returned_to_calls_that_all_drop_it_decides_nothing(tmp_path: Path) -> None:
    """What an implementation returns counts only where a call of its hook in view keeps the
    result; a firstresult hook's value ends the call whoever reads it."""
    result = scan_plugins(tmp_path, {"host/__init__.py": "", "host/main.py": """
        import pluggy

        spec = pluggy.HookspecMarker("host")


        class Specs:
            @spec
            def host_notify(self, x): ...

            @spec
            def host_collect(self, x): ...

            @spec(firstresult=True)
            def host_pick(self, x): ...


        def run(pm: pluggy.PluginManager) -> list:
            pm.add_hookspecs(Specs)
            pm.hook.host_notify(x=1)
            pm.hook.host_pick(x=1)
            return pm.hook.host_collect(x=1)
        """, "host/plugin.py": """
        import pluggy

        impl = pluggy.HookimplMarker("host")


        @impl
        def host_notify(x):
            return True


        @impl
        def host_collect(x):
            return [x]


        @impl
        def host_pick(x):
            return x
        """})
    found = {r.point: r for r in regs(result, file="host/plugin.py")}
    assert {p: r.plane for p, r in found.items()} == {
        "host_notify": "subscriber", "host_collect": "interceptor", "host_pick": "interceptor",
    }, show(result)
    assert "what it returns reaches no caller: every call of host_notify in view drops the " \
        "result (host/main.py:19)" in found["host_notify"].evidence


def test_an_async_implementation_is_lost_only_where_the_callers_drop_the_results(
        tmp_path: Path) -> None:
    """The hook caller hands an async implementation's coroutine back among the results: a
    caller that keeps them may await it (datasette: ``await await_me_maybe(result)``)."""
    result = scan_plugins(tmp_path, {"host/__init__.py": "", "host/main.py": """
        import pluggy

        spec = pluggy.HookspecMarker("host")


        class Specs:
            @spec
            def host_actor(self, request): ...

            @spec
            def host_started(self, app): ...


        async def run(pm: pluggy.PluginManager) -> None:
            pm.add_hookspecs(Specs)
            for result in pm.hook.host_actor(request="root"):
                print(await result)
            pm.hook.host_started(app=None)
        """, "host/plugin.py": """
        import pluggy

        impl = pluggy.HookimplMarker("host")


        @impl
        async def host_actor(request):
            return {"id": request}


        @impl
        async def host_started(app):
            print(app)
        """})
    lost = [(f.rule, f.line, f.severity) for f in result.findings if f.file == "host/plugin.py"]
    assert lost == [("PS101", 12, "error")], show(result)


def test_a_loop_over_a_literal_list_of_signals_connects_each(tmp_path: Path) -> None:
    result = scan_app(tmp_path, {"app/__init__.py": "", "app/signals.py": """
        from django.dispatch import Signal

        password_set = Signal()
        password_changed = Signal()


        def on_change(sender, **kwargs):
            pass


        def fire():
            password_set.send(sender=None)
            password_changed.send(sender=None)


        def ready():
            for sig in [password_set, password_changed]:
                sig.connect(on_change)
        """})
    assert planes(result, "app/signals.py") == {("password_set", "on_change"): "subscriber",
                                                ("password_changed", "on_change"): "subscriber"}
    assert not [f for f in result.findings if f.rule in ("PS103", "PS114")], show(result)


def test_a_receiver_raising_on_a_projects_signal_vetoes_it(tmp_path: Path) -> None:
    """`send` lets a receiver's exception through to the sender: on the project's own signal
    that stops the call; raising after Django's save cannot undo it."""
    result = scan_app(tmp_path, {"app/__init__.py": "", "app/signals.py": """
        from django.db.models.signals import post_save
        from django.dispatch import Signal, receiver

        add_email = Signal()


        class Blocked(Exception):
            pass


        @receiver(add_email)
        def only_company_mail(sender, email, **kwargs):
            if not email.endswith("@example.com"):
                raise Blocked(email)


        @receiver(post_save)
        def after(sender, instance, **kwargs):
            if instance is None:
                raise Blocked("none")


        def clean_email(email):
            add_email.send(sender=None, email=email)
        """})
    assert planes(result, "app/signals.py") == {("add_email", "only_company_mail"): "interceptor",
                                                ("post_save", "after"): "subscriber"}, show(result)


def test_a_package_registered_whole_activates_what_its_init_re_exports(
        tmp_path: Path) -> None:
    """pluggy registers what the package's namespace holds (datasette's default_permissions)."""
    result = scan_plugins(tmp_path, {
        "host/__init__.py": "",
        "host/spec.py": """
        import pluggy

        hookspec = pluggy.HookspecMarker("host")


        @hookspec
        def allowed(action): ...
        """,
        "host/defaults/__init__.py": "from .rules import allowed as allowed\n",
        "host/defaults/rules.py": """
        import pluggy

        hookimpl = pluggy.HookimplMarker("host")


        @hookimpl
        def allowed(action):
            return False
        """,
        "host/main.py": """
        import importlib

        import pluggy

        from host import spec

        pm = pluggy.PluginManager("host")
        pm.add_hookspecs(spec)
        pm.register(importlib.import_module("host.defaults"))
        """})
    reg = one(result, file="host/defaults/rules.py")
    assert [(a.file, a.line, a.helper) for a in reg.activations] == [
        ("host/main.py", 9, "host.defaults")], show(result)


def test_a_raise_stops_nothing_where_every_send_is_robust(tmp_path: Path) -> None:
    result = scan_app(tmp_path, {"app/__init__.py": "", "app/signals.py": """
        from django.dispatch import Signal, receiver

        order_paid = Signal()


        @receiver(order_paid)
        def check(sender, order, **kwargs):
            if order is None:
                raise ValueError("no order")


        def pay(order):
            for _, error in order_paid.send_robust(sender=None, order=order):
                print(error)
        """})
    [reg] = regs(result, file="app/signals.py")
    assert reg.plane == "subscriber", show(result)
    assert "what it raises stops no caller: every call of order_paid in view isolates the " \
        "receivers' failures (app/signals.py:13)" in reg.evidence


def test_a_call_drops_its_result_only_as_a_statement_of_its_own() -> None:
    import ast

    from planeshift.analyzer.extract.facts import call_rows
    from planeshift.analyzer.extract.symbols import collect_symbols

    text = textwrap.dedent("""
        async def f(pm):
            pm.hook.a()
            await pm.hook.b()
            kept = pm.hook.c()
            print(pm.hook.d())
            return pm.hook.e()
        """)
    facts = collect_symbols(ast.parse(text), "m.py", "m", False, text=text)
    dropped = {row[0][2]: row[8] for row in call_rows(facts) if row[0][0] == "attr"}
    assert dropped == {"a": True, "b": True, "c": False, "d": False, "e": False}


def test_a_method_the_pack_names_as_a_mutator_changes_what_it_is_called_on(
        tmp_path: Path) -> None:
    result = scan_plugins(tmp_path, {"myplugin/__init__.py": "", "myplugin/plugin.py": """
        def pytest_configure(config):
            config.addinivalue_line("markers", "slow: a slow test")


        def pytest_unconfigure(config):
            config.add_cleanup(print)


        def pytest_addoption(parser):
            parser.addoption("--slow", action="store_true")


        def pytest_sessionstart(session):
            session.addinivalue_line("x")  # a method of that name on anything: the pack's word
        """})
    found = {r.point: r.plane for r in regs(result, file="myplugin/plugin.py")}
    assert found == {"pytest_configure": "interceptor", "pytest_unconfigure": "interceptor",
                     "pytest_addoption": "subscriber", "pytest_sessionstart": "interceptor"
                     }, show(result)

def test_a_module_added_as_specs_declares_its_unmarked_hooks(tmp_path: Path) -> None:
    # pytest-html's shape: its own hooks, unmarked, in a module the plugin adds as specs
    result = scan_plugins(tmp_path, {"myplugin/__init__.py": "", "myplugin/hooks.py": """
        import pytest


        def pytest_report_title(report):
            \"\"\"Called before adding the title to the report\"\"\"


        @pytest.hookimpl
        def pytest_configure(config):
            print(config)
        """, "myplugin/other.py": """
        def pytest_report_title(report):
            return "other"
        """, "myplugin/plugin.py": """
        def pytest_addhooks(pluginmanager):
            from myplugin import hooks

            pluginmanager.add_hookspecs(hooks)
        """})
    found = sorted((r.file, r.point) for r in result.registrations)
    assert found == [("myplugin/hooks.py", "pytest_configure"),  # marked: an implementation
                     ("myplugin/other.py", "pytest_report_title"),  # not added as specs
                     ("myplugin/plugin.py", "pytest_addhooks")], show(result)


def test_a_module_added_as_specs_and_registered_keeps_its_implementations(
        tmp_path: Path) -> None:
    result = scan_plugins(tmp_path, {"myplugin/__init__.py": "", "myplugin/both.py": """
        def pytest_myplugin_both(config):
            print(config)
        """, "myplugin/plugin.py": """
        def pytest_addhooks(pluginmanager):
            from myplugin import both

            pluginmanager.add_hookspecs(both)
            pluginmanager.register(both)
        """})
    assert ("myplugin/both.py", "pytest_myplugin_both") in {
        (r.file, r.point) for r in result.registrations}, show(result)

def test_a_firstresult_hook_s_result_ends_the_call(tmp_path: Path) -> None:
    result = scan_plugins(tmp_path, {"myplugin/__init__.py": "", "myplugin/plugin.py": """
        import pytest


        @pytest.hookimpl(tryfirst=True)
        def pytest_runtestloop(session):
            return True


        def pytest_runtest_protocol(item, nextitem):
            print(item.nodeid)
        """})
    found = {r.point: r for r in regs(result, file="myplugin/plugin.py")}
    loop, protocol = found["pytest_runtestloop"], found["pytest_runtest_protocol"]
    assert loop.flags == ("firstresult", "tryfirst") and loop.plane == "interceptor"
    assert any("pluggy_hooks.first-result" in e for e in loop.evidence), loop.evidence
    assert any("firstresult hook" in e for e in loop.evidence), loop.evidence
    # a firstresult hook's implementation that returns nothing lets the call go on: told of it
    assert protocol.flags == ("firstresult",) and protocol.plane == "subscriber", protocol


def test_registering_on_what_it_is_handed_and_raising_of_its_own(tmp_path: Path) -> None:
    """A plugin registered on the config's plugin manager changes what the run calls next; a
    raise in the parser's own code (a guard against a repeated option) is not the hook deciding
    to stop the call, a raise in a helper of its own module is."""
    result = scan_plugins(tmp_path, {"myplugin/__init__.py": "", "myplugin/parsing.py": """
        class Parser:
            def addoption(self, name):
                if name in self.names:
                    raise ValueError(name)
                self.names.append(name)
        """, "myplugin/plugin.py": """
        from myplugin.parsing import Parser


        class Reporter:
            pass


        def pytest_addoption(parser: Parser):
            parser.addoption("--fast")


        def pytest_configure(config):
            config.pluginmanager.register(Reporter(), "reporter")


        def _check(config):
            if config.option.fast and config.option.slow:
                raise SystemExit("--fast or --slow")


        def pytest_sessionstart(session):
            _check(session.config)
        """})
    found = {r.point: r.plane for r in regs(result, file="myplugin/plugin.py")}
    assert found == {"pytest_addoption": "subscriber", "pytest_configure": "interceptor",
                     "pytest_sessionstart": "interceptor"}, show(result)



def test_a_plugin_registered_on_a_manager_the_config_holds_and_markers_added_to_items(
        tmp_path: Path) -> None:
    """pytask keeps its plugin manager in the config mapping (`config["pm"].register(...)`);
    pytest-benchmark skips items by adding a marker to each (`item.add_marker(skip)`): both
    change what the run does next."""
    result = scan_plugins(tmp_path, {"myplugin/__init__.py": "", "myplugin/plugin.py": """
        import pytest


        class Live:
            pass


        def pytest_configure(config):
            config["pm"].register(Live())


        def pytest_collection_modifyitems(config, items):
            for item in items:
                if "benchmark" not in item.fixturenames:
                    item.add_marker(pytest.mark.skip(reason="not a benchmark"))


        def pytest_report_header(config):
            print(config["pm"])
        """})
    found = {r.point: r.plane for r in regs(result, file="myplugin/plugin.py")}
    assert found == {"pytest_configure": "interceptor",
                     "pytest_collection_modifyitems": "interceptor",
                     "pytest_report_header": "subscriber"}, show(result)


def test_a_hook_declaring_options_is_told_whatever_its_body_changes(tmp_path: Path) -> None:
    """pytask extends the click group it is handed with its options, pytest-benchmark parses a
    literal default through a helper that raises on a bad one: declaring options decides nothing
    of a run (the labelled pytest, xdist and pytask trees agree, 43 of 43)."""
    result = scan_plugins(tmp_path, {"myplugin/__init__.py": "", "myplugin/plugin.py": """
        import click


        def parse_warmup(text):
            if text not in ("auto", "on", "off"):
                raise ValueError(text)
            return text == "on"


        def pytest_addoption(parser):
            parser.addoption("--warmup", default=parse_warmup("auto"))


        def pytest_extend_command_line_interface(cli):
            cli.commands["build"].params.extend([click.Option(["--capture"])])


        def pytest_configure(config):
            config.option.warmup = parse_warmup(config.option.warmup)
        """})
    found = {r.point: r.plane for r in regs(result, file="myplugin/plugin.py")}
    assert found == {"pytest_addoption": "subscriber",
                     "pytest_extend_command_line_interface": "subscriber",
                     "pytest_configure": "interceptor"}, show(result)


def test_an_implementation_under_another_name_implements_its_specname(tmp_path: Path) -> None:
    """pytest-asyncio's `@pytest.hookimpl(specname="pytest_pycollect_makeitem",
    hookwrapper=True)` on a function of its own name: the hook is the specname."""
    result = scan_plugins(tmp_path, {"myplugin/__init__.py": "", "myplugin/plugin.py": """
        import pytest


        @pytest.hookimpl(specname="pytest_pycollect_makeitem", hookwrapper=True)
        def convert_async_functions(collector, name, obj):
            outcome = yield
            outcome.force_result(outcome.get_result())
        """})
    (found,) = regs(result, file="myplugin/plugin.py")
    assert (found.point, found.plane) == ("pytest_pycollect_makeitem", "interceptor"), show(result)
    assert any("specname=" in e for e in found.evidence)


def test_a_plugin_registered_whole_activates_each_of_its_implementations(tmp_path: Path) -> None:
    result = scan_plugins(tmp_path, {"shop/__init__.py": "", "shop/markers.py": """
        import pluggy

        hookimpl = pluggy.HookimplMarker("shop")
        """, "shop/audit.py": """
        from shop.markers import hookimpl


        @hookimpl
        def shop_order_paid(order):
            print(order)
        """, "shop/mail.py": """
        from shop.markers import hookimpl


        @hookimpl
        def shop_order_paid(order):
            print(order)
        """, "shop/stock.py": """
        from shop.markers import hookimpl


        class Base:
            @hookimpl
            def shop_order_paid(self, order):
                print(order)


        class Stock(Base):
            @hookimpl(tryfirst=True)
            def shop_price(self, item):
                return 1
        """, "shop/main.py": """
        import pluggy

        from shop import audit, mail
        from shop.stock import Stock


        def manager(config):
            pm = pluggy.PluginManager("shop")
            pm.register(audit)
            pm.register(Stock(), name="stock")
            for plugin in (mail,):
                pm.register(plugin)
            registry.register(audit)  # an untyped receiver: matched by the method's name
            return pm


        class Registry:
            def register(self, thing):
                pass


        Registry().register(mail)  # another class's register: no plugin registered
        """, "shop/builtin.py": """
        import importlib
        import sys

        import pluggy

        from shop.markers import hookimpl


        @hookimpl
        def shop_price(item):
            return 2


        def manager():
            pm = pluggy.PluginManager("shop")
            pm.register(sys.modules[__name__])
            for name in ("shop.audit", "shop.mail"):
                pm.register(importlib.import_module(name))
            return pm


        DEFAULT_PLUGINS = ("shop.mail",)
        pm = pluggy.PluginManager("shop")
        for plugin in DEFAULT_PLUGINS:
            mod = importlib.import_module(plugin)
            pm.register(mod, plugin)
        """})
    activated = {(r.file, r.point): [(a.file, a.line, a.helper, a.resolved)
                                     for a in r.activations] for r in result.registrations}
    assert activated == {
        ("shop/audit.py", "shop_order_paid"): [("shop/builtin.py", 18, "shop.audit", True),
                                               ("shop/main.py", 9, "shop.audit", True),
                                               ("shop/main.py", 13, "shop.audit", False)],
        ("shop/builtin.py", "shop_price"): [("shop/builtin.py", 16, "shop.builtin", True)],
        ("shop/mail.py", "shop_order_paid"): [("shop/builtin.py", 18, "shop.mail", True),
                                              ("shop/builtin.py", 26, "shop.mail", True),
                                              ("shop/main.py", 12, "shop.mail", True)],
        ("shop/stock.py", "shop_order_paid"): [("shop/main.py", 10, "shop.stock.Base", True)],
        ("shop/stock.py", "shop_price"): [("shop/main.py", 10, "shop.stock.Stock", True)],
    }, show(result)


def test_plugin_spellings_resolve_as_python_imports_them(tmp_path: Path) -> None:
    modules = {f"shop/{m}.py": f"""
        from shop.markers import hookimpl


        @hookimpl
        def shop_{m}(order):
            print(order)
        """ for m in "abcdefg"}
    result = scan_plugins(tmp_path, {"shop/__init__.py": "", "shop/markers.py": """
        import pluggy

        hookimpl = pluggy.HookimplMarker("shop")
        """, **modules, "shop/main.py": """
        import importlib

        import pluggy

        from shop import a, b

        EXTRA = ("shop.c",)
        pm = pluggy.PluginManager("shop")
        for mod in (a, b):
            pm.register(mod)  # a name bound to an import elsewhere keeps its own values
        for name in EXTRA:
            mod = importlib.import_module(name)
            pm.register(mod)
        pm.register(__import__("shop.d"))  # the top package, shop
        pm.register(__import__("shop.e", fromlist=["x"]))  # shop.e itself
        pm.register(importlib.import_module(".f", package="shop"))
        pm.register(importlib.import_module(".g", __package__))
        """})
    activated = {r.point: sorted({a.line for a in r.activations}) for r in result.registrations}
    assert activated == {"shop_a": [10], "shop_b": [10], "shop_c": [13], "shop_d": [],
                         "shop_e": [15], "shop_f": [16], "shop_g": [17]}, show(result)


PLUGIN_PACKAGE = {"shop_extras/__init__.py": "", "shop_extras/audit.py": """
    import pluggy

    hookimpl = pluggy.HookimplMarker("shop")


    @hookimpl
    def shop_order_paid(order):
        print(order)


    class Tracker:
        @hookimpl
        def shop_refunded(self, order):
            print(order)

        class Inner:
            @hookimpl
            def shop_shipped(self, order):
                print(order)


    tracker = Tracker()
    """, "shop_extras/unlisted.py": """
    import pluggy


    @pluggy.HookimplMarker("shop")
    def shop_order_paid(order):
        print(order)
    """}


# each entry also spelled where the search for it could stop first: a script of the same name,
# the group's name in another value, extras after the target, a group in capitals
@pytest.mark.parametrize(("name", "metadata", "lines"), [
    ("pyproject.toml", """
        [project]
        name = "shop-extras"

        [project.scripts]
        audit = "shop_extras.audit:main"

        [project.entry-points."Shop.Plugins"]
        audit = "shop_extras.audit [fast]"
        tracker = "shop_extras.audit:tracker [fast, slow]"
        'inner' = "shop_extras.audit:Tracker.Inner"

        [tool.poetry.plugins."console_scripts"]
        audit = "shop_extras.audit:main"
        """, (8, 9, 10)),
    ("setup.cfg", """
        [metadata]
        name = shop-extras

        [options.entry_points]
        console_scripts =
            audit = shop_extras.audit:main
        Shop.Plugins =
            audit = shop_extras.audit [fast]

            tracker = shop_extras.audit:tracker [fast, slow]
            inner = shop_extras.audit:Tracker.Inner
        """, (8, 10, 11)),
], ids=["pyproject", "setup.cfg"])
def test_a_plugin_package_s_entry_points_activate_its_implementations(
        tmp_path: Path, name: str, metadata: str, lines: tuple[int, int, int]) -> None:
    result = scan_plugins(tmp_path, {**PLUGIN_PACKAGE, name: metadata})
    activated = {(r.file, r.point): [(a.file, a.line, a.helper) for a in r.activations]
                 for r in result.registrations}
    audit, tracker, inner = lines
    assert activated == {
        ("shop_extras/audit.py", "shop_order_paid"): [(name, audit, "shop_extras.audit")],
        ("shop_extras/audit.py", "shop_refunded"): [(name, tracker, "shop_extras.audit.Tracker")],
        ("shop_extras/audit.py", "shop_shipped"): [
            (name, inner, "shop_extras.audit.Tracker.Inner")],
        ("shop_extras/unlisted.py", "shop_order_paid"): [],
    }, show(result)
    assert result.files_scanned == 3 and not result.errors  # read and linked, not scanned


def test_the_entry_points_a_setup_py_passes_as_a_literal_activate_too(tmp_path: Path) -> None:
    result = scan_plugins(tmp_path, {**PLUGIN_PACKAGE, "setup.py": """
        from setuptools import setup

        setup(
            name="shop-extras",
            entry_points={
                "shop": ["audit = shop_extras.audit [fast]",
                         "tracker = shop_extras.audit:tracker"],
                "console_scripts": ["audit = shop_extras.audit:main"],
                "shop.more": "# old = shop_extras.unlisted\\ninner = shop_extras.audit:Tracker.Inner",
            },
        )
        """, "other/setup.py": "from setuptools import setup\nsetup(entry_points={'shop': "
             "['x = shop_extras.unlisted']})\n"})
    activated = {(r.file, r.point): [(a.file, a.line, a.helper) for a in r.activations]
                 for r in result.registrations}
    assert activated == {
        ("shop_extras/audit.py", "shop_order_paid"): [("setup.py", 6, "shop_extras.audit")],
        ("shop_extras/audit.py", "shop_refunded"): [
            ("setup.py", 7, "shop_extras.audit.Tracker")],
        ("shop_extras/audit.py", "shop_shipped"): [
            ("setup.py", 9, "shop_extras.audit.Tracker.Inner")],
        ("shop_extras/unlisted.py", "shop_order_paid"): [],  # only the root's setup.py counts
    }, show(result)

def test_metadata_that_does_not_parse_is_a_warning_and_can_be_excluded(tmp_path: Path) -> None:
    write_tree(tmp_path, {**PLUGIN_PACKAGE, "setup.cfg": "[options.entry_points\n"})
    config = Config(root=tmp_path, packs=(), builtin_packs=("pluggy",), use_cache=False, jobs=1,
                    use_context=False)
    result = scan(config)
    assert not result.errors and len(result.registrations) == 4, result.errors
    assert [w.split(": ")[:2] for w in result.stats["warnings"]] == [
        ["setup.cfg", "not read for plugin entry points"]], result.stats["warnings"]
    excluded = scan(replace(config, exclude=("setup.cfg",)))
    assert not excluded.errors and not excluded.stats["warnings"]


def test_an_edit_of_the_metadata_alone_is_seen_by_a_cached_scan(tmp_path: Path) -> None:
    write_tree(tmp_path, {**PLUGIN_PACKAGE, "pyproject.toml": """
        [project.entry-points.shop]
        audit = "shop_extras.audit"
        """})
    config = Config(root=tmp_path, packs=(), builtin_packs=("pluggy",), jobs=1,
                    use_context=False, cache_dir=tmp_path / "cache")

    def activated() -> int:
        return sum(len(r.activations) for r in scan(config).registrations)

    assert activated() == 1
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    assert activated() == 0
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "setup.cfg").write_text(
        "[options.entry_points]\nshop =\n    t = shop_extras.audit:tracker\n", encoding="utf-8")
    assert activated() == 1


def test_hooks_called_through_the_plugin_manager_s_relay_are_emissions(tmp_path: Path) -> None:
    result = scan_plugins(tmp_path, {"shop/__init__.py": "", "shop/hookspecs.py": """
        import pluggy

        hookspec = pluggy.HookspecMarker("shop")


        @hookspec
        def shop_order_paid(order):
            pass


        @hookspec(firstresult=True)
        def shop_price(item):
            pass


        def shop_refunded(order):
            pass


        @hookspec
        def shop_forgotten(order):
            pass
        """, "shop/main.py": """
        import pluggy

        from shop import hookspecs

        pm = pluggy.PluginManager("shop")
        pm.add_hookspecs(hookspecs)


        def pay(order, item):
            price = pm.hook.shop_price(item=item)
            pm.hook.shop_order_paid.call_historic(kwargs={"order": order})
            hooks = pm.hook
            hooks.shop_refunded(order=order)
            cache.hook.clear()  # not a plugin manager, not a pytest_ hook
            return price


        hookimpl = pluggy.HookimplMarker("shop")


        @hookimpl
        def shop_forgotten(order):
            print(order)


        @pluggy.HookimplMarker("shop")
        def shop_price(item):
            return 10
        """, "tests/conftest.py": """
        def pytest_collection_modifyitems(config, items):
            config.hook.pytest_deselected(items=items[:1])
            items[0].ihook.pytest_runtest_logstart(nodeid="x", location=None)
        """})
    price = next(r for r in result.registrations if r.point == "shop_price")
    assert "firstresult" in price.flags and price.plane == "interceptor", price
    assert any("its spec at shop/hookspecs.py:" in e for e in price.evidence), price.evidence
    emitted = sorted((e.file, e.line, e.point) for e in result.emissions)
    assert emitted == [("shop/main.py", 10, "shop_price"), ("shop/main.py", 11, "shop_order_paid"),
                       ("shop/main.py", 13, "shop_refunded"),
                       ("tests/conftest.py", 2, "pytest_deselected"),
                       ("tests/conftest.py", 3, "pytest_runtest_logstart")], emitted
    # PS116: specified, and nothing in the project calls it
    uncalled = [(f.file, f.line, f.severity) for f in result.findings if f.rule == "PS116"]
    assert uncalled == [("shop/hookspecs.py", 21, "info")], show(result)


def test_a_plugin_declaring_its_own_hooks_in_a_class_beside_its_implementations(
        tmp_path: Path) -> None:
    """pytest-timeout's shape: a class of specs, and the module's implementations beside it; a
    test's plugin class whose marker is imported inside the test function."""
    result = scan_plugins(tmp_path, {"pytest_timeout.py": """
        import pytest


        @pytest.hookimpl
        def pytest_addoption(parser):
            parser.addoption("--timeout")


        class TimeoutHooks:
            @pytest.hookspec(firstresult=True)
            def pytest_timeout_set_timer(item, settings):
                pass


        def pytest_addhooks(pluginmanager):
            pluginmanager.add_hookspecs(TimeoutHooks)
        """, "app/__init__.py": "", "app/config.py": """
        from pluggy import HookimplMarker

        hookimpl = HookimplMarker("app")
        """, "tests/test_auth.py": """
        def test_auth_runs_the_plugin(make_app):
            from app.config import hookimpl

            class Plugin:
                @hookimpl
                def app_auth(self, user):
                    return user

            make_app(plugins=[Plugin()])
        """})
    found = sorted((r.file, r.line, r.point) for r in result.registrations)
    assert found == [("pytest_timeout.py", 5, "pytest_addoption"),
                     ("pytest_timeout.py", 15, "pytest_addhooks"),
                     ("tests/test_auth.py", 6, "app_auth")], found


def test_uncalled_hook_in_a_plugin_that_specifies_and_implements(tmp_path: Path) -> None:
    """PS116: a spec beside the plugin's implementations (unmarked functions with code are
    implementations, not specs), and a `getattr` with a literal name is no call by computed
    name."""
    result = scan_plugins(tmp_path, {"plug/__init__.py": "", "plug/plugin.py": """
        import pytest


        @pytest.hookspec(firstresult=True)
        def pytest_myplugin_choose(config):
            \"\"\"Return the choice.\"\"\"


        def pytest_configure(config):
            config.addinivalue_line("markers", "slow: slow tests")


        def describe(hook):
            return getattr(hook, "__name__", repr(hook))
        """})
    found = [(f.file, f.line) for f in result.findings if f.rule == "PS116"]
    assert found == [("plug/plugin.py", 5)], show(result)


def test_an_incremental_scan_sees_a_helper_s_body_change_in_another_module(
        tmp_path: Path) -> None:
    """A hook's effect read through a helper in another module: editing only the helper's calls
    relinks the hook (the effects record that module's calls as a dependency)."""
    tree = tmp_path / "tree"
    files = {"plug/__init__.py": "", "plug/conftest.py": """
        from .helpers import setup


        def pytest_configure(config):
            setup(config)
        """, "plug/helpers.py": """
        class Extra:
            pass


        def setup(config):
            config.pluginmanager.get_plugin("x")
        """, **{f"plug/filler{i}.py": f"def f{i}():\n    return {i}\n" for i in range(12)}}
    write_tree(tree, files)

    def planes_now(cache: bool) -> tuple[list[str], str]:
        result = scan(Config(root=tree, packs=(), builtin_packs=("pluggy",), use_cache=cache,
                             cache_dir=tmp_path / "cache" if cache else None, jobs=1,
                             use_context=False))
        return [r.plane for r in result.registrations], str(result.stats.get("cache"))

    assert planes_now(True)[0] == ["subscriber"]
    helpers = tree / "plug" / "helpers.py"
    helpers.write_text(helpers.read_text().replace('get_plugin("x")', 'register(Extra(), "x")'))
    assert planes_now(True) == (["interceptor"], "incremental")
    assert planes_now(False)[0] == ["interceptor"]


def test_a_project_s_own_markers_and_its_spec_module(tmp_path: Path) -> None:
    specs = """
    from pluggy import HookimplMarker, HookspecMarker

    hookspec = HookspecMarker("shop")
    hookimpl = HookimplMarker("shop")


    @hookspec(firstresult=True)
    def price_for(item):
        "A plugin's price for the item, the first one given."


    @hookspec
    def order_placed(order):
        "Told of each order."
    """
    plugin = """
    import shop
    from shop.hooks import hookimpl as impl


    @impl
    def price_for(item):
        return item.base * 2


    @shop.hookimpl
    def order_placed(order):
        requests.post("https://example.com/orders", json=order)


    def helper():
        pass
    """
    result = scan_plugins(tmp_path, {"shop/__init__.py": "from .hooks import hookimpl\n",
                                     "shop/hooks.py": specs, "shop/plugins/prices.py": plugin})
    assert regs(result, file="shop/hooks.py") == [], show(result)  # specs declare, not implement
    assert {(r.point, r.plane) for r in regs(result, file="shop/plugins/prices.py")} == {
        ("price_for", "interceptor"), ("order_placed", "delivery_sink")}, show(result)


def test_a_function_named_like_a_hook_elsewhere_is_not_one(tmp_path: Path) -> None:
    app = """
    def hookimpl_report():
        return 1


    def run():
        return hookimpl_report()
    """
    result = scan_plugins(tmp_path, {"app.py": app})
    assert regs(result, file="app.py") == [], show(result)


def findings(result: ScanResult, rule: str) -> list[tuple[str, int, str]]:
    return [(f.file, f.line, f.severity) for f in result.findings if f.rule == rule]


def test_the_signal_hazards_weak_receivers_and_unread_robust_sends(tmp_path: Path) -> None:
    app = """
    from functools import partial

    from django.db.models.signals import post_save
    from django.dispatch import Signal

    order_paid = Signal()


    class Mailer:
        def on_paid(self, sender, **kw):
            pass


    def install(cache):
        def forget(sender, **kw):
            cache.clear()

        post_save.connect(forget)
        post_save.connect(lambda sender, **kw: cache.clear())
        post_save.connect(partial(print, "saved"), weak=False)
        order_paid.connect(Mailer().on_paid)


    def pay(order):
        order_paid.send_robust(sender=None, order=order)
        return order_paid.send_robust(sender=None, order=order)
    """
    result = scan_app(tmp_path, {"app.py": app})
    assert findings(result, "PS112") == [("app.py", 18, "warning"), ("app.py", 19, "warning"),
                                         ("app.py", 21, "warning")], show(result)
    assert findings(result, "PS113") == [("app.py", 25, "warning")], show(result)


def test_an_async_hook_implementation_is_never_awaited(tmp_path: Path) -> None:
    plugin = """
    import pytest


    @pytest.hookimpl
    async def pytest_sessionstart(session):
        await session.prepare()


    def pytest_sessionfinish(session):
        print("done")
    """
    result = scan_plugins(tmp_path, {"plugin.py": plugin})
    # the sync one is not enumerated: pluggy's pack is outside ADR-0120's DISCARD gate
    assert findings(result, "PS101") == [("plugin.py", 5, "error")], show(result)


def test_a_receiver_that_raises_to_stop_the_save_is_an_interceptor(tmp_path: Path) -> None:
    app = """
    from django.core.exceptions import PermissionDenied
    from django.db.models.signals import pre_delete, pre_save


    def refuse_archived(sender, instance, **kwargs):
        check(instance)


    def check(instance):
        if instance.archived:
            raise PermissionDenied("archived")


    def log_delete(sender, instance, **kwargs):
        try:
            instance.audit()
        except ValueError:
            raise RuntimeError("audit failed")


    pre_save.connect(refuse_archived)
    pre_delete.connect(log_delete)
    """
    result = scan_app(tmp_path, {"app.py": app})
    assert planes(result, "app.py") == {
        ("pre_save", "refuse_archived"): "interceptor",  # raises (through a helper) to stop it
        ("pre_delete", "log_delete"): "subscriber",  # a raise in an except clause translates
    }, show(result)


def test_weak_false_at_module_level_keeps_the_receiver(tmp_path: Path) -> None:
    app = """
    from django.db.models.signals import post_save

    post_save.connect(lambda sender, **kw: None, weak=False)
    post_save.connect(lambda sender, **kw: None)
    """
    result = scan_app(tmp_path, {"app.py": app})
    assert findings(result, "PS112") == [("app.py", 4, "warning")], show(result)


def test_a_signal_connected_but_never_sent_and_one_sent_but_never_connected(
        tmp_path: Path) -> None:
    signals = """
    from django.dispatch import Signal

    order_paid = Signal()
    order_refunded = Signal()
    order_shipped = Signal()
    """
    app = """
    from django.dispatch import receiver

    from shop.signals import order_paid, order_refunded, order_shipped


    @receiver(order_paid)
    def ship(sender, order, **kwargs):
        print(order)


    @receiver(order_shipped)
    def tell(sender, order, **kwargs):
        print(order)


    def refund(order):
        order_refunded.send(sender=None, order=order)
        order_shipped.send(sender=None, order=order)
    """
    result = scan_app(tmp_path, {"shop/__init__.py": "", "shop/signals.py": signals,
                                 "shop/app.py": app})
    assert findings(result, "PS114") == [("shop/signals.py", 3, "warning"),
                                         ("shop/signals.py", 4, "info")], show(result)


def test_the_keywords_that_narrow_a_receiver_are_in_its_evidence(tmp_path: Path) -> None:
    app = """
    from django.db.models.signals import post_save
    from django.dispatch import receiver

    from shop.models import Book


    def stamp(sender, instance, **kwargs):
        print(instance)


    post_save.connect(stamp, sender=Book, dispatch_uid="stamp")


    @receiver(post_save, sender=Book, weak=False)
    def tell(sender, instance, **kwargs):
        print(instance)
    """
    result = scan_app(tmp_path, {"shop/__init__.py": "", "shop/models.py": MODELS,
                                 "shop/app.py": app})
    evidence = {r.handler.expr: [e for e in r.evidence if e.startswith("only with")]
                for r in regs(result, file="shop/app.py")}
    assert evidence == {"stamp": ["only with sender=Book", 'only with dispatch_uid="stamp"'],
                        "tell": ["only with sender=Book", "only with weak=False"]}, show(result)


def test_a_classify_rule_reads_the_keywords_that_narrow_a_receiver(tmp_path: Path) -> None:
    pack = tmp_path / "pack.yaml"
    pack.write_text(textwrap.dedent("""\
        pack: shop
        package: shop
        mechanisms:
          - id: shop_signals
            title: shop signals
            dispatcher: [shop.bus.Signal]
            register:
              - method: connect
                handler: {arg: 0, keyword: receiver}
                point: {receiver: true}
                conditions: [sender, weak]
            classify:
              - id: shop_signals.users
                when: {condition: ["sender=User*"]}
                plane: interceptor
                because: a user's receivers may veto the save
              - id: shop_signals.told
                plane: subscriber
                because: told
        """))
    write_tree(tmp_path / "tree", {"shop/__init__.py": "", "shop/bus.py": """
        class Signal:
            def connect(self, receiver, sender=None, weak=True):
                pass
        """, "shop/app.py": """
        from shop.bus import Signal

        saved = Signal()


        def audit(sender, **kw):
            pass


        saved.connect(audit, sender=UserProfile)
        saved.connect(audit, sender=Order, weak=False)
        """})
    result = scan(Config(root=tmp_path / "tree", packs=(pack,), builtin_packs=(),
                         use_cache=False, jobs=1, use_context=False))
    assert [(r.line, r.plane) for r in result.registrations] == [
        (10, "interceptor"), (11, "subscriber")], show(result)


def test_send_robust_returns_its_errors_as_read_from_the_loop(tmp_path: Path) -> None:
    """Django's own `send_robust` in view: each error kept beside its receiver in the returned
    list is the return_report error surface (it was read as silent)."""
    dispatcher = """
    class Signal:
        def __init__(self):
            self.receivers = []

        def connect(self, receiver, sender=None, weak=True, dispatch_uid=None):
            self.receivers.append(receiver)

        def send_robust(self, sender, **named):
            responses = []
            for receiver in self.receivers:
                try:
                    response = receiver(signal=self, sender=sender, **named)
                except Exception as err:
                    self._log_robust_failure(receiver, err)
                    responses.append((receiver, err))
                else:
                    responses.append((receiver, response))
            return responses

        def _log_robust_failure(self, receiver, err):
            pass
    """
    app = """
    from django.dispatch.dispatcher import Signal

    paid = Signal()


    def log(sender, **kw):
        print(kw)


    paid.connect(log)
    """
    result = scan_app(tmp_path, {"django/__init__.py": "", "django/dispatch/__init__.py": "",
                                 "django/dispatch/dispatcher.py": dispatcher, "app.py": app})
    (mech,) = [m for m in result.mechanisms if m.id == "django_signals"]
    paths = {p.entry: {a.axis: a.value for a in p.axes} for p in mech.dispatch_paths}
    assert paths["Signal.send_robust"]["error_surface"] == "return_report", paths
    # the pack declares send_robust's own policy (`policy.entries`): its loop contradicts
    # nothing the pack says (before, the policy of `send` was reported stale against it)
    declared = {p.entry: {a.axis: a.declared for a in p.axes} for p in mech.dispatch_paths}
    assert {axis: declared["Signal.send_robust"][axis] for axis in
            ("failure", "completion", "error_surface")} == {
        "failure": "isolate", "completion": "await_all", "error_surface": "return_report"}
    assert not [e for e in mech.policy_evidence if e.startswith("pack declares")], \
        mech.policy_evidence
    assert not [f for f in result.findings if f.rule == "PS108"], result.findings


def test_without_django_s_source_the_pack_says_what_send_robust_does(tmp_path: Path) -> None:
    result = scan_app(tmp_path, {"app.py": """
        from django.db.models.signals import post_save

        post_save.connect(print)
        """})
    (mech,) = [m for m in result.mechanisms if m.id == "django_signals"]
    assert ("declared in pack django for send_robust: failure=isolate, completion=await_all, "
            "error_surface=return_report") in mech.policy_evidence, mech.policy_evidence
