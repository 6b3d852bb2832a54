"""The README and docs/ stay true: their Python examples run, the README's two set-up commands
are the CI's, it stays a short front page, and every relative link leads somewhere."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
GENERATED = ("docs/rules/", "docs/codemods/")  # fixtures, run by tests/rules and tests/codemods
EXAMPLES = [(rel, code) for page in PAGES
            if not (rel := page.relative_to(REPO).as_posix()).startswith(GENERATED)
            for code in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)]
README_LINES = 300  # the front page: what it does, a quick start, the command table, links


@pytest.mark.parametrize("code", [c for _, c in EXAMPLES if "planeshift.kernels" in c],
                         ids=[p for p, c in EXAMPLES if "planeshift.kernels" in c])
def test_kernel_example_runs(code: str) -> None:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr


def test_the_kernel_examples_are_collected() -> None:
    assert sum("planeshift.kernels" in c for _, c in EXAMPLES) >= 2


def test_ci_runs_the_readme_test_command() -> None:
    command = "python -m pip install -e '.[test]' && python -m pytest"
    assert command in README
    assert command in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def test_readme_first_command_scans_the_bundled_example() -> None:
    assert "python -m pip install . && planeshift scan examples/legacy_app" in README
    assert (REPO / "examples" / "legacy_app" / "pyproject.toml").is_file()


def test_the_readme_stays_a_front_page() -> None:
    """The reference lives in docs/; the README is a quick start and the way in."""
    assert len(README.splitlines()) <= README_LINES


def test_every_docs_page_is_reached_from_the_readme() -> None:
    """Following relative links from README.md reaches every page under docs/."""
    reached, todo = set(), [PAGES[0].resolve()]
    while todo:
        page = todo.pop()
        if page in reached or page.suffix != ".md" or not page.is_file():
            continue
        reached.add(page)
        todo += [(page.parent / path).resolve() for path, _ in links(page.read_text()) if path]
    assert [p.relative_to(REPO).as_posix() for p in PAGES if p.resolve() not in reached] == []


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces
    to `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def without_code(text: str) -> str:
    text = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(text: str) -> list[tuple[str, str]]:
    """The relative links of a markdown text: (path, anchor), web and mail links left out."""
    found = []
    for target in re.findall(r"\]\(([^)\s]+)\)", without_code(text)):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        found.append((path, anchor))
    return found


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(REPO).as_posix() for p in PAGES])
def test_every_relative_link_leads_to_a_file_and_its_heading(page: Path) -> None:
    broken = []
    for path, anchor in links(page.read_text(encoding="utf-8")):
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(f"{path}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target):
            broken.append(f"{path}#{anchor}: no such heading")
    assert broken == []


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "a.md"
    page.write_text("# Title\n\n[ok](a.md#title) [gone](b.md) [bad](a.md#nowhere) "
                    "`[code](c.md)` [web](https://example.com/x)\n", encoding="utf-8")
    assert links(page.read_text()) == [("a.md", "title"), ("b.md", ""), ("a.md", "nowhere")]
    assert anchors(page) == {"title"}
