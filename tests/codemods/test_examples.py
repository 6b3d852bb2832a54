"""Every codemod's documented before/after examples, migrated for real, and each is idempotent."""

from __future__ import annotations

from pathlib import Path

import pytest

from planeshift.codemods import all_codemods

from .helpers import check_transformed

CODEMODS = all_codemods()
EXAMPLES = [(c, i, ex) for c in CODEMODS for i, ex in enumerate(c.EXAMPLES)]
# the codemods an example runs with: decisions needs the adapter `registration` writes, and
# owner_table the fan-out owner_dispatch writes
WITH = {"decisions": ("registration", "decisions"), "owner_table": ("owner_dispatch", "owner_table"),
        "owner_declarations": ("owner_dispatch", "owner_declarations")}
PACKS = Path(__file__).resolve().parents[1] / "fixtures" / "packs"


@pytest.mark.parametrize(("codemod", "index", "example"), EXAMPLES,
                         ids=[f"{c.id}-{i}" for c, i, _ in EXAMPLES])
def test_example_becomes_its_after_and_a_second_run_changes_nothing(
        tmp_path: Path, codemod, index, example) -> None:
    pack = {"pack": PACKS / example.pack} if example.pack else {}
    result = check_transformed(tmp_path, example.before, example.after,
                               WITH.get(codemod.id, (codemod.id,)), path=example.path,
                               convert_discard=example.convert_discard, owners=codemod.owner,
                               **pack)
    assert any(m.codemod == codemod.id for m in result.migrated)


def test_every_codemod_has_an_id_a_description_and_examples() -> None:
    assert len({c.id for c in CODEMODS}) == len(CODEMODS) >= 6
    assert "owner_declarations" in {c.id for c in CODEMODS}
    for codemod in CODEMODS:
        assert codemod.id and codemod.DESCRIPTION and codemod.EXAMPLES, codemod.id
