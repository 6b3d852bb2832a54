"""The dataclass methods a one-shot process compiles are kept between runs (``method_cache``):
a class made through the cache is the class a fresh compile makes, and a file that is not the
cache's own is compiled around."""

from __future__ import annotations

import dataclasses
import marshal
import subprocess
import sys
from pathlib import Path

import pytest

from planeshift import method_cache
from planeshift.method_cache import MethodCache, reuse_compiled_methods


@pytest.fixture
def restore_exec():
    yield
    if "exec" in vars(dataclasses):
        del dataclasses.exec  # type: ignore[attr-defined]


def make_point() -> type:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Point:
        x: int
        y: int = 0
        tags: tuple[str, ...] = dataclasses.field(default=(), compare=False)

    return Point


def test_a_class_made_through_the_cache_behaves_as_a_fresh_one(tmp_path: Path,
                                                               restore_exec) -> None:
    cache = reuse_compiled_methods(tmp_path / "m")
    Point = make_point()
    assert cache.new >= 5  # __init__, __repr__, __eq__, __hash__, __setattr__, __delattr__
    p = Point(1, tags=("a",))
    assert p == Point(1) and hash(p) == hash(Point(1))
    assert repr(p) == "make_point.<locals>.Point(x=1, y=0, tags=('a',))"
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 2  # type: ignore[misc]
    assert dataclasses.replace(p, y=3) == Point(1, 3)


def test_the_next_run_compiles_nothing_it_kept(tmp_path: Path, restore_exec,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "deep" / "m"
    first = reuse_compiled_methods(path)
    make_point()
    first.save()
    second = reuse_compiled_methods(path)
    Point = make_point()
    assert (second.new, Point(2, 1)) == (0, Point(2, 1))
    assert second.modules[__name__] == first.modules[__name__]


def test_nothing_is_written_where_python_writes_no_bytecode(
        tmp_path: Path, restore_exec, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache = reuse_compiled_methods(tmp_path / "m")
    make_point()
    cache.save()
    assert not (tmp_path / "m").exists()


def _written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A module's file as a run writes it."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    cache = reuse_compiled_methods(tmp_path / "m")
    make_point()
    cache.save()
    return tmp_path / "m" / f"{__name__}.marshal"


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:]


@pytest.mark.parametrize("damage", ["another build", "a flipped byte", "cut short",
                                    "a table of the wrong types", "not marshal at all"])
def test_a_file_not_whole_or_not_of_this_build_is_compiled_around(
        tmp_path: Path, restore_exec, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    path = _written(tmp_path, monkeypatch)
    data = path.read_bytes()
    head = len(method_cache._HEADER)
    if damage == "another build":
        data = b"3.0.0 another interpreter|cpython-30\n" + data[head:]
    elif damage == "a flipped byte":
        data = _flip(data, len(data) // 2)
    elif damage == "cut short":
        data = data[: len(data) - 7]
    elif damage == "a table of the wrong types":  # whole, and of this build, but not code
        import hashlib

        table = marshal.dumps({"def f(): pass": 42})
        data = method_cache._HEADER + hashlib.sha256(table).digest() + table
    else:
        data = b"not marshal at all"
    path.write_bytes(data)
    cache = reuse_compiled_methods(tmp_path / "m")
    Point = make_point()
    assert cache.new >= 5 and Point(1) == Point(1)


def test_only_source_text_is_looked_up() -> None:
    cache = MethodCache(Path("/nonexistent/m"))
    ns: dict = {}
    cache.exec(compile("x = 1", "<t>", "exec"), {"__name__": "m"}, ns)
    cache.exec("y = 2", {}, ns)  # globals naming no module: compiled as exec compiles
    assert (ns, cache.new) == ({"x": 1, "y": 2}, 0)
    cache.exec("z = 3", {"__name__": "m"}, ns)  # (any arguments exec takes are handed on)
    assert (ns["z"], cache.new) == (3, 1)


def test_the_cache_is_in_the_users_cache_folder(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    """Not in the install: ``pip uninstall`` would leave it behind, a namespace package."""
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert method_cache.cache_path().parent == tmp_path / "planeshift"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert method_cache.cache_path().parent == Path.home() / ".cache" / "planeshift"
    monkeypatch.setattr(sys, "pycache_prefix", "/tmp/prefix")
    assert method_cache.cache_path().is_relative_to("/tmp/prefix")


def test_the_console_process_keeps_the_methods_it_compiled(tmp_path: Path) -> None:
    """``python -m planeshift`` writes the file under ``PYTHONPYCACHEPREFIX`` and reads it back."""
    env = {"PYTHONPYCACHEPREFIX": str(tmp_path), "PATH": "/usr/bin:/bin"}
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "m.py").write_text("x = 1\n")
    cmd = [sys.executable, "-m", "planeshift", "scan", str(tmp_path / "tree"), "--no-cache",
           "--no-context", "--format", "json", "-o", str(tmp_path / "out.json")]
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    [kept] = tmp_path.rglob("dataclass-methods.*/planeshift.types.marshal")
    assert kept.read_bytes().startswith(method_cache._HEADER)
    assert any("def __init__(" in text for text in method_cache._read(kept))
