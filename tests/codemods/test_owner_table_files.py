"""`owner_table` reads the project's other modules only as the scan listed them: an excluded or
gitignored folder is not read, a file that cannot be read is an error of the run (and keeps the
storage, naming it), and what reaches the list is read as code, not matched as text."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import libcst as cst
import pytest
from analyzer.helpers import write_tree

from planeshift import fsio
from planeshift.codemods import migrate
from planeshift.codemods.facts import MigrateOptions
from planeshift.codemods.model import MigrateResult
from planeshift.codemods.owner.reach import broadcaster
from planeshift.config import Config

from .owner_buses import BEFORE

PACK = Path(__file__).resolve().parents[1] / "fixtures" / "packs" / "owner_buses.yaml"
SRC = Path(__file__).resolve().parents[2] / "src" / "planeshift" / "codemods"
# a module elsewhere that reaches into the bus's handler list
MEDDLER = "from buses.seq_isolate import SeqBus\n\n\ndef drop(bus: SeqBus):\n" \
          "    bus._handlers.clear()\n"


def _run(root: Path, **config: Any) -> MigrateResult:
    return migrate(Config(root=root, packs=(PACK,), builtin_packs=(), use_cache=False, jobs=1,
                          use_context=False, **config), MigrateOptions(owners=True))


def _table(result: MigrateResult) -> list[str]:
    """What owner_table did to SeqBus: "table", or its refusal reason."""
    return ["table" for m in result.migrated if m.codemod == "owner_table"] + \
        [n.reason for n in result.not_migrated if n.codemod == "owner_table"]


def test_a_module_reaching_the_list_keeps_the_storage(tmp_path: Path) -> None:
    write_tree(tmp_path, {"buses/seq_isolate.py": BEFORE["seq_isolate"],
                          "tools/meddle.py": MEDDLER})
    assert _table(_run(tmp_path)) == [(
        "storage kept: `_handlers` is named in tools/meddle.py, which may read or mutate the "
        "list itself")]


@pytest.mark.parametrize("how", ["exclude", "gitignore"])
def test_a_folder_the_scan_leaves_out_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  how: str) -> None:
    write_tree(tmp_path, {"buses/seq_isolate.py": BEFORE["seq_isolate"],
                          "tools/meddle.py": MEDDLER})
    config: dict[str, Any] = {}
    if how == "exclude":
        config["exclude"] = ("tools/",)
    else:
        (tmp_path / ".git").mkdir()
        (tmp_path / ".gitignore").write_text("tools/\n", encoding="utf-8")
    read: list[str] = []
    real = fsio.read_text

    def spy(path: Path, *args: Any, **kwargs: Any) -> str:
        read.append(Path(path).as_posix())
        return real(path, *args, **kwargs)

    monkeypatch.setattr(fsio, "read_text", spy)
    result = _run(tmp_path, **config)
    assert _table(result) == ["table"]
    assert not [p for p in read if "/tools/" in p]
    assert not result.failed


def test_a_file_that_cannot_be_read_is_an_error_of_the_run_and_keeps_the_storage(
        tmp_path: Path) -> None:
    write_tree(tmp_path, {"buses/seq_isolate.py": BEFORE["seq_isolate"]})
    (tmp_path / "buses" / "broken.py").symlink_to("nowhere.py")
    result = _run(tmp_path)
    assert [e.file for e in result.errors] == ["buses/broken.py"]
    assert result.failed
    assert _table(result) == [("storage kept: `_handlers` is named in buses/broken.py (it cannot "
                               "be read, so it might be), which may read or mutate the list "
                               "itself")]


def test_a_mention_in_a_comment_does_not_keep_the_storage(tmp_path: Path) -> None:
    """Read as code: a comment naming the class and the list reaches nothing."""
    write_tree(tmp_path, {"buses/seq_isolate.py": BEFORE["seq_isolate"],
                          "tools/notes.py": "# SeqBus keeps its handlers in ._handlers\nX = 1\n"})
    assert _table(_run(tmp_path)) == ["table"]


def test_a_string_naming_the_list_in_the_owners_module_keeps_the_storage(tmp_path: Path) -> None:
    source = BEFORE["seq_isolate"] + '\n\ndef peek(bus):\n    return getattr(bus, "_handlers")\n'
    write_tree(tmp_path, {"buses/seq_isolate.py": source})
    assert _table(_run(tmp_path)) == [(
        "storage kept: `_handlers` is named in buses/seq_isolate.py outside SeqBus, which may "
        "read or mutate the list itself")]


def test_a_broadcaster_policy_is_found_as_code_whatever_its_spelling() -> None:
    for text, expected in (("P = DispatchPolicy.broadcaster()\n", True),
                           ("P: DispatchPolicy = DispatchPolicy.broadcaster().with_(x=1)\n", True),
                           ("P = DispatchPolicy.sequential()\n", False),
                           ("Q = DispatchPolicy.broadcaster()\n", False),
                           ("def f():\n    P = DispatchPolicy.broadcaster()\n", False)):
        assert broadcaster(cst.parse_module(text), "P") is expected, text


def test_no_codemod_calls_a_private_step_or_matches_code_with_a_regular_expression() -> None:
    """The base's steps (``done``, ``refuse``, ``already``, ``edit``) are the way out of a
    codemod: outside ``base.py`` no ``_record`` is called but a class's own; owner_table's
    modules import no ``re`` and walk no tree themselves."""
    assert _private_calls("class A:\n    def f(self):\n        self.codemod._record(1)\n") \
        == [3]
    assert _private_calls("class A:\n    def _record(self):\n        pass\n"
                          "    def f(self):\n        self._record()\n") == []
    found = [f"{path.relative_to(SRC)}:{line}" for path in sorted(SRC.rglob("*.py"))
             if path.name != "base.py"
             for line in _private_calls(path.read_text(encoding="utf-8"))]
    assert found == []
    for name in ("table", "storage", "reach"):
        tree = ast.parse((SRC / "owner" / f"{name}.py").read_text(encoding="utf-8"))
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert "re" not in imported, name
        assert "rglob" not in ast.unparse(tree), name


def _private_calls(text: str) -> list[int]:
    """The lines reaching a ``_record`` that is not the enclosing class's own method."""
    out = []
    for cls in ast.walk(ast.parse(text)):
        if not isinstance(cls, ast.ClassDef):
            continue
        own = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
        for node in ast.walk(cls):
            if isinstance(node, ast.Attribute) and node.attr == "_record" and not (
                    isinstance(node.value, ast.Name) and node.value.id == "self"
                    and "_record" in own):
                out.append(node.lineno)
    return sorted(set(out))
