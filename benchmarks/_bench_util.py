"""Helpers for bench_scan.py: the corpus, timed subprocesses with peak memory, trees, tables.

Run as a script (``python _bench_util.py parse-only TREE``) it is the LibCST parse-only baseline:
it parses every file planeshift would discover under TREE in one process and prints JSON.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
FIXIT_VERSION = "2.2.1"
# A separate venv: fixit 2.2.1 pins click<8.2, and installing it into the project's venv would
# downgrade the click that planeshift runs on (and that other engineers' tests use).
FIXIT_VENV = REPO / ".corpus" / f"fixit-{FIXIT_VERSION}-venv"
MB = 1024 * 1024


@dataclass
class Timed:
    """One timed subprocess: wall seconds and peak memory in bytes."""

    seconds: float
    returncode: int
    max_rss: int  # largest single process of the tree (wait4 ru_maxrss)
    peak_pss: int = 0  # largest sampled sum of PSS over the process tree (0: not sampled)
    stats: dict[str, Any] = field(default_factory=dict)
    stdout: str = ""
    cpu: float = 0.0  # user + system seconds of the process and the helpers it waited for


# -- corpus and trees ---------------------------------------------------------------------------


def fetch_corpus() -> Path:
    """lionagi 0.36.0's ``lionagi/`` package: installed by the test extra, else the pinned sdist
    fetched (once) into ``<repo>/.corpus`` (see tests/corpus/source.py)."""
    sys.path.insert(0, str(REPO / "tests" / "corpus"))
    try:
        from source import lionagi_package
    finally:
        sys.path.pop(0)
    return lionagi_package()


def compile_package() -> str:
    """Write planeshift's bytecode, as installing a wheel does: with PYTHONDONTWRITEBYTECODE set
    (this sandbox sets it) an editable install would recompile every module on every run, about
    0.1 s that no installed user pays and that the LibCST baseline, already compiled, does not."""
    import compileall

    import planeshift
    from planeshift.method_cache import cache_path

    folder = Path(planeshift.__file__).parent
    compileall.compile_dir(folder, quiet=1)
    # and the dataclass methods a user's first run of each command keeps (method_cache.py):
    # every module of planeshift imported once, in a process writing bytecode as a user's does
    prime = ("import importlib, pkgutil, planeshift\n"
             "from planeshift.method_cache import reuse_compiled_methods\n"
             "methods = reuse_compiled_methods()\n"
             "for info in pkgutil.walk_packages(planeshift.__path__, 'planeshift.'):\n"
             "    if not info.name.endswith('__main__'):\n"
             "        importlib.import_module(info.name)\n"
             "import libcst\n"
             "methods.save()\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", prime], env=env, check=True)
    return f"bytecode written for {folder}; dataclass methods kept in {cache_path()}"


def python_files(tree: Path) -> list[Path]:
    """The files planeshift scans under *tree*, in its own discovery order."""
    from planeshift.analyzer.discover import discover

    return [f.path for f in discover(tree)]


def copy_package(tree: Path, dest: Path, name: str) -> Path:
    """Copy *tree* to ``dest/name`` without caches; nothing inside is rewritten."""
    target = dest / name
    ignore = shutil.ignore_patterns("__pycache__", ".planeshift_cache")
    shutil.copytree(tree, target, ignore=ignore)
    return target


def scaled_tree(tree: Path, dest: Path, factor: int) -> Path:
    """A folder holding *factor* copies of *tree*: ``<name>``, ``<name>_copy1``, ..."""
    dest.mkdir(parents=True)
    for i in range(factor):
        copy_package(tree, dest, tree.name if i == 0 else f"{tree.name}_copy{i}")
    return dest


# -- timed subprocesses -------------------------------------------------------------------------


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue  # the process ended while we looked
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(entry.name))
    return kids


def _pss(pid: int) -> int:
    """Proportional set size in bytes: shared (forked) pages count once across the tree."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return 0  # the process ended between listing and reading
    return 0


def tree_pss(root: int) -> int:
    kids = _children()
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += _pss(pid)
        todo.extend(kids.get(pid, ()))
    return total


def run_timed(cmd: list[str], sample_memory: bool = False, interval: float = 0.1) -> Timed:
    """Run *cmd*, timing it from spawn to exit; optionally poll the tree's memory."""
    sampling = sample_memory and Path("/proc/self/smaps_rollup").exists()
    peak = 0
    # stdout to a file: a pipe could fill up and stall a chatty child (fixit)
    with tempfile.TemporaryFile(mode="w+") as sink:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.DEVNULL, text=True)
        while True:
            # wait4 (not Popen.wait) so the child's own rusage, with ru_maxrss, comes back
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG if sampling else 0)
            if pid:
                break
            peak = max(peak, tree_pss(proc.pid))
            time.sleep(interval)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        sink.seek(0)
        stdout = sink.read()
    return Timed(seconds, proc.returncode, usage.ru_maxrss * 1024, peak, stdout=stdout,
                 cpu=usage.ru_utime + usage.ru_stime)


def scan(tree: Path, cache_dir: Path, out: Path, sample_memory: bool = False,
         extra: tuple[str, ...] = ()) -> Timed:
    """``planeshift scan`` as a user runs it, with its startup; stats read from the report."""
    cmd = [sys.executable, "-m", "planeshift", "scan", str(tree), "--format", "json",
           "-o", str(out), "--cache-dir", str(cache_dir), *extra]
    timed = run_timed(cmd, sample_memory)
    if timed.returncode not in (0, 1):  # 1 = some files skipped, still a complete scan
        raise RuntimeError(f"planeshift scan exited {timed.returncode}: {' '.join(cmd)}")
    report = json.loads(out.read_text(encoding="utf-8"))
    timed.stats = {**report.get("stats", {}), "files": report["summary"]["files_scanned"]}
    return timed


def lint(tree: Path, cache_dir: Path, out: Path, files: list[Path]) -> Timed:
    """``planeshift lint`` on *files* as pre-commit runs it (one process, startup included);
    the scan's stats read back from the planeshift.lint/1 report."""
    cmd = [sys.executable, "-m", "planeshift", "lint", "--root", str(tree), "--format", "json",
           "-o", str(out), "--cache-dir", str(cache_dir), *map(str, files)]
    timed = run_timed(cmd)
    if timed.returncode not in (0, 1):  # 1 = findings in the files: the gate worked
        raise RuntimeError(f"planeshift lint exited {timed.returncode}: {' '.join(cmd)}")
    report = json.loads(out.read_text(encoding="utf-8"))
    timed.stats = {**report.get("stats", {}), "files": len(files)}
    return timed


def migrate_check(root: Path, cache_dir: Path, out: Path) -> Timed:
    """``planeshift migrate --check`` of the project at *root* (one process, startup included);
    its stats read back from the planeshift.migrate/1 report."""
    cmd = [sys.executable, "-m", "planeshift", "migrate", "--root", str(root), "--check",
           "--format", "json", "-o", str(out), "--cache-dir", str(cache_dir)]
    timed = run_timed(cmd)
    if timed.returncode not in (0, 1):  # 1 = changes pending: what --check reports
        raise RuntimeError(f"planeshift migrate exited {timed.returncode}: {' '.join(cmd)}")
    report = json.loads(out.read_text(encoding="utf-8"))
    timed.stats = {**report.get("stats", {}), "cache": report["stats"].get("scan_cache"),
                   "files": report["stats"].get("files_parsed")}
    return timed


def parse_only(tree: Path) -> Timed:
    """The LibCST floor: the in-process parse loop's seconds (startup and imports excluded)."""
    timed = run_timed([sys.executable, __file__, "parse-only", str(tree)])
    report = json.loads(timed.stdout)
    timed.seconds, timed.cpu, timed.stats = report.pop("seconds"), report.pop("cpu"), report
    return timed


def _parse_only_main(tree: Path) -> None:
    import libcst

    files = python_files(tree)
    errors = 0
    started, cpu = time.perf_counter(), time.process_time()
    for path in files:
        try:
            libcst.parse_module(path.read_bytes())
        except libcst.ParserSyntaxError:
            errors += 1
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(json.dumps({"seconds": seconds, "cpu": cpu, "files": len(files),
                      "syntax_errors": errors}))


def profile_scan(tree: Path, work: Path, top: int = 15) -> str:
    """cProfile of one cold scan with ``--jobs 1`` (every file extracted in this one process, so
    the profile sees all the work; the timed cold runs use every core): the whole run, startup
    and imports included, as the *top* functions by own time and the phases by cumulative time."""
    import io
    import pstats

    stats_file, out = work / "cold.prof", work / "profile-report.json"
    cmd = [sys.executable, "-m", "cProfile", "-o", str(stats_file), "-m", "planeshift", "scan",
           str(tree), "--format", "json", "-o", str(out), "--cache-dir",
           str(work / "profile-cache"), "--jobs", "1"]
    subprocess.run(cmd, check=False, capture_output=True)
    stats = pstats.Stats(str(stats_file), stream=(buffer := io.StringIO()))
    stats.strip_dirs().sort_stats("tottime").print_stats(top)
    # the whole run: the outermost call's cumulative time (own times summed miss the profiler's
    # own bookkeeping between calls)
    total = max(cum for (_, _, _, cum, _) in stats.stats.values())  # type: ignore[attr-defined]
    phases = []
    for (file, _, name), (_, _, _, cum, _) in stats.stats.items():  # type: ignore[attr-defined]
        label = PHASES.get((file, name))
        if label:
            phases.append((cum, label))
    order = list(PHASES.values())
    phases.sort(key=lambda p: order.index(p[1]))
    main = next((cum for cum, label in phases if label == order[0]), total)
    lines = [f"{'start-up and imports':<50} {total - main:7.3f} s  {(total - main) / total:6.1%}",
             *(f"{label:<50} {cum:7.3f} s  {cum / total:6.1%}" for cum, label in phases)]
    body = buffer.getvalue()
    body = body[body.index("ncalls"):] if "ncalls" in body else body
    return "\n".join(["phases (cumulative seconds under the profiler, of "
                      f"{total:.3f} s in all):", *lines, "", f"top {top} by own time:", body])


# (file, function) of the profile -> the phase it stands for; cumulative times nest
PHASES = {
    ("__init__.py", "main"): "the command, after start-up and imports",
    ("pool.py", "all"): "  extraction (every file, cache writes included)",
    ("~", "<built-in method builtins.compile>"): "    ast.parse (with the re-extraction's)",
    ("symbols.py", "collect_symbols"): "    symbol walk (names, sites, dispatch loops)",
    ("__init__.py", "file_facts"): "    hazard rules' per-file facts",
    ("codec.py", "dumps"): "    cache encoding (marshal rows)",
    ("caches.py", "put_bytes"): "    cache writes",
    ("run.py", "link"): "  link (with the files re-extracted for it)",
    ("pool.py", "again"): "    re-extraction under a widened vocabulary",
    ("__init__.py", "run_checks"): "  hazard checks",
    ("store.py", "keep"): "  cache keep (result, link snapshot)",
    ("scan.py", "_render"): "  report rendering",
}


# -- fixit --------------------------------------------------------------------------------------


def ensure_fixit() -> tuple[Path | None, str]:
    """The fixit executable of a dedicated venv (created on first use), or None and why."""
    exe = FIXIT_VENV / "bin" / "fixit"
    if exe.exists():
        return exe, f"fixit {FIXIT_VERSION} from {FIXIT_VENV}"
    try:
        subprocess.run([sys.executable, "-m", "venv", str(FIXIT_VENV)], check=True,
                       capture_output=True)
        subprocess.run([str(FIXIT_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet",
                        f"fixit=={FIXIT_VERSION}"], check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(FIXIT_VENV, ignore_errors=True)
        detail = (exc.stderr or "").strip().splitlines()[-1:] or [str(exc)]
        return None, f"fixit {FIXIT_VERSION} could not be installed: {detail[0]}"
    return exe, f"fixit {FIXIT_VERSION} installed into {FIXIT_VENV}"


def fixit_lint(exe: Path, tree: Path) -> Timed:
    """``fixit lint TREE`` with its default rules; it exits non-zero when it reports anything."""
    return run_timed([str(exe), "lint", str(tree)])


# -- numbers and tables -------------------------------------------------------------------------


def summary(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(headers, *rows)]

    def line(cells: list[str]) -> str:
        return "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, rows)])


def machine() -> dict[str, Any]:
    import platform

    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 0
    return {"cpus": cpus, "python": platform.python_version(), "platform": platform.platform()}


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "parse-only":
        raise SystemExit("usage: _bench_util.py parse-only TREE")
    _parse_only_main(Path(sys.argv[2]))
