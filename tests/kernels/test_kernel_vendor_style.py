"""The vendored kernels pass the target's own formatter and linter: lionagi's ruff configuration
(line length 100, its rule selection) reports nothing on the copy, and the layout is one ruff's
formatter keeps at every line length the copy is declared for (FORMATTED_FOR)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from planeshift.cli.kernels import kernels as kernels_group
from planeshift.vendor import FORMATTED_FOR, LONGEST_LINE, style_notes, vendor_kernels

LIONAGI_RUFF = Path(__file__).parents[1] / "fixtures" / "lionagi_ruff" / "pyproject.toml"
needs_ruff = pytest.mark.skipif(importlib.util.find_spec("ruff") is None,
                                reason="ruff is not installed (the test extra installs it)")


def _ruff(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ruff", *args, "--no-cache"], cwd=root,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def lionagi_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lionagi_style")
    shutil.copy(LIONAGI_RUFF, root / "pyproject.toml")
    (root / "lionagi").mkdir()
    (root / "lionagi" / "__init__.py").write_text("")
    vendor_kernels(root / "lionagi" / "runtime" / "dispatch", "lionagi.runtime.dispatch")
    return root


@needs_ruff
def test_vendored_kernels_pass_lionagis_ruff_format_and_check(lionagi_copy: Path) -> None:
    formatted = _ruff(lionagi_copy, "format", "--check", "--diff", "lionagi/runtime")
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr
    checked = _ruff(lionagi_copy, "check", "--output-format", "concise", "lionagi/runtime")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # Also with the two rules lionagi turns off (line length, assert) turned back on.
    strict = _ruff(lionagi_copy, "check", "--extend-select", "E501,S101", "--output-format",
                   "concise", "lionagi/runtime")
    assert strict.returncode == 0, strict.stdout + strict.stderr


@needs_ruff
@pytest.mark.parametrize("line_length", sorted({*FORMATTED_FOR, 100}))
def test_the_kernels_layout_is_what_ruff_format_writes_at_each_supported_length(
        lionagi_copy: Path, line_length: int) -> None:
    formatted = _ruff(lionagi_copy, "format", "--check", "--diff", "--line-length",
                      str(line_length), "lionagi/runtime")
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr


def test_no_vendored_line_is_longer_than_declared(lionagi_copy: Path) -> None:
    files = sorted((lionagi_copy / "lionagi" / "runtime").rglob("*.py"))
    assert len(files) > 10
    longest = max(len(line) for f in files for line in f.read_text().splitlines())
    assert longest <= LONGEST_LINE


def test_style_notes_say_what_the_targets_formatter_would_change() -> None:
    assert style_notes(100, '"') == []
    assert style_notes(88, '"', "pyproject.toml")[0].startswith(
        "the target's line length is 88 (pyproject.toml); a few message strings")
    (short,) = style_notes(79, '"')
    assert "laid out for 88 to 120, so its formatter will reformat them" in short
    (single,) = style_notes(120, "'")
    assert "single quotes" in single


def test_vendor_command_prints_the_style_notes(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nrequires-python = ">=3.11"\n[tool.ruff]\nline-length = 79\n'
        '[tool.ruff.format]\nquote-style = "single"\n')
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    result = CliRunner().invoke(kernels_group, ["vendor", "--into", str(tmp_path / "app" / "k")])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if line.startswith("style: ")]
    assert len(notes) == 2 and "line length is 79" in notes[0] and "single quotes" in notes[1]
