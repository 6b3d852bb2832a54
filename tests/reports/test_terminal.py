"""The rich terminal report and the progress bar: smoke tests over a recorded console."""

from __future__ import annotations

import io

from rich.console import Console

from planeshift.reports.terminal import (
    SITE_COLUMNS,
    fit_widths,
    make_progress,
    render_terminal,
)

from .sample import empty_result, sample_result


def _render(details: bool, result=None) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=120, color_system=None)
    render_terminal(result or sample_result(), console, details)
    return buffer.getvalue()


def test_summary_names_root_counts_and_nonzero_planes_only() -> None:
    text = _render(details=False)
    assert "/repo" in text and "5 files" in text and "4 registrations" in text
    assert "0.25s" in text
    for column in ("mechanism", "dispatcher", "total", "interceptor", "subscriber", "review"):
        assert column in text
    assert "delivery" not in text and "commit" not in text
    assert "HookBus" in text and "Broadcaster +1" in text


def test_summary_points_to_details_for_skipped_files() -> None:
    text = _render(details=False)
    assert "1 file skipped — run with --details" in text
    assert "app/broken.py" not in text
    assert "2 findings (1 error, 1 warning) — run with --details" in text


def test_details_list_every_site_and_skipped_file() -> None:
    text = _render(details=True)
    for site in ("app/hooks.py:12", "app/hooks.py:20", "app/session.py:40", "app/session.py:44"):
        assert site in text
    assert "guard (app.hooks.guard)" in text
    assert "discard_unawaited" in text
    assert "app/broken.py" in text and "syntax error (line 3)" in text
    assert "run with --details" not in text


def test_markup_in_handler_text_is_printed_literally() -> None:
    text = _render(details=True)
    assert "handlers[name]" in text


def test_empty_result_renders() -> None:
    assert "0 registrations" in _render(details=True, result=empty_result())


def test_narrow_console_moves_the_dispatcher_under_its_mechanism() -> None:
    buffer = io.StringIO()
    render_terminal(sample_result(), Console(file=buffer, width=60, color_system=None), False)
    text = buffer.getvalue()
    assert "(dispatcher)" in text and "(HookBus)" in text and "(Broadcaster +1)" in text
    assert "interceptor" in text and "subscriber" in text and "review" in text
    assert max(len(line) for line in text.splitlines()) <= 60 and "…" not in text


def test_site_columns_shrink_widest_first_but_never_the_location() -> None:
    rows = [("lionagi/agent/context_fold.py:417", "on", "API_PRE_CALL", "x" * 90, "subscriber",
             "high", "dormant_point")]
    wide = fit_widths(rows, 200)
    assert wide[0] == len(rows[0][0]) and wide[2] == len("API_PRE_CALL")
    narrow = fit_widths(rows, 80)  # too narrow for a table: the caller lists the sites instead
    assert narrow[0] == len(rows[0][0]) and sum(narrow) + len(narrow) + 1 > 80
    assert all(size >= least for size, (_, least, _) in zip(narrow, SITE_COLUMNS))
    medium = fit_widths(rows, 140)
    assert sum(medium) + len(medium) + 1 == 140
    assert medium[0] == len(rows[0][0]) and medium[2] == len("API_PRE_CALL")
    assert medium[3] < 64  # the handler, widest, gave way


def test_details_on_an_80_column_terminal_list_one_site_per_line() -> None:
    buffer = io.StringIO()
    render_terminal(sample_result(), Console(file=buffer, width=80, color_system=None), True)
    lines = buffer.getvalue().splitlines()
    assert "app/hooks.py:12:4  hookbus  interceptor  guard (app.hooks.guard)  point=TOOL_PRE" in lines
    assert "    activated at app/main.py:30 (setup)" in lines
    at = lines.index("app/session.py:44:8  broadcaster  subscriber  lambda m: send(m) | 1")
    assert lines[at + 1] == "    [discard_unawaited]"  # wrapped under the location, not cut


def test_details_on_a_wide_terminal_are_a_table() -> None:
    buffer = io.StringIO()
    render_terminal(sample_result(), Console(file=buffer, width=120, color_system=None), True)
    assert max(len(line) for line in buffer.getvalue().splitlines()) <= 120
    assert "confidence" in buffer.getvalue() and "flags" in buffer.getvalue()


def test_progress_appears_only_for_large_scans() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, width=80, force_terminal=True)
    bar, callback = make_progress(console)
    with bar:
        for done in range(11):
            callback(done, 10)
    assert buffer.getvalue() == ""
    bar, callback = make_progress(console)
    with bar:
        for done in range(0, 201, 50):
            callback(done, 200)
    assert "200" in buffer.getvalue()


def test_library_registrations_the_tree_activates() -> None:
    summary, wide = _render(details=False), _render(details=True)
    assert "Activates 1 library registration (1 call) — run with --details" in summary
    assert "lionagi/session/observer.py" not in summary
    library = wide.split("Library registrations activated here", 1)[1]
    assert "lionagi/session/observer.py:594" in library and "_persist" in library
    assert ("lionagi/session/observer.py:594 is activated at app/main.py:31 "
            "(bind_db_persistence, by name)") in library
    buffer = io.StringIO()
    render_terminal(sample_result(), Console(file=buffer, width=80, color_system=None), True)
    narrow = buffer.getvalue().split("Library registrations activated here", 1)[1]
    assert "lionagi/session/observer.py:594:18  hookbus  subscriber  _persist\n" in narrow
    assert "\n    (lionagi.session.observer.SessionObserver.bind_db_persistence._persist)\n" \
        in narrow
    assert "    activated at app/main.py:31 (bind_db_persistence, by name)" in narrow
