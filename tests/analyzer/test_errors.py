"""Bad files: a file that cannot be read as Python is an entry in ``errors``; the run goes on."""

from __future__ import annotations

from pathlib import Path

from .helpers import line_of, one, scan_tree, show

GOOD = """
from demo.bus import EventBus, Point


def guard(**payload):
    return True


bus = EventBus()
bus.on(Point.BEFORE, guard)
"""

# each bad file mentions the vocabulary, so the site pass would want it
SYNTAX_ERROR = """
from demo.bus import EventBus, Point

bus = EventBus()
bus.on(Point.AFTER, lambda **p: None

def broken(:
    pass
"""
INVALID_UTF8 = b"from demo.bus import EventBus\nbus = EventBus()\nname = '\xff\xfe caf\xe9'\n"
BOGUS_COOKIE = (
    b"# -*- coding: no-such-codec -*-\nfrom demo.bus import EventBus\nEventBus().on(1, 2)\n"
)


def error_for(result, rel: str) -> str:
    found = [e.message for e in result.errors if e.file == rel]
    assert len(found) == 1, show(result)
    return found[0]


def assert_good_file_still_scanned(result) -> None:
    reg = one(result, file="good.py")
    assert (reg.line, reg.point, reg.plane) == (line_of(GOOD, "bus.on("), "BEFORE", "interceptor")


def test_syntax_error_is_reported_with_its_line(tmp_path: Path) -> None:
    result = scan_tree(tmp_path, {"good.py": GOOD, "broken.py": SYNTAX_ERROR})
    message = error_for(result, "broken.py")
    assert "syntax error" in message.lower()
    assert "line 4" in message or "line 6" in message, message
    assert_good_file_still_scanned(result)


def test_invalid_utf8_is_reported(tmp_path: Path) -> None:
    result = scan_tree(tmp_path, {"good.py": GOOD, "latin.py": INVALID_UTF8})
    message = error_for(result, "latin.py")
    assert "decode" in message and "utf-8" in message.lower(), message
    assert "0xff" in message, message
    assert_good_file_still_scanned(result)


def test_bogus_coding_cookie_is_reported(tmp_path: Path) -> None:
    result = scan_tree(tmp_path, {"good.py": GOOD, "cookie.py": BOGUS_COOKIE})
    message = error_for(result, "cookie.py")
    assert "no-such-codec" in message and "encoding" in message, message
    assert_good_file_still_scanned(result)


def test_all_bad_files_together_in_a_package(tmp_path: Path) -> None:
    files = {
        "pkg/good.py": GOOD,
        "pkg/broken.py": SYNTAX_ERROR,
        "pkg/latin.py": INVALID_UTF8,
        "pkg/cookie.py": BOGUS_COOKIE,
    }
    result = scan_tree(tmp_path, files)
    assert [e.file for e in result.errors] == ["pkg/broken.py", "pkg/cookie.py", "pkg/latin.py"]
    assert all(e.message for e in result.errors)
    assert one(result, file="pkg/good.py").point == "BEFORE"
    assert result.files_scanned == 2 + 5  # the demo bus and its package, then pkg/ and its files


def test_declared_latin1_file_is_decoded_and_columns_count_characters(tmp_path: Path) -> None:
    source = (
        "# -*- coding: latin-1 -*-\n"
        "from demo.bus import EventBus, Point\n"
        "bus = EventBus()\n"
        "caf\xe9 = 1; bus.on(Point.AFTER, print)\n"
    ).encode("latin-1")
    result = scan_tree(tmp_path, {"latin.py": source})
    assert result.errors == (), show(result)
    reg = one(result, file="latin.py")
    assert (reg.line, reg.col, reg.point) == (4, len("caf\xe9 = 1; "), "AFTER")


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    source = b"\xef\xbb\xbf" + GOOD.lstrip("\n").encode("utf-8")
    result = scan_tree(tmp_path, {"good.py": source})
    assert result.errors == (), show(result)
    assert_good_file_still_scanned(result)
