"""A mapping of handler lists whose key is the point (``keyed: true``), and item assignment."""

from __future__ import annotations

from pathlib import Path

from .helpers import scan_tree

PACK = """
pack: spec
mechanisms:
  - id: spec_hooks
    dispatcher: app.spec.Spec
    register:
      - method: pre
        handler: {arg: 1}
        fixed_point: PRE
      - append: hooks
        keyed: true
      - setitem: by_name
    classify:
      - id: spec_hooks.error
        when: {point: ["error:*"]}
        plane: needs_review
        because: error buckets are never read
      - plane: interceptor
        because: every other bucket runs inside the call
"""

SPEC = """
class Spec:
    def __init__(self):
        self.hooks: dict[str, list] = {}
        self.by_name: dict[str, object] = {}

    def pre(self, name, handler):
        self.hooks.setdefault(f"pre:{name}", []).append(handler)  # the API's own plumbing
        return self
"""

USE = """
from app.spec import Spec

def guard(call):
    return call

spec = Spec().pre("read", guard)
spec.hooks.setdefault("security_pre:*", []).insert(0, guard)
spec.hooks["error:read"].append(guard)
spec.hooks["post:read"] += [guard]
spec.by_name["audit"] = guard
"""


def test_buckets_and_items_are_registrations_and_the_api_body_is_not(tmp_path: Path) -> None:
    pack = tmp_path / "pack.yaml"
    pack.write_text(PACK)
    result = scan_tree(tmp_path / "tree", {"app/spec.py": SPEC, "app/use.py": USE},
                       packs=(pack,), demo=False)
    found = [(r.file, r.line, r.api, r.point, r.plane) for r in result.registrations]
    assert found == [
        ("app/use.py", 6, "pre", "PRE", "interceptor"),
        ("app/use.py", 7, "hooks.insert", "security_pre:*", "interceptor"),
        ("app/use.py", 8, "hooks.append", "error:read", "needs_review"),
        ("app/use.py", 9, "hooks +=", "post:read", "interceptor"),
        ("app/use.py", 10, "by_name[]", "audit", "interceptor"),
    ]
