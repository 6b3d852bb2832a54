"""The examples in docs/kernels.md run as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import planeshift

DOC = Path(__file__).resolve().parents[2] / "docs" / "kernels.md"
EXAMPLES = (
    re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL) if DOC.exists() else []
)


@pytest.mark.skipif(not EXAMPLES, reason="docs/kernels.md not present")
@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_docs_example_runs(index: int) -> None:
    src = str(Path(planeshift.__file__).resolve().parents[1])
    result = subprocess.run(
        [sys.executable, "-c", EXAMPLES[index]],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": src},
    )
    assert result.returncode == 0, result.stderr
    expected = re.findall(r"# (\[.*\]|\{.*\}|tool not allowed)$", EXAMPLES[index], re.MULTILINE)
    for line in expected:
        assert line in result.stdout


# The rules ADR-0120 D2 itself lists (policy construction, selectors, interceptor plans); every
# other rule id the kernels can raise is planeshift's addition and must be named in the docs.
ADR_RULES = frozenset(
    {
        "raise-group-requires-collect",
        "raise-group-requires-await-all",
        "unwrap-group-requires-collect",
        "unwrap-group-completion",
        "log-only-requires-isolate",
        "gather-requires-by-return-value",
        "gather-requires-async-entry",
        "gather-requires-returned-awaitables-stage",
        "returned-awaitables-stage-forbidden",
        "by-return-value-requires-classifier",
        "declared-selector-requires-by-declaration",
        "deadline-requires-disposition",
        "phases-empty",
        "selector-overlap",
        "selector-incomplete",
        "name-duplicate",
        "stage-undeclared",
    }
)


def test_every_rule_planeshift_adds_is_listed_in_the_docs() -> None:
    """ADR-0120 D2: "Policy construction validates combinations." ... "and a finite deadline must
    name a non-absent deadline disposition." Whatever the kernels refuse beyond the ADR's own list
    (an infinite deadline, a disposition without a deadline, ...) is documented as planeshift's.
    """
    kernels_dir = Path(planeshift.__file__).resolve().parent / "kernels"
    raised = {
        rule
        for module in kernels_dir.glob("*.py")
        for rule in re.findall(r'\(\s*"([a-z]+(?:-[a-z0-9]+)+)",', module.read_text(encoding="utf-8"))
    }
    assert ADR_RULES <= raised  # the scan still sees the ADR's rules, so it sees the others too
    listed = DOC.read_text(encoding="utf-8").split("Rules planeshift adds to the ADR's list", 1)[1]
    missing = sorted(rule for rule in raised - ADR_RULES if f"`{rule}`" not in listed)
    assert not missing, f"docs/kernels.md does not list {missing}"
