"""The generated module's text: header, the support code, one section per dispatch path.

Output is deterministic (the scan's order, no dates, no absolute paths) and written the way ruff
formats code, so a regenerated module diffs only where the scan changed.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from .. import __version__
from ..types import AxisEvidence
from .layout import layout
from .model import Case, PathPlan, Recipe, Skip

MARKER = "# --- planeshift characterize: support (copied into the generated module) ---"
WIDTH = 99


EMBEDDED = ("probes.py", "observe.py")  # in this order: observe's part uses probes' names


def support_code() -> str:
    """The embedded support's text below each part's marker line (the code the tests call),
    under one marker: the first part carries the imports of both."""
    folder = Path(__file__).parent / "embedded"
    parts = [(folder / name).read_text(encoding="utf-8").split(MARKER, 1)[1].strip("\n")
             for name in EMBEDDED]
    return MARKER + "\n" + "\n\n\n".join(parts) + "\n"


def slug(entry: str) -> str:
    """``HookBus.emit`` -> ``hook_bus_emit``."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", entry.replace(".", "_"))
    return re.sub(r"_+", "_", snake).strip("_").lower()


def render_module(root: str, packages: tuple[str, ...], plans: tuple[PathPlan, ...],
                  skipped: tuple[Skip, ...]) -> str:
    parts = [_header(root, packages, plans, skipped) + "\nfrom __future__ import annotations\n\n"
             + support_code().rstrip() + "\n", _guard(packages)]
    shared: dict[str, str] = {}
    for plan in plans:
        parts.append(_section(plan, shared))
        parts.extend(_test(plan, case) for case in plan.cases)
    return "\n\n\n".join(p.rstrip("\n") for p in parts) + "\n"


def _code(lines: list[str]) -> str:
    """Code lines (not docstrings) laid out as ruff format would."""
    return "\n".join(out for line in lines for out in layout(line))


def _header(root: str, packages: tuple[str, ...], plans: tuple[PathPlan, ...],
            skipped: tuple[Skip, ...]) -> str:
    names = ", ".join(packages)
    lines = [
        f"Characterization of {names}'s dispatchers (ADR-0120 Phase 0), generated.",
        "",
        (f"Written by planeshift {__version__} (`planeshift characterize`) from a scan of "
         f"{root}/: regenerate it rather than edit it; hand-written cases belong in a module "
         "beside this one."),
        "",
        ("Each test pins one ADR-0120 D2 axis of one dispatch path, with the value the scan "
         "read from the dispatcher's own code (the test's docstring cites the lines), never the "
         "value of an ADR profile. Where the scan left an axis unknown, or no scenario here "
         "observes its value, the test is generated marked skip with the reason: `pytest -rs` "
         "lists what is not pinned."),
        "",
        ("Against a copy of the package (a migrated tree), whose folder holds "
         f"{packages[0] if packages else 'the package'}/:"),
        "",
        "    PYTHONPATH=COPY PLANESHIFT_CHARACTERIZE_EXPECT=COPY python -m pytest THIS_FILE",
        "    planeshift characterize ROOT -o THIS_FILE --run-against COPY",
        "",
        ("Every test fails when PLANESHIFT_CHARACTERIZE_EXPECT is set and the package imported "
         "is not the one under it."),
        "",
        f"Characterized: {len(plans)} dispatch paths.",
    ]
    lines += [f"    {p.recipe.mechanism}: {p.recipe.entry} ({p.recipe.file}:{p.recipe.line})"
              for p in plans]
    if skipped:
        lines += ["", "Not characterized:"]
        lines += [f"    {s.mechanism} ({s.entry or s.dispatcher}): {s.reason}" for s in skipped]
    out: list[str] = []
    for line in lines:
        indent = " " * (len(line) - len(line.lstrip()))
        out += textwrap.wrap(_safe(line), WIDTH, subsequent_indent=indent + (
            "  " if indent else "")) or [""]
    return '"""' + "\n".join(out) + '\n"""\n'


def _guard(packages: tuple[str, ...]) -> str:
    return f'''PACKAGES = {_tuple(packages)}
pytestmark = pytest.mark.filterwarnings(
    "ignore:coroutine .* was never awaited:RuntimeWarning"
)


@pytest.fixture(autouse=True)
def _package_under_test() -> None:
    """Fails every test when $PLANESHIFT_CHARACTERIZE_EXPECT names another copy."""
    for package in PACKAGES:
        check_imported(package)
'''


def _tuple(items: tuple[str, ...]) -> str:
    inner = ", ".join(f'"{i}"' for i in items)
    return f"({inner},)" if len(items) == 1 else f"({inner})"


def subject_name(recipe: Recipe) -> str:
    return slug(recipe.entry).upper()


def _section(plan: PathPlan, shared: dict[str, str]) -> str:
    recipe = plan.recipe
    base = plan.subject.lower()
    group = slug(recipe.dispatcher.rsplit(".", 1)[-1])
    title = f"# == {recipe.mechanism}: {recipe.entry} ({recipe.file}:{recipe.line}) "
    lines = [title + "=" * max(3, WIDTH - len(title)), f"# dispatcher: {recipe.dispatcher}"]
    lines += [f"# {note}" for note in recipe.notes]
    out = ["\n".join(lines)]
    new_body = [f"return {recipe.construct}"]
    if recipe.construct_budget:
        new_body = ["if budget is not None:", f"    return {recipe.construct_budget}", *new_body]
    functions = [
        (f"{group}_new", "budget: float | None = None", "Any", new_body),
        (f"{group}_on", "dispatcher: Any, handler: Any, n: int, payload: Any", "None",
         [recipe.register]),
        (f"{base}_payload", "", "Any", [f"return {recipe.payload}"]),
        (f"{base}_fire", "dispatcher: Any, payload: Any", "Any", [f"return {recipe.fire}"]),
    ]
    names: dict[str, str] = {}
    for name, signature, returns, body in functions:
        text = _function(name, signature, returns, body, recipe.imports)
        key = text.replace(name, "")
        if name.endswith(("_new", "_on")) and shared.get(name) not in (None, key):
            name = f"{base}{name[len(group):]}"
            text = _function(name, signature, returns, body, recipe.imports)
        names[name.rsplit("_", 1)[-1]] = name
        if shared.get(name) == key:
            continue
        shared[name] = key
        out.append(text)
    out.append(f"""{plan.subject} = Subject(
    name="{recipe.entry}",
    new={names["new"]},
    on={names["on"]},
    fire={names["fire"]},
    payload={names["payload"]},
    method="{recipe.method}",
    is_async={recipe.is_async},
)""")
    return "\n\n\n".join(out)


def _function(name: str, signature: str, returns: str, body: list[str],
              imports: tuple[tuple[str, str], ...]) -> str:
    used = [(m, n) for m, n in imports if any(re.search(rf"\b{n}\b", line) for line in body)]
    head = [f"def {name}({signature}) -> {returns}:"]
    lines = [f"    from {m} import {n}" for m, n in used]
    if lines:
        lines.append("")
    lines += [f"    {line}" for line in body]
    return _code(head + lines)


def _test(plan: PathPlan, case: Case) -> str:
    name = f"test_{plan.subject.lower()}_{case.name}"
    doc = _docstring(plan.recipe, case)
    if case.skip:
        reason = case.skip.replace("\\", "\\\\").replace('"', '\\"')
        return _code([f'@pytest.mark.skip(reason="{reason}")', f"def {name}():"]) + (
            f"\n{doc}")
    head: list[str] = []
    signature = ""
    if case.params is not None:
        names, rows = case.params
        fields = [n.strip() for n in names.split(",")]
        types = [type(v).__name__ for v in rows[0]]
        rendered = ", ".join("(" + ", ".join(_value(v) for v in row) + ")" for row in rows)
        quoted = ", ".join(f'"{f}"' for f in fields)
        head = [f"@pytest.mark.parametrize(({quoted}), [{rendered}])"]
        signature = ", ".join(f"{f}: {t}" for f, t in zip(fields, types))
    body = _code([f"    {line}".replace("SUBJECT", plan.subject) if line else ""
                  for line in case.body])
    return f"{_code([*head, f'def {name}({signature}):'])}\n{doc}\n{body}"


def _value(value: object) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def _docstring(recipe: Recipe, case: Case) -> str:
    lines = textwrap.wrap(_safe(case.summary), WIDTH - 7) or [""]
    cited = _evidence(recipe, case.evidence)
    text = ['    """' + lines[0], *(f"    {line}" for line in lines[1:])]
    if cited:
        text += ["", f"    {recipe.entry}, as the scan read it:"]
        text += [f"      {line}" for line in cited]
    text.append('    """' if len(text) > 1 else "")
    if len(text) == 2 and not text[1]:
        return text[0] + '"""'
    return "\n".join(text)


def _evidence(recipe: Recipe, evidence: tuple[AxisEvidence, ...]) -> list[str]:
    out: list[str] = []
    for ev in evidence:
        where = f"{ev.file}:{ev.line}" if ev.file else "the pack"
        out += textwrap.wrap(_safe(f"{where} {ev.seen}"), WIDTH - 9,
                             subsequent_indent="  ") or [""]
    return out


def _safe(text: str) -> str:
    """Text fit for a docstring: no backslash escapes, no closing quotes."""
    return text.replace("\\", "/").replace('"""', "'''").replace("\t", " ")
