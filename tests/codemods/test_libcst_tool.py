"""A codemod runs as a LibCST command too: `python -m libcst.tool codemod registration.RegistrationCodemod`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from analyzer.helpers import DEMO_FILES, DEMO_PACK, write_tree

CONFIG = """\
generated_code_marker: "@generated"
formatter: []
blacklist_patterns: []
modules:
  - planeshift.codemods
repo_root: .
"""


def test_libcst_tool_runs_a_codemod_which_scans_its_project_itself(tmp_path: Path) -> None:
    write_tree(tmp_path, {**DEMO_FILES, "app.py": '''
        from demo.bus import EventBus


        def audit(**payload):
            return None


        EventBus().subscribe(audit)
        EventBus().subscribe(lambda: print("unused"))
        '''})
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.planeshift]\npacks = ["{DEMO_PACK.as_posix()}"]\nbuiltin-packs = []\n')
    (tmp_path / ".libcst.codemod.yaml").write_text(CONFIG)
    command = [sys.executable, "-m", "libcst.tool", "codemod", "--no-format",
               "registration.RegistrationCodemod", "app.py"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "Transformed 1 files successfully" in done.stderr
    text = (tmp_path / "app.py").read_text()
    assert "from planeshift.kernels.adapters import Subscription, as_subscriber\n" in text
    assert ('EventBus().subscribe(as_subscriber(Subscription(name="app.audit", '
            'policy="demo_bus", handler=audit)))') in text
    again = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert "Skipped 1 files" in again.stderr and (tmp_path / "app.py").read_text() == text
