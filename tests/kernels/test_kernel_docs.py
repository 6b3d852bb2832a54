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
