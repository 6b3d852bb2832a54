"""Owners: [tool.planeshift] owners first (last match wins), else CODEOWNERS as GitHub reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from planeshift.config import Config
from planeshift.owners import OwnerTable, Owners, compile_rule, parse_codeowners

from .helpers import HAZARD, lint_project, module, write_project


def _table(lines: list[tuple[str, str]], github: bool) -> OwnerTable:
    return OwnerTable(Path("/repo"), [compile_rule(p, o, github) for p, o in lines])


@pytest.mark.parametrize(("pattern", "path", "owned"), [
    ("*", "a/b/c.py", True),
    ("*.py", "deep/down/x.py", True),
    ("/docs/", "docs/a/b.md", True),
    ("/docs/", "src/docs/a.md", False),
    ("apps/", "src/apps/x/y.py", True),
    ("lionagi/hooks/**", "lionagi/hooks/bus.py", True),
    ("lionagi/hooks/**", "lionagi/hooks_other.py", False),
    ("**/logs", "a/b/logs/x.txt", True),
    ("src/app.py", "src/app.py", True),
    ("src/app.py", "other/src/app.py", False),
    ("docs/*", "docs/getting-started.md", True),
    ("docs/*", "docs/build-app/troubleshooting.md", False),  # GitHub: "docs/*" is not recursive
])
def test_codeowners_patterns(pattern: str, path: str, owned: bool) -> None:
    table = _table([(pattern, "@team")], github=True)
    assert (table.owner(Path("/repo") / path) == "@team") is owned


def test_gitignore_style_star_covers_a_folder_below() -> None:
    table = _table([("docs/*", "@docs")], github=False)
    assert table.owner(Path("/repo/docs/build-app/troubleshooting.md")) == "@docs"


def test_last_match_wins_and_a_bare_pattern_unowns() -> None:
    text = """
    # comment line
    *                 @everyone
    /lionagi/hooks/   @hooks-team @alice   # inline comment
    /lionagi/hooks/generated/
    """
    table = OwnerTable(Path("/repo"), [compile_rule(p, o, True) for p, o in parse_codeowners(text)])
    assert table.owner(Path("/repo/lionagi/hooks/bus.py")) == "@hooks-team @alice"
    assert table.owner(Path("/repo/lionagi/session.py")) == "@everyone"
    assert table.owner(Path("/repo/lionagi/hooks/generated/x.py")) is None


def _with_codeowners(root: Path, place: str, text: str) -> None:
    (root / ".git").mkdir(exist_ok=True)
    path = root / place
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_github_folder_codeowners_wins_over_the_root_one(tmp_path: Path) -> None:
    _with_codeowners(tmp_path, "CODEOWNERS", "* @root-file\n")
    _with_codeowners(tmp_path, ".github/CODEOWNERS", "* @github-file\n")
    _with_codeowners(tmp_path, "docs/CODEOWNERS", "* @docs-file\n")
    assert Owners(Config(root=tmp_path))("a.py") == "@github-file"


def test_codeowners_paths_are_relative_to_the_repository_top(tmp_path: Path) -> None:
    _with_codeowners(tmp_path, "docs/CODEOWNERS", "/pkg/app/ @app-team\n")
    assert Owners(Config(root=tmp_path / "pkg"))("app/main.py") == "@app-team"


def test_config_owners_come_first_then_codeowners(tmp_path: Path) -> None:
    _with_codeowners(tmp_path, "CODEOWNERS", "* @everyone\n")
    config = Config(root=tmp_path, source=str(tmp_path / "pyproject.toml"),
                    owners=(("app/**", "@app"), ("app/hooks/**", "@hooks-team")))
    owners = Owners(config)
    assert owners("app/hooks/bus.py") == "@hooks-team"
    assert owners("app/main.py") == "@app"
    assert owners("lib/x.py") == "@everyone"


def test_every_finding_carries_its_owner(tmp_path: Path) -> None:
    write_project(tmp_path, {"app/main.py": module(HAZARD)}, 'owners = {"app/**" = "@app-team"}\n')
    (tmp_path / ".git").mkdir()
    (tmp_path / "CODEOWNERS").write_text("*.py @everyone\n")
    result = lint_project(tmp_path, ["app/main.py"])
    assert [f.owner for f in result.findings] == ["@app-team"]
    (tmp_path / "pyproject.toml").write_text("[tool.planeshift]\npacks = ['demo.yaml']\n"
                                              "builtin-packs = []\n")
    result = lint_project(tmp_path, ["app/main.py"])
    assert [f.owner for f in result.findings] == ["@everyone"]


def test_scan_findings_carry_their_owner_even_from_the_cache(tmp_path: Path) -> None:
    """`planeshift scan`'s own findings carry the owner lint shows; owners are settings, so a
    scan answered from the result cache resolves them afresh."""
    from planeshift import api
    from planeshift.config import load_config
    from planeshift.reports.json_report import to_dict

    root = write_project(tmp_path / "tree", {"app/main.py": module(HAZARD)},
                         'owners = {"app/**" = "@app-team"}\n')
    config = load_config(root).with_flags(cache_dir=tmp_path / "cache", jobs=1)
    first = api.scan(config)
    assert [(f.file, f.owner) for f in first.findings if f.rule == "PS101"] == [
        ("app/main.py", "@app-team")]
    assert to_dict(first)["findings"][0]["owner"] == "@app-team"
    moved = api.scan(load_config(root).with_flags(cache_dir=tmp_path / "cache", jobs=1,
                                                  owners=(("app/**", "@new-team"),)))
    assert moved.stats["cache"] == "result"
    assert {f.owner for f in moved.findings if f.file == "app/main.py"} == {"@new-team"}
