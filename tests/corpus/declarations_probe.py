"""Run in a lionagi copy migrated end to end (test_declarations_corpus.py): registrations
through the rewritten SchedulerSignalBus and TerminalCallbackRegistry façades, read as declared."""

import asyncio

import lionagi.studio.scheduler.signals as signals
from lionagi.runtime.dispatch import DeliverySink, PolicyError
from lionagi.runtime.dispatch.adapters import SinkRegistration, Subscription
from lionagi.state.lifecycle.callbacks import TerminalCallbackRegistry

reports = []
original = signals.fan_out


async def spy(*args, **kwargs):
    report = await original(*args, **kwargs)
    reports.append([o.name for o in report.outcomes])
    return report


signals.fan_out = spy
bus = signals.SchedulerSignalBus()
seen = []
late = bus.observe(signals.ScheduleRunFailed, handler=Subscription(
    name="app.late", policy="scheduler", handler=lambda s: seen.append("late")))
bus.observe(signals.ScheduleRunFailed, handler=Subscription(
    name="app.early", policy="scheduler", order=-1, handler=lambda s: seen.append("early")))
signals.register_default_handlers(bus)  # the rewritten call site: a declared delivery
asyncio.run(bus.emit(signals.ScheduleRunFailed(schedule_id="s", run_id="r")))
print(seen)
print(reports)
print(bus.unobserve(late))  # observe handed back the bare handler: unobserve finds it
registry = TerminalCallbackRegistry()
registry.register("mail", SinkRegistration(name="app.mail", port=DeliverySink, handler=print))
try:
    registry.register("x", Subscription(name="app.x", policy="p", handler=print))
except PolicyError as exc:
    print(exc.rules)
