"""`planeshift characterize` on the command line: output, summary formats, exit codes, bad input,
and --run-against."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from planeshift.cli import cli

from .helpers import PACK, copy_buses

BROKEN = "class Bus:\n    def emit(self, event)\n        pass\n"


def characterize(root: Path, *args: str | Path) -> Result:
    command = ["characterize", str(root), "--no-builtin-packs", "--pack", str(PACK),
               "--no-cache", "--no-context", "--jobs", "1", *map(str, args)]
    return CliRunner().invoke(cli, command)


def test_writes_the_module_and_a_summary_by_path_and_axis(tmp_path: Path) -> None:
    copy_buses(tmp_path)
    out = tmp_path / "suite" / "test_characterization_generated.py"
    out.parent.mkdir()
    done = characterize(tmp_path / "userbus", "-o", out)
    assert done.exit_code == 0, done.output
    assert out.read_text().startswith('"""Characterization of userbus\'s dispatchers')
    assert "SequentialBus.publish (sequential.py:28): order 1 sync 1" in done.stderr
    assert "store_bus     its constructor needs `db`" in done.stderr
    assert done.stdout == ""


def test_module_goes_to_stdout_without_o(tmp_path: Path) -> None:
    copy_buses(tmp_path)
    done = characterize(tmp_path / "userbus")
    assert done.exit_code == 0
    assert done.stdout.startswith('"""Characterization of userbus')
    assert "planeshift characterize: " in done.stderr


def test_json_summary_lists_tests_per_axis_and_what_was_left_out(tmp_path: Path) -> None:
    copy_buses(tmp_path)
    done = characterize(tmp_path / "userbus", "-o", tmp_path / "t.py", "--format", "json")
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["schema"] == "planeshift.characterize/1"
    assert report["summary"]["paths"] == 10 and report["summary"]["skipped"] == 2
    sequential = report["characterized"][0]["paths"][0]
    assert sequential["entry"] == "SequentialBus.publish"
    assert sequential["tests"]["failure"] == [
        "test_sequential_bus_publish_failure_isolate_one_failure_never_reaches_the_emitter",
        "test_sequential_bus_publish_failure_isolate_several_failures_never_reach_the_emitter",
        "test_sequential_bus_publish_failure_isolate_base_exception_reaches_the_emitter_as_itself"]
    assert {s["mechanism"] for s in report["skipped"]} == {"store_bus", "abstract_bus"}


def test_json_needs_a_file_for_the_module(tmp_path: Path) -> None:
    done = characterize(tmp_path, "--format", "json")
    assert done.exit_code == 2
    assert "--format json writes the summary to stdout: give -o FILE" in done.stderr


def test_nothing_to_characterize_exits_1_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("print('no bus here')\n")
    out = tmp_path / "t.py"
    done = characterize(tmp_path, "-o", out)
    assert done.exit_code == 1
    assert "nothing to characterize" in done.stderr
    assert not out.exists()


def test_a_bus_that_does_not_parse_is_reported_and_left_out(tmp_path: Path) -> None:
    copy_buses(tmp_path)
    (tmp_path / "userbus" / "propagate.py").write_text(BROKEN)
    done = characterize(tmp_path / "userbus", "-o", tmp_path / "t.py")
    assert done.exit_code == 0
    assert "propagate.py: cannot be analysed: syntax error" in done.stderr  # one line per file
    assert "1 file could not be analysed (above): a dispatcher in them is not in the module" \
        in done.stderr
    assert "propagate_first  the scan read no dispatch path" in done.stderr


def test_bad_paths_are_one_line_usage_errors(tmp_path: Path) -> None:
    missing = characterize(tmp_path / "nowhere")
    assert missing.exit_code == 2
    assert missing.stderr.count("\n") == 1 and "no such file or directory" in missing.stderr
    unwritable = characterize(tmp_path, "-o", tmp_path / "no" / "dir" / "t.py")
    assert unwritable.exit_code == 2 and "no such directory" in unwritable.stderr
    copy = characterize(tmp_path, "--run-against", tmp_path / "nowhere")
    assert copy.exit_code == 2 and "--run-against" in copy.stderr


def test_run_against_a_copy_passes_and_a_mutated_copy_fails(tmp_path: Path) -> None:
    copy_buses(tmp_path / "tree")
    good = copy_buses(tmp_path / "good")
    done = characterize(tmp_path / "tree" / "userbus", "--run-against", good / "userbus")
    assert done.exit_code == 0, done.output[-3000:]
    bad = copy_buses(tmp_path / "bad")
    offload = bad / "userbus" / "offload.py"
    offload.write_text(offload.read_text().replace("await asyncio.to_thread(callback, event)",
                                                   "callback(event)"))
    done = characterize(tmp_path / "tree" / "userbus", "--run-against", bad)
    assert done.exit_code == 1
    elsewhere = characterize(tmp_path / "tree" / "userbus", "--run-against", tmp_path)
    assert elsewhere.exit_code == 2
    assert f"{tmp_path} holds no userbus package" in elsewhere.stderr
