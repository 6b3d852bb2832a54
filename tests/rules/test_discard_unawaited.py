"""PS101 discard_unawaited: the enumeration ADR-0120 D2 gates the flip on, each site with an owner."""

from __future__ import annotations

from pathlib import Path

from planeshift.api import owned
from planeshift.config import Config

from analyzer.helpers import scan_tree

SOURCE = """
    from demo.bus import EventBus


    async def send(payload):
        return payload


    def log(payload):
        print(payload)


    bus = EventBus(on_event=[lambda payload: send(payload), log])
    """


def test_every_site_is_enumerated_with_the_owner_of_its_file(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "CODEOWNERS").write_text("/app/ @app-team\n")
    result = scan_tree(tmp_path, {"app/main.py": SOURCE, "lib/other.py": SOURCE})
    got = sorted((f.file, f.severity, f.owner) for f in result.findings if f.rule == "PS101")
    assert got == [("app/main.py", "error", "@app-team"), ("app/main.py", "info", "@app-team"),
                   ("lib/other.py", "error", None), ("lib/other.py", "info", None)]


def test_config_owners_come_before_codeowners(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "CODEOWNERS").write_text("* @everyone\n")
    result = scan_tree(tmp_path, {"app/main.py": SOURCE})
    config = Config(root=tmp_path, owners=(("app/**", "@app-team"),))
    assert {f.owner for f in owned(result, config).findings if f.rule == "PS101"} == {"@app-team"}
    assert {f.owner for f in result.findings if f.file == "demo/bus.py"} <= {"@everyone"}
