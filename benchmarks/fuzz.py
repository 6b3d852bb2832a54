"""The long run of the property tests (tests/guarantees/test_properties.py): the same properties
with many more examples and fresh random seeds each time.

    python benchmarks/fuzz.py                      # 1000 examples per property (~10 min)
    python benchmarks/fuzz.py --examples 200 -k positions

The suite runs each property on 40 fixed examples; this script draws new ones every run, so run
it after touching the extractor, the link or a codemod. A failure prints the smallest program
that breaks the property and a ``@reproduce_failure`` line to pin it in the test file.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=1000, help="examples per property")
    parser.add_argument("-k", default="", help="only the properties whose name matches")
    args = parser.parse_args(argv)
    env = {**os.environ, "PLANESHIFT_FUZZ_EXAMPLES": str(args.examples),
           "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "--hypothesis-show-statistics",
               str(REPO / "tests" / "guarantees" / "test_properties.py")]
    if args.k:
        command += ["-k", args.k]
    return subprocess.call(command, cwd=REPO, env=env)


if __name__ == "__main__":
    raise SystemExit(main())
