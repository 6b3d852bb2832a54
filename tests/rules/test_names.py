"""The rules' name resolver: imports followed through re-exports, relative imports, ancestry."""

from __future__ import annotations

import ast
import textwrap

from planeshift.analyzer.extract.summary import FileSummary
from planeshift.project import ProjectFacts
from planeshift.rules.checks.names import NAMES, Names, names_of


def _names(files: dict[str, str]) -> Names:
    """The resolver over modules given as {path: source} (the facts a scan would extract)."""
    summaries = []
    for path, source in files.items():
        module = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        facts = names_of(ast.parse(textwrap.dedent(source)))
        summaries.append(FileSummary(path, module, False, None, rule_facts=((NAMES, facts),)))
    return Names(ProjectFacts("/", (), (), (), tuple(summaries)))


TREE = {
    "pkg/__init__.py": "from .base import Base as PublicBase\n",
    "pkg/base.py": """
        class Base:
            pass


        class Denied(PermissionError):
            pass
        """,
    "pkg/sub/child.py": """
        from .. import PublicBase
        from ..base import Denied as Refused

        class Child(PublicBase):
            class Inner(Refused):
                pass
        """,
}


def test_a_re_export_resolves_to_the_defining_module() -> None:
    names = _names(TREE)
    assert names.resolve("pkg.sub.child", "PublicBase") == "pkg.base.Base"
    assert names.follow("pkg.PublicBase") == "pkg.base.Base"
    assert names.resolve("pkg.sub.child", "Refused") == "pkg.base.Denied"


def test_ancestry_crosses_modules_and_reaches_builtins() -> None:
    names = _names(TREE)
    assert names.ancestors("pkg.sub.child.Child") == ["pkg.base.Base"]
    assert names.ancestors("pkg.sub.child.Child.Inner") == ["pkg.base.Denied", "PermissionError"]
    assert names.class_of("pkg.PublicBase")[:3] == ("pkg.base", "Base", 2)  # dedented, after a blank line


def test_an_unknown_name_is_returned_as_written() -> None:
    names = _names(TREE)
    assert names.resolve("pkg.sub.child", "os.path") == "os.path"
    assert names.resolve("nowhere", "X") == "X"
    assert names.ancestors("vendor.Thing") == []
