"""check_transformed / check_noop: a module (with the tests' demo bus) migrated for real."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path
from typing import Any

from analyzer.helpers import DEMO_FILES, DEMO_PACK, write_tree

from planeshift.codemods import migrate
from planeshift.codemods.facts import MigrateOptions
from planeshift.codemods.model import MigrateResult
from planeshift.config import Config

# demo/bus.py's EventBus.emit awaits what a handler returns; this one drops it (the scan reads the
# disposition from the dispatcher's code where it is in view, so a pack edit alone would not do)
AWAITING = ("            result = handler(**payload)\n"
            "            if inspect.isawaitable(result):\n                await result\n")
DISCARDING_BUS = DEMO_FILES["demo/bus.py"].replace(AWAITING, "            handler(**payload)\n")
assert DISCARDING_BUS != DEMO_FILES["demo/bus.py"]


def discarding_pack(folder: Path, convert: str | None = None) -> Path:
    """The demo pack with demo_bus declared as DISCARDING_BUS reads (else PS108 calls it stale),
    and with *convert* as demo_bus's convert_discard template."""
    text = DEMO_PACK.read_text().replace(
        "      returned_awaitable: await_in_invocation\n      deadline: none\n      evidence: "
        "demo/bus.py EventBus.emit",
        "      returned_awaitable: discard_unawaited\n      deadline: none\n      evidence: "
        "demo/bus.py EventBus.emit", 1)
    if convert is not None:
        text = text.replace("      policy: demo_bus\n",
                            f'      policy: demo_bus\n      convert_discard: "{convert}"\n', 1)
    folder.mkdir(parents=True, exist_ok=True)
    pack = folder / "pack.yaml"
    pack.write_text(text)
    return pack


def flat(text: str) -> str:
    """*text* with the formatter's line breaks folded (a call split one argument a line reads
    as the one line it was before layout), for assertions on what a rewrite says."""
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"([(\[{]) ", r"\1", text)
    return re.sub(r",? ([)\]}])", r"\1", text)


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def run(root: Path, codemods: tuple[str, ...] = (), write: bool = True, pack: Path = DEMO_PACK,
        **options: Any) -> MigrateResult:
    config = Config(root=root, packs=(pack,), builtin_packs=(), use_cache=False, jobs=1,
                    owners=(("**", "@demo-team"),))
    return migrate(config, MigrateOptions(select=codemods, write=write, **options))


def check_transformed(tmp_path: Path, before: str, after: str, codemods: tuple[str, ...] = (),
                      path: str = "app.py", files: dict[str, str] | None = None,
                      **options: Any) -> MigrateResult:
    """Migrate *before* (written to *path* next to the demo bus) and compare with *after*, which
    must parse; a second run must change nothing."""
    expected = dedent(after)
    if path.endswith(".py"):
        ast.parse(expected)
    write_tree(tmp_path, {**DEMO_FILES, **(files or {}), path: dedent(before)})
    result = run(tmp_path, codemods, **options)
    assert not result.failed, [n for n in result.not_migrated if n.error]
    actual = (tmp_path / path).read_text(encoding="utf-8")
    assert actual == expected, "\n" + "".join(c.diff for c in result.changes)
    again = run(tmp_path, codemods, **options)
    assert again.changes == (), "not idempotent:\n" + "".join(c.diff for c in again.changes)
    return result


def check_noop(tmp_path: Path, before: str, codemods: tuple[str, ...] = (), path: str = "app.py",
               files: dict[str, str] | None = None, **options: Any) -> MigrateResult:
    """Nothing in *before* is migrated: the file stays byte for byte as it was."""
    write_tree(tmp_path, {**DEMO_FILES, **(files or {}), path: dedent(before)})
    original = (tmp_path / path).read_bytes()
    result = run(tmp_path, codemods, **options)
    assert result.changes == ()
    assert (tmp_path / path).read_bytes() == original
    return result
