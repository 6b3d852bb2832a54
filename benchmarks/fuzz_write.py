"""A differential fuzz of migrate's write path, for a given time: every rewrite must read back,
be idempotent and keep every byte outside the rewritten spans.

    python benchmarks/fuzz_write.py --minutes 10
    python benchmarks/fuzz_write.py --minutes 1 --only settings --show 3

Each example is one file in a fresh project on the tests' demo bus, drawn in turn from three
sources (tests/guarantees/generated.py): hypothesmith programs with demo-bus registrations put
between their top-level statements; modules of registrations among odd statements (several on a
line, form feeds, NEL, U+2028 inside literals and comments, a BOM, CRLF); and hook settings
files (YAML in block or flow style, JSON pretty or on one line, BOM, CRLF) whose commands hold
random unicode. Each is migrated with --write, then checked (--check must find nothing to do),
then written again (nothing may change). Counted:

- crashes: migrate raised, or reported an internal error;
- unparseable: a written file that no longer compiles (Python) or parses (YAML; JSON through
  ``json.loads``, and as YAML too when the original was readable as YAML);
- non_idempotent: --check after --write finds changes to make, or a second write changes bytes;
- changed_outside: a line whose text the rewrite did not touch changed its bytes (Python), or a
  settings file changed outside the rewritten command spans, or a value other than a rewritten
  command reads back differently;
- argv_differs: a rewritten command's argv differs from the words ``sh`` passes for it (the
  differential against a real shell).

Also shown, not failures: examples per source, files and registrations rewritten, rewrites
refused with a reason, files the scan could not read. The exit status is 1 when any failure
count is not zero.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "src"), str(REPO / "tests")]
warnings.filterwarnings("ignore", category=SyntaxWarning)

REASONS: Counter[str] = Counter()  # why files were listed as errors (not failures: refusals)
FAILURES = ("crashes", "unparseable", "non_idempotent", "changed_outside", "argv_differs")


class TimeUp(KeyboardInterrupt):
    """Ends hypothesis's run at once (no shrinking, no report)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--only", choices=("injected", "module", "settings"), default=None)
    parser.add_argument("--show", type=int, default=5, help="failing inputs printed (stderr)")
    args = parser.parse_args(argv)

    from guarantees.generated import injected, module, settings_file
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    sources = {"injected": injected().map(lambda t: ("injected", "app.py", t)),
               "module": module().map(lambda t: ("module", "app.py", t)),
               "settings": settings_file().map(lambda c: ("settings", c[0], c[1]))}
    strategy = sources[args.only] if args.only else st.one_of(*sources.values())
    counts: Counter[str] = Counter({k: 0 for k in FAILURES})
    shown: list[str] = []
    deadline = time.monotonic() + args.minutes * 60

    @settings(max_examples=10**9, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def one(case: tuple[str, str, str]) -> None:
        if time.monotonic() > deadline:
            raise TimeUp
        source, rel, text = case
        counts[f"examples_{source}"] += 1
        problems = run_one(rel, text, counts)
        for problem in problems:
            counts[problem.split(":")[0]] += 1
        if problems and len(shown) < args.show:
            shown.append(f"{problems}\n{rel}: {text!r}")

    from hypothesis.reporting import with_reporter

    try:
        with with_reporter(lambda *_: None):  # no "reproduce with @seed" for the time limit
            one()
    except TimeUp:
        pass
    for entry in shown:
        print(entry, file=sys.stderr)
    for reason, n in REASONS.most_common(5):
        print(f"error outcome x{n}: {reason}", file=sys.stderr)
    width = max(map(len, counts))
    for key in [*FAILURES, *sorted(k for k in counts if k not in FAILURES)]:
        print(f"{key:<{width}}  {counts[key]}")
    return 1 if any(counts[k] for k in FAILURES) else 0


def run_one(rel: str, text: str, counts: Counter[str]) -> list[str]:
    from analyzer.helpers import DEMO_FILES, DEMO_PACK, write_tree

    from planeshift.codemods import MigrateOptions, migrate
    from planeshift.config import Config

    root = Path(tempfile.mkdtemp(prefix="planeshift-fuzzw-"))
    try:
        write_tree(root, DEMO_FILES)
        (root / "pyproject.toml").write_text("[project]\nname = 'fuzz'\n")
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        before = text.encode("utf-8", "surrogatepass")
        path.write_bytes(before)
        config = Config(root=root, packs=(DEMO_PACK,), builtin_packs=(), use_cache=False, jobs=1,
                        owners=(("**", "@fuzz-team"),))
        try:
            first = migrate(config, MigrateOptions(write=True))
            after = path.read_bytes()
            check = migrate(config, MigrateOptions(check=True))
            again = migrate(config, MigrateOptions(write=True))
        except Exception:  # noqa: BLE001 - counted, with the traceback's last line
            return [f"crashes: {traceback.format_exc().strip().splitlines()[-1]}"]
        mine = [n for n in first.not_migrated if n.file == rel]
        counts["scan_errors"] += sum(e.file == rel for e in first.errors)
        counts["refused"] += sum(not n.error for n in mine)
        counts["error_outcomes"] += sum(n.error for n in mine)
        for n in mine:
            if n.error:
                REASONS[re.sub(r"\d+", "N", n.reason)[:100]] += 1
        counts["registrations_rewritten"] += sum(m.file == rel for m in first.migrated)
        counts["files_rewritten"] += after != before
        problems = [f"crashes: {n.reason}" for n in mine if "internal error" in n.reason]
        if check.pending or any(c.file == rel for c in check.changes):
            problems.append("non_idempotent: --check after --write finds changes")
        if path.read_bytes() != after or again.changes:
            problems.append("non_idempotent: a second write changed the file")
        if after != before:
            if rel.endswith(".py"):
                problems += _python(before, after)
            else:
                problems += _settings(rel, text, after, first)
        return problems
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _python(before: bytes, after: bytes) -> list[str]:
    from guarantees.generated import lines_kept

    try:
        compile(after, "app.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return [f"unparseable: {exc}"]
    bad = lines_kept(before, after, "utf-8")
    return [f"changed_outside: {bad[0]}"] if bad else []


def _settings(rel: str, text: str, after_bytes: bytes, result) -> list[str]:  # type: ignore[no-untyped-def]
    import yaml
    from guarantees.generated import outside_spans_kept

    from planeshift.codemods.support.settings import Document

    after = after_bytes.decode("utf-8")
    bom = 1 if text.startswith("\ufeff") else 0
    try:
        # a JSON file is read as JSON; it must stay readable as YAML too when it was (a raw DEL
        # or C1 character, legal JSON, makes libyaml refuse the original already)
        if not rel.endswith(".json") or _yaml_reads(text[bom:]):
            data = yaml.safe_load(after[bom:])
        if rel.endswith(".json"):
            data = json.loads(after[bom:])
    except Exception as exc:  # noqa: BLE001 - any reader's error is the finding
        return [f"unparseable: {str(exc).splitlines()[0]}"]
    old = json.loads(text[bom:]) if rel.endswith(".json") else yaml.safe_load(text[bom:])
    document = Document(text[bom:], rel)
    spans, expected = [], json.loads(json.dumps(old))  # a deep copy
    problems = []
    for m in (m for m in result.migrated if m.file == rel):
        token = document.command_at(m.line, m.registration.col)
        spans.append((token.start + bom, token.end + bom))
        argv = _sh_words(token.value)
        *parents, last = token.path
        node = expected
        for step in parents:
            node = node[step]
        node[last] = argv
    if not outside_spans_kept(text, after, spans):
        problems.append("changed_outside: text outside the rewritten commands changed")
    if data != expected:
        problems.append("argv_differs: the file does not read back as the commands' sh words")
    return problems


def _yaml_reads(text: str) -> bool:
    import yaml

    try:
        yaml.safe_load(text)
    except yaml.YAMLError:
        return False
    return True


def _sh_words(command: str) -> list[str] | None:
    done = subprocess.run(["sh", "-c", "printf '%s\\0' " + command], capture_output=True,
                          check=False)
    return done.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]


if __name__ == "__main__":
    raise SystemExit(main())
