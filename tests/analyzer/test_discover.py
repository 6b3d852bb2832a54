"""Discovery: .gitignore semantics, --exclude, module names, and settings files."""

from __future__ import annotations

import subprocess
from pathlib import Path

from planeshift.analyzer.discover import IgnoreRules, discover


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def rels(root: Path, **kwargs) -> list[str]:
    return [f.rel for f in discover(root, **kwargs)]


def test_gitignore_patterns_follow_git(tmp_path: Path) -> None:
    write(tmp_path, {
        ".gitignore": "build/\n*.gen.py\n/top_only.py\n!keep.gen.py\n",
        "app/a.py": "", "app/x.gen.py": "", "app/keep.gen.py": "", "top_only.py": "",
        "app/top_only.py": "", "build/b.py": "", "app/build/c.py": "",
    })
    assert rels(tmp_path) == ["app/a.py", "app/keep.gen.py", "app/top_only.py"]


def test_nested_gitignore_applies_below_its_folder(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/.gitignore": "generated.py\n", "pkg/generated.py": "", "generated.py": ""})
    assert rels(tmp_path) == ["generated.py"]


def test_no_gitignore_scans_everything_but_tool_folders(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "*.py\n", "a.py": "", ".venv/lib.py": "", "__pycache__/x.py": ""})
    assert rels(tmp_path) == []
    assert rels(tmp_path, use_gitignore=False) == ["a.py"]


def test_gitignore_above_the_scan_root_in_the_same_repository(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    write(tmp_path, {".gitignore": "fixtures/\n", "src/app.py": "", "src/fixtures/f.py": ""})
    assert rels(tmp_path / "src") == ["app.py"]


def test_exclude_uses_the_same_pattern_language(tmp_path: Path) -> None:
    write(tmp_path, {"a/b.py": "", "a/tests/t.py": "", "c_pb2.py": "", "d.py": ""})
    assert rels(tmp_path, exclude=("tests/", "*_pb2.py")) == ["a/b.py", "d.py"]


def test_module_names_come_from_package_folders(tmp_path: Path) -> None:
    write(tmp_path, {
        "src/pkg/__init__.py": "", "src/pkg/sub/__init__.py": "", "src/pkg/sub/mod.py": "",
        "scripts/tool.py": "", "not-a-package/x.py": "",
    })
    names = {f.rel: (f.module, f.is_package) for f in discover(tmp_path)}
    assert names["src/pkg/sub/mod.py"] == ("pkg.sub.mod", False)
    assert names["src/pkg/sub/__init__.py"] == ("pkg.sub", True)
    assert names["scripts/tool.py"] == ("tool", False)


def test_a_file_no_import_can_name_is_a_script_named_by_its_path(tmp_path: Path) -> None:
    write(tmp_path, {"run-hooks.py": "", "sp ace.py": "", "scripts/run-hooks.py": "",
                     "pkg/__init__.py": "", "pkg/a.b.py": "", "my-pkg/__init__.py": ""})
    names = {f.rel: (f.module, f.is_package) for f in discover(tmp_path)}
    assert names["run-hooks.py"] == ("run-hooks", False)
    assert names["sp ace.py"] == ("sp ace", False)
    assert names["scripts/run-hooks.py"] == ("scripts/run-hooks", False)
    assert names["pkg/a.b.py"] == ("pkg/a.b", False)  # never the dotted name `pkg.a.b`
    assert names["my-pkg/__init__.py"] == ("my-pkg", True)
    assert all(module for module, _ in names.values())
    single = discover(tmp_path / "run-hooks.py")
    assert [(f.rel, f.module) for f in single] == [("run-hooks.py", "run-hooks")]


def test_namespace_packages_get_dotted_names(tmp_path: Path) -> None:
    """A folder without __init__.py above a regular package is a PEP 420 namespace portion;
    `src` stays a source root, and a folder of plain modules its own sys.path entry."""
    write(tmp_path, {
        "acme/cloud/storage/__init__.py": "", "acme/cloud/storage/hooks.py": "",
        "acme/cloud/tool.py": "", "src/acme/plugins/__init__.py": "",
        "src/acme/plugins/bus.py": "", "scripts/tool.py": "",
    })
    names = {f.rel: (f.module, f.is_package) for f in discover(tmp_path)}
    assert names["acme/cloud/storage/hooks.py"] == ("acme.cloud.storage.hooks", False)
    assert names["acme/cloud/storage/__init__.py"] == ("acme.cloud.storage", True)
    assert names["acme/cloud/tool.py"] == ("acme.cloud.tool", False)
    assert names["src/acme/plugins/bus.py"] == ("acme.plugins.bus", False)
    assert names["scripts/tool.py"] == ("tool", False)


def test_scanning_a_package_folder_keeps_full_module_names(tmp_path: Path) -> None:
    write(tmp_path, {"lib/__init__.py": "", "lib/hooks/__init__.py": "", "lib/hooks/bus.py": ""})
    found = {f.rel: f.module for f in discover(tmp_path / "lib")}
    assert found["hooks/bus.py"] == "lib.hooks.bus"


def test_settings_files_are_collected_by_pattern(tmp_path: Path) -> None:
    write(tmp_path, {
        ".lionagi/settings.yaml": "", "proj/.lionagi/settings.yaml": "", "settings.yaml": "",
        "a.py": "",
    })
    found = rels(tmp_path, settings=("**/.lionagi/settings.yaml",))
    assert found == [".lionagi/settings.yaml", "a.py", "proj/.lionagi/settings.yaml"]


def test_ignore_rules_last_match_wins() -> None:
    rules = IgnoreRules()
    rules.add_lines(["*.log", "!important.log", "logs/**/debug"], "")
    assert rules.ignored("a/x.log", False)
    assert not rules.ignored("a/important.log", False)
    assert rules.ignored("logs/2026/11/debug", False)
