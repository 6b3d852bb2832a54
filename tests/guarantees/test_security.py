"""planeshift never imports or runs the code it reads (the tree's, a library's in its context),
never runs a settings file's commands, loads YAML safely so a rule pack cannot run code, keeps
its caches and configured outputs inside the project, and never writes through a symbolic link
that leads out of it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from analyzer.helpers import DEMO_BUS, DEMO_PACK

from .helpers import APP, PACK_FLAGS, process, project


def trap(marker: Path, name: str) -> str:
    """Python that leaves *marker*/*name* behind when it is imported or run."""
    return f"open({str(marker / name)!r}, 'w').close()\n"


def planted(root: Path, marker: Path) -> Path:
    """A tree where importing or running anything leaves a marker: modules shadowing what
    planeshift imports, start-up hooks, the code under analysis itself, a library in the
    project's .venv (read as context), a .pth file, and hook settings with commands."""
    site = ".venv/lib/python3.11/site-packages"
    files = {
        name: trap(marker, name) for name in (
            "yaml.py", "click.py", "networkx.py", "rich.py", "json.py", "tomllib.py",
            "hashlib.py", "sitecustomize.py", "usercustomize.py", "conftest.py", "setup.py",
            "noxfile.py", "__main__.py", "planeshift_plugin.py")
    }
    files |= {
        "libcst/__init__.py": trap(marker, "libcst"),
        "app.py": trap(marker, "app.py") + APP,
        "demo/__init__.py": trap(marker, "demo/__init__.py"),
        "demo/bus.py": DEMO_BUS + trap(marker, "demo/bus.py"),
        f"{site}/ctxlib/__init__.py": trap(marker, "ctxlib") + "from .bus import EventBus\n",
        f"{site}/ctxlib/bus.py": DEMO_BUS + trap(marker, "ctxlib/bus.py"),
        f"{site}/ctxlib-1.0.dist-info/METADATA": "Name: ctxlib\nVersion: 1.0\n",
        f"{site}/evil.pth": "import os; " + trap(marker, "evil.pth"),
        "consumer.py": "from ctxlib import EventBus\n\n\ndef on(**p):\n    pass\n\n\n"
                       "EventBus().subscribe(on)\n",
        ".demo/hooks.yaml": (f"hooks:\n  - command: \"touch {marker}/hook_command_ran\"\n"
                             f"extra: !!python/object/apply:os.system [\"touch {marker}/tag\"]\n"),
        ".demo/hooks.json": f'{{"hooks": [{{"command": "touch {marker}/json_hook_ran"}}]}}\n',
    }
    project(root, files)
    pack = DEMO_PACK.read_text().replace("pack: demo\n", "pack: ctx\npackage: ctxlib\n", 1)
    (root / "ctx.yaml").write_text(pack.replace("demo.bus.", "ctxlib.bus.")
                                   .replace("id: demo_bus", "id: ctx_bus"))
    return root


@pytest.mark.parametrize("args", [
    ["scan", ".", "--format", "json", *PACK_FLAGS],
    ["scan", ".", "--format", "json", "--pack", "ctx.yaml", "--no-builtin-packs"],
    ["lint", "--format", "sarif", *PACK_FLAGS],
    ["baseline", "-o", "baseline.json", *PACK_FLAGS],
    ["migrate", "--write", *PACK_FLAGS],
    ["migrate", "--check", "--pack", "ctx.yaml", "--no-builtin-packs"],
    ["packs"],
    ["explain", "PS101"],
], ids=lambda a: "-".join(x for x in a[:3] if not x.startswith("/")))
def test_no_code_it_reads_is_ever_imported_or_run(tmp_path: Path, args: list[str]) -> None:
    marker = tmp_path / "markers"
    marker.mkdir()
    root = planted(tmp_path / "tree", marker)
    run = process(args, cwd=root)  # from inside the tree, as pre-commit and an editor run it
    assert run.code in (0, 1), run.stderr
    run.assert_clean_stderr()
    assert sorted(os.listdir(marker)) == []
    if args[0] == "scan" and "ctx.yaml" in args:  # the library was read as context, not run
        assert '"package": "ctxlib"' in run.stdout and '"version": "1.0"' in run.stdout


def test_a_rule_pack_cannot_run_code(tmp_path: Path) -> None:
    marker = tmp_path / "markers"
    marker.mkdir()
    root = project(tmp_path / "tree")
    for i, payload in enumerate([
        f'!!python/object/apply:os.system ["touch {marker}/system"]',
        f'!!python/object/new:subprocess.Popen [["touch", "{marker}/popen"]]',
        '!!python/name:os.system',
        f'!!python/object/apply:builtins.exec ["open(\'{marker}/exec\', \'w\')"]',
    ]):
        (root / f"evil{i}.yaml").write_text(f"pack: evil\nmechanisms: {payload}\n")
        run = process(["scan", ".", "--pack", f"evil{i}.yaml", "--no-builtin-packs"], cwd=root)
        assert run.code == 2 and "could not determine a constructor for the tag" in run.stderr
        assert run.stderr.count("\n") == 1 and f"evil{i}.yaml" in run.stderr
    assert os.listdir(marker) == []


def test_a_cache_folder_linked_out_of_the_tree_is_not_used(tmp_path: Path) -> None:
    outside = tmp_path / "home"
    (outside / "facts-0000-keep").mkdir(parents=True)  # what pruning would delete there
    root = project(tmp_path / "tree")
    (root / ".planeshift_cache").symlink_to(outside)
    run = process(["scan", ".", "--format", "json", *PACK_FLAGS], cwd=root)
    assert run.code == 0
    assert "planeshift: warning: cache disabled: " in run.stderr and "leads outside" in run.stderr
    assert sorted(os.listdir(outside)) == ["facts-0000-keep"]


@pytest.mark.parametrize(("key", "value"), [("cache-dir", "../elsewhere"),
                                            ("baseline", "/tmp/planeshift-baseline.json"),
                                            ("baseline", "sub/../../x.json")])
def test_settings_cannot_send_a_write_out_of_the_project(tmp_path: Path, key: str,
                                                         value: str) -> None:
    root = project(tmp_path / "tree", settings=f'{key} = "{value}"\n')
    for args in (["scan", ".", *PACK_FLAGS], ["baseline", *PACK_FLAGS]):
        run = process(args, cwd=root)
        assert run.code == 2
        assert f"pyproject.toml: tool.planeshift.{key}: '{value}' leads outside" in run.stderr
    assert sorted(os.listdir(tmp_path)) == ["tree"]


def test_the_flags_may_put_the_cache_and_reports_anywhere(tmp_path: Path) -> None:
    root = project(tmp_path / "tree")
    run = process(["lint", "--cache-dir", str(tmp_path / "cache"), "-o",
                   str(tmp_path / "report.txt"), *PACK_FLAGS], cwd=root)
    assert run.code == 0, run.stderr
    assert (tmp_path / "report.txt").is_file() and (tmp_path / "cache").is_dir()
