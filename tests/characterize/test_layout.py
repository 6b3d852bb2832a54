"""Line layout of the generated module: the right-hand split ruff format applies."""

from __future__ import annotations

from planeshift.characterize.layout import layout


def test_a_short_line_is_left_alone() -> None:
    assert layout('    seen = observe(S, Sync("h1"))') == ['    seen = observe(S, Sync("h1"))']


def test_call_arguments_that_fit_go_on_one_indented_line() -> None:
    line = ('    seen = observe(TERMINAL_CALLBACK_REGISTRY_EMIT, Blocking("h1"), '
            'Blocking("h2"), budget=0.2)')
    assert len(line) > 88
    assert layout(line) == [
        "    seen = observe(",
        '        TERMINAL_CALLBACK_REGISTRY_EMIT, Blocking("h1"), Blocking("h2"), budget=0.2',
        "    )",
    ]


def test_arguments_that_do_not_fit_take_a_line_each_with_a_trailing_comma() -> None:
    line = ('    seen = observe(SCHEDULER_SIGNAL_BUS_EMIT, Sync("h1", raises="error"), '
            'Sync("h2", raises="error"), Sync("h3"))')
    assert layout(line) == [
        "    seen = observe(",
        "        SCHEDULER_SIGNAL_BUS_EMIT,",
        '        Sync("h1", raises="error"),',
        '        Sync("h2", raises="error"),',
        '        Sync("h3"),',
        "    )",
    ]


def test_a_split_list_literal_takes_a_line_per_item() -> None:
    line = ('    assert seen.trace == ["h1 entered", "h1 cancelled", "h2 entered", '
            '"h2 cancelled", "emit"]')
    assert len(line) > 88
    assert layout(line) == ["    assert seen.trace == [", '        "h1 entered",',
                            '        "h1 cancelled",', '        "h2 entered",',
                            '        "h2 cancelled",', '        "emit",', "    ]"]


def test_a_lone_long_argument_is_hugged_and_a_lone_parameter_exploded() -> None:
    reason = "x" * 90
    assert layout(f'@pytest.mark.skip(reason="{reason}")') == [
        "@pytest.mark.skip(", f'    reason="{reason}"', ")"]
    name = "test_" + "n" * 80
    assert layout(f"def {name}(kind: str):") == [f"def {name}(", "    kind: str,", "):"]
    assert layout(f"def {name}():") == [f"def {name}():"]  # nothing to split


def test_brackets_inside_strings_are_not_split_points() -> None:
    line = '    assert seen.logged == ["h1 (first)", "h2 [second]"]  ' + "#" * 60
    assert layout(line) == [line]  # the only pair does not close the line
