"""Run a real project's own test suite before and after planeshift migrates it, on several
interpreters, and list every test that passed before and does not pass after.

    python benchmarks/unseen_suite.py --src /tmp/unseen/src --work /tmp/unseen/run \\
        --python /tmp/unseen/venv3.10/bin/python --python /tmp/unseen/venv3.11/bin/python

Steps (issue 18: "no test may fail after migration that passed before"):

1. ``--src`` is copied twice into ``--work``: ``before/`` stays untouched, ``after/`` is migrated
   with this checkout's planeshift (run as ``sys.executable -m planeshift``, so run the script
   from the project venv with ``PYTHONPATH=<checkout>/src``): ``kernels vendor --into
   <package>/runtime/dispatch``, ``migrate --write``, then ``migrate --owners --write``, each
   with ``--root after/`` (the whole project, its tests and examples included). The two JSON
   reports are kept in ``--work``.
2. For each ``--python`` (a venv's interpreter holding the project's dependencies and its test
   tools; ``--install-deps`` pip-installs them), the suite runs on ``before/`` and on ``after/``
   (``python -m pytest -o addopts= -p no:cacheprovider`` from the copy's root with the copy on
   ``PYTHONPATH``; ``-n JOBS --dist loadfile`` when pytest-xdist is there, ``--timeout`` when
   pytest-timeout is). The script first checks that the package imports from the copy, not
   from an installed one. Outcomes are recorded per node id by a small plugin (``--junitxml``
   is written beside them too): passed, failed, error (setup/teardown or collection),
   skipped, xfailed, xpassed. ``--before-runs 2`` runs the untouched suite twice: a test whose
   outcome differs between the two is flaky and is not counted against the migration.
3. Every test that passed before and does not pass after is run again ``--reruns`` times on
   both copies, alone (``-n 0``): "regression" when it passes before and fails after every time,
   else "flaky".
4. Printed per interpreter: tests passed before and after, the tests that passed before and do
   not after (by node id, with the rerun verdict and the first lines of the failure), and the
   migration summary (files touched, registrations rewritten, refused). ``--json FILE`` writes
   all of it. Exit 1 when a regression remains.

Timing goes to stderr. Run it niced: ``nice -n 10 python benchmarks/unseen_suite.py ...``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PLUGIN = '''
"""Record each test's outcome by node id (written by benchmarks/unseen_suite.py)."""
import json, os

_OUT = {}
_LONG = {}


def _set(nodeid, outcome, longrepr=None):
    order = ["passed", "skipped", "xfailed", "xpassed", "failed", "error"]
    old = _OUT.get(nodeid)
    if old is None or order.index(outcome) > order.index(old):
        _OUT[nodeid] = outcome
        _record(nodeid, outcome)
        if longrepr:
            _LONG[nodeid] = longrepr[-3000:]


def _record(nodeid, outcome):
    path = os.environ.get("UNSEEN_OUTCOMES")
    if path:  # as it goes: a suite that hangs or is killed still leaves its outcomes
        with open(path + "l", "a") as f:
            f.write(json.dumps([nodeid, outcome]) + "\\n")


def pytest_runtest_logreport(report):
    wasx = hasattr(report, "wasxfail")
    text = str(report.longrepr) if report.longrepr else None
    if report.when == "call":
        if report.passed:
            _set(report.nodeid, "xpassed" if wasx else "passed")
        elif report.skipped:
            _set(report.nodeid, "xfailed" if wasx else "skipped")
        else:
            _set(report.nodeid, "failed", text)
    elif report.skipped:
        _set(report.nodeid, "xfailed" if wasx else "skipped")
    elif report.failed:
        _set(report.nodeid, "error", text)


def pytest_collectreport(report):
    if report.failed:
        _set(report.nodeid or "<collection>", "error", str(report.longrepr))


def pytest_sessionfinish(session):
    if hasattr(session.config, "workerinput"):
        return
    path = os.environ.get("UNSEEN_OUTCOMES")
    if path:
        with open(path, "w") as f:
            json.dump({"outcomes": _OUT, "failures": _LONG}, f)
'''

PASS = {"passed", "xfailed"}  # a test that met its expectation
TEST_DEPS = [
    "pytest",
    "pytest-asyncio",
    "pytest-xdist",
    "pytest-timeout",
    "pytest-benchmark",
    "hypothesis",
    "httpx",
    "trio",
]


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


STALLED = 120  # seconds a log may stay still after "node down" before the run is interrupted


def _wait(proc: subprocess.Popen[bytes], log_path: Path, limit: float) -> str:
    """Wait for *proc*; why it must be interrupted ("" when it ended): over *limit* seconds, or
    an xdist worker down (``node down`` in its log) and the log still for STALLED seconds, where
    the controller would wait for that worker's last test forever (lionagi's suite: a worker
    crashing in a trio test)."""
    started = time.monotonic()
    while True:
        try:
            proc.wait(timeout=10)
            return ""
        except subprocess.TimeoutExpired:
            pass
        if time.monotonic() - started > limit:
            return f"suite over {limit} s"
        try:
            still = time.time() - log_path.stat().st_mtime
            down = still > STALLED and "node down" in log_path.read_text(errors="replace")
        except OSError:
            down = False
        if down:
            return f"a worker went down and the log stayed still for {STALLED} s"


def run(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, text=True, capture_output=True, **kw)


def label(python: str) -> str:
    out = run([python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"])
    return out.stdout.strip() or python


def has_module(python: str, name: str) -> bool:
    return run([python, "-c", f"import {name}"]).returncode == 0


def install_deps(python: str, src: Path, extra: list[str]) -> None:
    import tomllib

    project = tomllib.loads((src / "pyproject.toml").read_text())["project"]
    reqs = list(project.get("dependencies", [])) + TEST_DEPS + extra
    log(f"{label(python)}: pip install {len(reqs)} requirements")
    done = run([python, "-m", "pip", "install", "-q", *reqs])
    if done.returncode:
        sys.exit(f"pip install failed for {python}:\n{done.stderr[-3000:]}")


# -- migration ----------------------------------------------------------------------------------


def planeshift(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "planeshift", *args], cwd=cwd)


def migrate(after: Path, into: str, work: Path) -> dict[str, Any]:
    started = time.monotonic()
    vendored = planeshift(["kernels", "vendor", "--into", into], after)
    if vendored.returncode:
        sys.exit(f"kernels vendor failed:\n{vendored.stderr}")
    summary: dict[str, Any] = {"vendor": vendored.stdout.strip().splitlines()[-1]}
    for step, extra in (("calls", []), ("owners", ["--owners"])):
        report = work / f"migrate-{step}.json"
        done = planeshift(
            ["migrate", "--root", ".", "--write", *extra, "--format", "json", "-o", str(report)],
            after,
        )
        if done.returncode not in (0, 1) or not report.exists():
            sys.exit(f"migrate {step} failed ({done.returncode}):\n{done.stderr[-3000:]}")
        data = json.loads(report.read_text())
        summary[step] = {
            "exit": done.returncode,
            "summary": data["summary"],
            "files_written": sorted(f["file"] for f in data["files"] if f.get("written")),
            "migrated": len(data["migrated"]),
            "not_migrated": len(data["not_migrated"]),
            "errors": data["errors"],
        }
    summary["seconds"] = round(time.monotonic() - started, 1)
    return summary


# -- the suite ----------------------------------------------------------------------------------


def pytest_cmd(python: str, opts: argparse.Namespace, ids: list[str] | None,
               jobs: int = 0) -> list[str]:
    cmd = [python, "-m", "pytest", "-o", "addopts=", "-p", "no:cacheprovider", "-p",
           "unseen_outcomes", "-q", "-rfE", "--tb=short"]
    if has_module(python, "xdist"):
        cmd += ["-n", str(jobs if ids else opts.jobs), "--dist", "loadfile"]
    if has_module(python, "pytest_timeout"):
        # signal, not the thread method many projects set: a test over time then fails alone
        # instead of taking its xdist worker down (and, after a few, the controller with it)
        cmd += [f"--timeout={opts.timeout}", "-o", "timeout_method=signal"]
    if has_module(python, "pytest_benchmark"):
        cmd += ["--benchmark-disable"]
    cmd += opts.pytest_arg
    cmd += ids if ids else opts.tests
    return cmd


def suite(python: str, copy: Path, out: Path, opts: argparse.Namespace,
          ids: list[str] | None = None, jobs: int = 0) -> dict[str, Any]:
    """Run the suite (or only ``ids``) in ``copy``; the outcomes by node id."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(copy), str(opts.work / "plugin")])
    env["UNSEEN_OUTCOMES"] = str(Path(f"{out}.json"))
    env.pop("PYTEST_ADDOPTS", None)
    if opts.reuse and ids is None and Path(f"{out}.json").exists():
        data = json.loads(Path(f"{out}.json").read_text())
        if data.get("outcomes"):
            log(f"  reusing {out}.json")
            data.setdefault("exit", None)
            data.setdefault("seconds", None)
            return data
    # each run on a fresh copy: some suites write into the tree (lionagi's studio tests run
    # `npm install` and `next build` in apps/studio/frontend), and a later run of the same copy
    # would then start from another state than the run it is compared with
    tree = opts.work / "trees" / out.name
    if tree.exists():
        shutil.rmtree(tree)
    shutil.copytree(copy, tree, symlinks=True)
    env["PYTHONPATH"] = os.pathsep.join([str(tree), str(opts.work / "plugin")])
    copy = tree
    cmd = pytest_cmd(python, opts, ids, jobs)
    if ids is None:
        cmd.insert(-len(opts.tests), f"--junitxml={Path(f'{out}.xml')}")
    Path(f"{out}.jsonl").unlink(missing_ok=True)
    started = time.monotonic()
    with open(Path(f"{out}.log"), "w") as logf:
        proc = subprocess.Popen(cmd, cwd=copy, env=env, stdout=logf, stderr=subprocess.STDOUT,
                                start_new_session=True)
        why = _wait(proc, Path(f"{out}.log"), opts.suite_timeout)
        if why:
            # an xdist controller can hang after one of its workers died: interrupt it (pytest
            # still writes its reports), then kill what is left of its process group
            log(f"  {why}: interrupted")
            os.killpg(proc.pid, signal.SIGINT)
            try:
                rc = proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                rc = proc.wait()
        else:
            rc = proc.returncode
    seconds = time.monotonic() - started
    if not opts.keep_trees:
        shutil.rmtree(tree, ignore_errors=True)
    try:
        data = json.loads(Path(f"{out}.json").read_text())
    except FileNotFoundError:  # killed before the end: what was recorded as it went
        data = {"outcomes": {}, "failures": {}}
        if Path(f"{out}.jsonl").exists():
            for line in Path(f"{out}.jsonl").read_text().splitlines():
                nodeid, outcome = json.loads(line)
                data["outcomes"][nodeid] = outcome
    data["exit"], data["seconds"] = rc, round(seconds, 1)
    return data


def imports_from(python: str, copy: Path, package: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(copy))
    done = run([python, "-c", f"import {package}; print({package}.__file__)"], cwd=copy, env=env)
    where = done.stdout.strip()
    if done.returncode or not Path(where).resolve().is_relative_to(copy.resolve()):
        sys.exit(f"{python}: {package} does not import from {copy}: {where or done.stderr[-2000:]}")


def count(outcomes: dict[str, str]) -> dict[str, int]:
    tally: dict[str, int] = {}
    for value in outcomes.values():
        tally[value] = tally.get(value, 0) + 1
    return dict(sorted(tally.items()))


def first_lines(text: str | None, n: int = 6) -> str:
    if not text:
        return ""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(lines[-n:])


def compare(python: str, opts: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {"python": label(python)}
    name = "py" + result["python"].replace(".", "_")
    for copy in ("before", "after"):
        imports_from(python, opts.work / copy, opts.package)
    befores = []
    first = opts.work / f"{name}-before-1"
    targeted = python in opts.targeted and not (opts.reuse and Path(f"{first}.json").exists())
    for i in range(0 if targeted else opts.before_runs):
        log(f"{name}: suite on before/ (run {i + 1} of {opts.before_runs})")
        befores.append(suite(python, opts.work / "before", opts.work / f"{name}-before-{i + 1}", opts))
        log(f"  {count(befores[-1]['outcomes'])} in {befores[-1]['seconds']} s")
    log(f"{name}: suite on after/")
    after = suite(python, opts.work / "after", opts.work / f"{name}-after", opts)
    log(f"  {count(after['outcomes'])} in {after['seconds']} s")
    known = befores[0]["outcomes"] if befores else {}
    missing = sorted(t for t in known if t not in after["outcomes"] and "::" in t)
    if missing:
        # a run cut short (a worker crash can end xdist's scheduling) leaves tests unrun
        log(f"{name}: {len(missing)} tests of before/ have no outcome after: running them")
        fill = suite(python, opts.work / "after", opts.work / f"{name}-after-fill", opts,
                     ids=missing, jobs=opts.jobs)
        after["outcomes"].update(fill["outcomes"])
        after["failures"].update(fill["failures"])
        log(f"  {count(fill['outcomes'])} in {fill['seconds']} s")
    if targeted:
        # only what does not pass after (a module that failed to collect: the whole module)
        ids = sorted(t for t, v in after["outcomes"].items() if v not in PASS)
        log(f"{name}: before/ on the {len(ids)} tests that do not pass after")
        befores.append(suite(python, opts.work / "before", first, opts, ids=ids, jobs=opts.jobs))
        log(f"  {count(befores[-1]['outcomes'])} in {befores[-1]['seconds']} s")
    result["before_targeted"] = targeted
    before = befores[0]["outcomes"]
    flaky_before = sorted(
        t for t in before if len({b["outcomes"].get(t) in PASS for b in befores}) > 1
    )
    lost = sorted(
        t for t in before
        if all(b["outcomes"].get(t) in PASS for b in befores)
        and after["outcomes"].get(t) not in PASS
    )
    verdicts: dict[str, dict[str, Any]] = {}
    rerunnable = [t for t in lost if "::" in t][: opts.max_reruns]
    if rerunnable and opts.reruns:
        tallies = {t: {"before": 0, "after": 0} for t in rerunnable}
        for i in range(opts.reruns):
            for copy in ("before", "after"):
                log(f"{name}: rerun {len(rerunnable)} tests on {copy}/ ({i + 1} of {opts.reruns})")
                again = suite(python, opts.work / copy, opts.work / f"{name}-rerun-{copy}-{i}",
                              opts, ids=rerunnable)
                for t in rerunnable:
                    tallies[t][copy] += again["outcomes"].get(t) in PASS
        for t, tally in tallies.items():
            regression = tally["before"] == opts.reruns and tally["after"] == 0
            verdicts[t] = {"verdict": "regression" if regression else "flaky",
                           "passed_reruns": tally}
    result.update({
        "before": [count(b["outcomes"]) for b in befores],
        "after": count(after["outcomes"]),
        "seconds": {"before": [b["seconds"] for b in befores], "after": after["seconds"]},
        "passed_before": sum(v in PASS for v in before.values()),
        "passed_after": sum(v in PASS for v in after["outcomes"].values()),
        "flaky_before": flaky_before,
        "lost": [
            {"test": t, "after": after["outcomes"].get(t, "missing"),
             **verdicts.get(t, {"verdict": "not rerun"}),
             "failure": first_lines(after["failures"].get(t))}
            for t in lost
        ],
        "gained": [] if targeted else sorted(t for t, v in after["outcomes"].items()
                                             if v in PASS and before.get(t) not in PASS),
    })
    return result


def show(migration: dict[str, Any], results: list[dict[str, Any]], src: Path) -> None:
    print(f"project: {src}")
    print(f"migration ({migration['seconds']} s): {migration['vendor']}")
    for step in ("calls", "owners"):
        m = migration[step]
        print(f"  migrate{' --owners' if step == 'owners' else ''} --write: exit {m['exit']}, "
              f"{m['summary']}, {len(m['files_written'])} files written")
    for r in results:
        print(f"\nPython {r['python']}:")
        for i, b in enumerate(r["before"]):
            what = "targeted: the tests not passing after" if r["before_targeted"] else f"run {i + 1}"
            print(f"  before ({what}): {b} ({r['seconds']['before'][i]} s)")
        print(f"  after:        {r['after']} ({r['seconds']['after']} s)")
        print(f"  passed before {r['passed_before']}, passed after {r['passed_after']}; "
              f"flaky before: {len(r['flaky_before'])}; passing only after: {len(r['gained'])}")
        lost = r["lost"]
        regressions = [x for x in lost if x["verdict"] != "flaky"]
        print(f"  passed before, not after: {len(lost)} "
              f"({len(regressions)} regression or not rerun, {len(lost) - len(regressions)} flaky)")
        for x in lost:
            print(f"    {x['test']}: {x['after']}, {x['verdict']} {x.get('passed_reruns', '')}")
            for line in x["failure"].splitlines():
                print(f"        {line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, required=True, help="the project's source tree")
    parser.add_argument("--work", type=Path, required=True, help="a scratch folder (emptied)")
    parser.add_argument("--python", action="append", required=True, help="an interpreter (repeat)")
    parser.add_argument("--package", help="the top-level package (default: from --into)")
    parser.add_argument("--into", default=None,
                        help="where the kernels go (default: <package>/runtime/dispatch)")
    parser.add_argument("--tests", nargs="+", default=["tests"], help="pytest paths")
    parser.add_argument("--jobs", type=int, default=2, help="pytest-xdist workers")
    parser.add_argument("--timeout", type=int, default=120, help="per-test seconds")
    parser.add_argument("--before-runs", type=int, default=1, help="runs of the untouched suite")
    parser.add_argument("--suite-timeout", type=int, default=3600,
                        help="seconds before a whole suite run is interrupted")
    parser.add_argument("--targeted-before", dest="targeted", action="append", default=[],
                        help="for this interpreter, run before/ only on the tests that do not "
                             "pass after (cheaper; 'passed before' then counts only those)")
    parser.add_argument("--keep-trees", action="store_true",
                        help="keep the copy each suite ran in (work/trees/)")
    parser.add_argument("--reuse", action="store_true",
                        help="with --keep: reuse a suite's outcomes already in --work")
    parser.add_argument("--reruns", type=int, default=2, help="reruns of each lost test")
    parser.add_argument("--max-reruns", type=int, default=200, help="rerun at most so many")
    parser.add_argument("--pytest-arg", action="append", default=[], help="passed to pytest")
    parser.add_argument("--install-deps", action="store_true",
                        help="pip-install the project's dependencies and test tools first")
    parser.add_argument("--extra-dep", action="append", default=[],
                        help="another requirement for --install-deps (repeat)")
    parser.add_argument("--keep", action="store_true", help="reuse before/ and after/ in --work")
    parser.add_argument("--json", type=Path, help="write the results there")
    opts = parser.parse_args()
    opts.src, opts.work = opts.src.resolve(), opts.work.resolve()
    opts.package = opts.package or (opts.into.split("/")[0] if opts.into else None)
    if not opts.package:
        inits = [p.parent.name for p in opts.src.glob("*/__init__.py")]
        if len(inits) != 1:
            sys.exit(f"name the package with --package (found {inits})")
        opts.package = inits[0]
    opts.into = opts.into or f"{opts.package}/runtime/dispatch"
    started = time.monotonic()
    if opts.install_deps:
        for python in opts.python:
            install_deps(python, opts.src, opts.extra_dep)
    migration_file = opts.work / "migration.json"
    if opts.keep and migration_file.exists():
        migration = json.loads(migration_file.read_text())
    else:
        if opts.work.exists():
            shutil.rmtree(opts.work)
        opts.work.mkdir(parents=True)
        ignore = shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache", "*.pyc")
        for copy in ("before", "after"):
            shutil.copytree(opts.src, opts.work / copy, ignore=ignore, symlinks=True)
        log("migrating after/")
        migration = migrate(opts.work / "after", opts.into, opts.work)
        migration_file.write_text(json.dumps(migration, indent=1))
    (opts.work / "plugin").mkdir(exist_ok=True)
    (opts.work / "plugin" / "unseen_outcomes.py").write_text(PLUGIN)
    results = [compare(python, opts) for python in opts.python]
    show(migration, results, opts.src)
    total = round(time.monotonic() - started)
    print(f"\nharness: {total} s")
    if opts.json:
        opts.json.write_text(json.dumps({"migration": migration, "results": results,
                                         "seconds": total}, indent=1))
    return 1 if any(x["verdict"] != "flaky" for r in results for x in r["lost"]) else 0


if __name__ == "__main__":
    sys.exit(main())
