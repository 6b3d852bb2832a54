"""The [tool.planeshift] keys lint reads: severity, fail-on, baseline, owners; strict errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from planeshift.config import ConfigError, load_config

from .helpers import HAZARD, lint_project, module, open_findings, write_project


def _config(tmp_path: Path, table: str):
    (tmp_path / "pyproject.toml").write_text(f"[tool.planeshift]\n{table}\n")
    return load_config(tmp_path)


def test_lint_keys_are_read(tmp_path: Path) -> None:
    config = _config(tmp_path, """
severity = {PS103 = "info", PS107 = "off"}
fail-on = "error"
baseline = "ci/planeshift-baseline.json"
owners = {"lionagi/hooks/**" = "@hooks-team", "lionagi/**/*.py" = "@core"}
""")
    assert config.severity == (("PS103", "info"), ("PS107", "off"))
    assert config.fail_on == "error"
    assert config.baseline == (tmp_path / "ci" / "planeshift-baseline.json").resolve()
    assert config.owners == (("lionagi/hooks/**", "@hooks-team"), ("lionagi/**/*.py", "@core"))


def test_defaults_without_the_keys(tmp_path: Path) -> None:
    config = _config(tmp_path, "jobs = 1")
    got = (config.severity, config.fail_on, config.baseline, config.owners)
    assert got == ((), "warning", None, ())


@pytest.mark.parametrize(("table", "key", "message"), [
    ('severity = {PS999 = "info"}', "tool.planeshift.severity.PS999", "no such rule"),
    ('severity = {PS101 = "fatal"}', "tool.planeshift.severity.PS101", "expected one of"),
    ('severity = "PS101"', "tool.planeshift.severity", "expected a table"),
    ('fail-on = "never"', "tool.planeshift.fail-on", "expected one of error, warning, info"),
    ("baseline = 3", "tool.planeshift.baseline", "expected a path string"),
    ('owners = ["@team"]', "tool.planeshift.owners", "expected a table"),
    ('owners = {"src/**" = 1}', "tool.planeshift.owners", "expected a table"),
])
def test_bad_values_name_the_file_and_key(tmp_path: Path, table: str, key: str,
                                          message: str) -> None:
    with pytest.raises(ConfigError) as info:
        _config(tmp_path, table)
    assert info.value.key == key
    assert info.value.path == str(tmp_path / "pyproject.toml")
    assert message in info.value.detail


def test_severity_override_changes_and_off_disables(tmp_path: Path) -> None:
    files = {"app/main.py": module(HAZARD)}
    write_project(tmp_path, files, 'severity = {PS101 = "info"}\n')
    result = lint_project(tmp_path)
    assert [f.finding.severity for f in result.open] == ["info"]
    assert not result.failed  # info is below the default fail-on (warning)
    write_project(tmp_path, files, 'severity = {PS101 = "off"}\n')
    assert open_findings(lint_project(tmp_path)) == []


def test_fail_on_from_config_and_overridden(tmp_path: Path) -> None:
    write_project(tmp_path, {"app/main.py": module(HAZARD)}, 'severity = {PS101 = "warning"}\n'
                  'fail-on = "error"\n')
    assert not lint_project(tmp_path).failed
    assert lint_project(tmp_path, fail_on="warning").failed
