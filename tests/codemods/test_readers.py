"""A stage is spelled one way whatever the call site wrote (an enum member, a mapping key)."""

from __future__ import annotations

import pytest

from planeshift.codemods.readers import stage


@pytest.mark.parametrize(("point", "spelled"), [
    ("HookPoint.TOOL_PRE", "TOOL_PRE"),
    ("TOOL_PRE", "TOOL_PRE"),
    ("security_pre:*", "SECURITY_PRE"),   # a mapping key of agent_spec_hooks: as the enum has it
    ("SECURITY_PRE", "SECURITY_PRE"),
    ("pytest_configure", "pytest_configure"),  # a point named by a string: as written
    ("lionagi.hooks.bus.HookPoint.API_PRE_CALL", "API_PRE_CALL"),
    ("Topic.orderPlaced", "Topic.orderPlaced"),  # not an enum member's spelling: as written
    ("order.validate", "order.validate"),        # a dotted string value: as written
    ("_Filter(kind)", "_Filter(kind)"),    # an expression the scan could only quote
])
def test_a_point_becomes_one_spelling_of_its_stage(point: str, spelled: str) -> None:
    assert stage(point) == spelled
