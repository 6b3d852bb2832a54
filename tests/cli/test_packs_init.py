"""`planeshift packs init`: a dispatcher class found in the code, drafted as a pack that reads
back, finds the class's registrations, and carries the policy read from its loop."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from planeshift.cli import cli

BUS = """\
import logging
from collections import defaultdict

log = logging.getLogger(__name__)


class Hub:
    def __init__(self):
        self._handlers = defaultdict(list)
        self._always = []

    def on(self, event, handler):
        self._handlers[event].append(handler)

    def fire(self, event, payload):
        for handler in [*self._handlers.get(event, []), *self._always]:
            try:
                handler(payload)
            except Exception:
                log.exception("handler failed")


class Settings:
    def __init__(self):
        self.values = {}
"""

APP = """\
from shop.hub import Hub

hub = Hub()


def audit(payload):
    print(payload)


hub.on("paid", audit)
hub._always.append(print)
hub.fire("paid", {})
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "hub.py").write_text(BUS)
    (tmp_path / "shop" / "app.py").write_text(APP)
    return tmp_path


def init(project: Path, *args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["packs", "init", str(project), "--no-cache", *map(str, args)])


def test_the_candidates_are_listed(project: Path) -> None:
    result = init(project)
    assert result.exit_code == 0, result.output
    assert result.output == "shop.hub.Hub  register: on  emit: fire\n"


def test_the_draft_names_the_forms_and_the_policy_read_from_the_loop(project: Path) -> None:
    result = init(project, "--dispatcher", "Hub")
    assert result.exit_code == 0, result.output
    assert textwrap.dedent("""\
        pack: shop
        package: shop
        mechanisms:
          - id: hub
            title: Hub
            dispatcher: shop.hub.Hub
            register:
              - method: "on"
                point: {arg: 0, keyword: event}
                handler: {arg: 1, keyword: handler}
              - append: _always
            emit:
              - method: fire
                point: {arg: 0, keyword: event}
        """) in result.output
    assert "      concurrency: sequential\n      failure: isolate\n" in result.output
    assert "        failure: Hub.fire: except Exception: log.exception" in result.output


def test_a_scan_with_the_draft_finds_the_registrations(project: Path, tmp_path: Path) -> None:
    draft = tmp_path / "draft.yaml"
    assert init(project, "--dispatcher", "shop.hub.Hub", "-o", draft).exit_code == 0
    result = CliRunner().invoke(cli, ["scan", str(project), "--no-cache", "--no-builtin-packs",
                                      "--pack", str(draft), "--format", "json"])
    assert '"api": "on"' in result.output and '"point": "paid"' in result.output
    assert '"plane": "needs_review"' in result.output  # the planes are the user's to decide


def test_no_dispatcher_class_is_exit_1(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "app.py").write_text("def f():\n    return 1\n")
    result = init(tmp_path)
    assert result.exit_code == 1
    assert "no dispatcher class found" in result.output


def test_an_unknown_dispatcher_names_the_candidates(project: Path) -> None:
    result = init(project, "--dispatcher", "Settings")
    assert result.exit_code == 1
    assert "candidates: shop.hub.Hub" in result.output
