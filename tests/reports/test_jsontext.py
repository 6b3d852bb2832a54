"""The indented JSON writer is ``json.dumps(indent=2, ensure_ascii=False, default=str)`` to the
byte, on any value the reports could hold and on the odd ones they could not."""

from __future__ import annotations

import enum
import json
from pathlib import PurePosixPath
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planeshift.reports.jsontext import dumps_indented

from .sample import empty_result, sample_result


class Level(enum.IntEnum):
    HIGH = 3


class Tag(str):
    pass


def stdlib(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(), st.sampled_from([Level.HIGH, Tag("t\u2028é"), PurePosixPath("a/b"), -0.0, 10**40]),
)
keys = st.one_of(st.text(), st.integers(), st.booleans(), st.none(),
                 st.floats(allow_nan=False, allow_infinity=True))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(keys, inner, max_size=4)),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(values)
def test_same_text_as_the_standard_library(value: Any) -> None:
    assert dumps_indented(value, default=str) == stdlib(value)


@pytest.mark.parametrize("value", [{(1, 2): 3}, [object()]])
def test_what_the_standard_library_refuses_is_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        stdlib(value) if isinstance(value, dict) else json.dumps(value, indent=2)
    with pytest.raises(TypeError):
        dumps_indented(value, default=str if isinstance(value, dict) else None)


def test_a_report_is_written_as_before() -> None:
    from planeshift.reports.json_report import to_dict

    for result in (sample_result(), empty_result()):
        assert dumps_indented(to_dict(result), default=str) == stdlib(to_dict(result))
