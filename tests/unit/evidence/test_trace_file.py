"""The trace file (evidence/tracefile.py) and `show-trace`'s refusals: a truncated, damaged, foreign or newer
file is a clear error on the command line, never a traceback or a page."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from pytest_mobile_agent.cli.main import main
from pytest_mobile_agent.evidence import tracefile


def document(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "format": tracefile.FORMAT,
        "version": tracefile.VERSION,
        "test": {"nodeid": "t.py::t", "outcome": "failed"},
        "screen": {"width": 1080, "height": 2400},
        "logcat": [],
        "status": [],
        "missing": [],
        "steps": [
            {
                "index": 0,
                "parent": None,
                "name": "tap",
                "depth": 0,
                "arguments": {"id": "ok"},
                "started": 1.0,
                "ended": 1.2,
                "target": [1, 2, 3, 4],
                "before": "images/1.jpg",
                "after": None,
                "tree": None,
            }
        ],
    }
    base.update(changes)
    return base


def written(tmp_path: Path, manifest: dict[str, Any], files: dict[str, bytes] | None = None) -> Path:
    path = tmp_path / "trace.zip"
    tracefile.write_trace(path, manifest, {"images/1.jpg": b"\xff\xd8jpeg"} if files is None else files)
    return path


def test_a_written_trace_reads_back_whole(tmp_path: Path) -> None:
    trace = tracefile.read_trace(written(tmp_path, document()))
    assert trace.steps[0]["name"] == "tap" and trace.member("images/1.jpg") == b"\xff\xd8jpeg"
    assert not list(tmp_path.glob(".*partial")), "no temporary file is left behind"
    assert (tmp_path / "trace.zip").stat().st_mode & 0o777 == 0o600


def test_a_truncated_trace_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path, document())
    path.write_bytes(path.read_bytes()[:-40])
    with pytest.raises(tracefile.InvalidTrace, match="is not a whole zip file .*: truncated, or not a trace"):
        tracefile.read_trace(path)


def test_a_damaged_member_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path, document(), {"images/1.jpg": b"A" * 400})
    data = bytearray(path.read_bytes())
    data[data.index(b"A" * 400) + 10] = ord("B")
    path.write_bytes(bytes(data))
    with pytest.raises(tracefile.InvalidTrace, match="is damaged: its member images/1.jpg fails its checksum"):
        tracefile.read_trace(path)


def test_a_foreign_zip_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("hello.txt", "hi")
    with pytest.raises(
        tracefile.InvalidTrace, match="is a zip file but not a mobile-agent trace: it has no trace.json"
    ):
        tracefile.read_trace(path)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("trace.json", json.dumps({"format": "playwright"}))
    with pytest.raises(tracefile.InvalidTrace, match="is not a mobile-agent trace"):
        tracefile.read_trace(path)


def test_a_newer_version_and_a_bad_shape_are_refused(tmp_path: Path) -> None:
    with pytest.raises(tracefile.InvalidTrace, match="written in trace format 2; this version reads format 1"):
        tracefile.read_trace(written(tmp_path, document(version=2)))
    with pytest.raises(tracefile.InvalidTrace, match=r"steps\[0\].target is not null or \[left, top, right, bottom\]"):
        steps = [{**document()["steps"][0], "target": [1, 2]}]
        tracefile.read_trace(written(tmp_path, document(steps=steps)))
    with pytest.raises(
        tracefile.InvalidTrace, match=r"steps\[0\].before names 'images/1.jpg', which the zip does not hold"
    ):
        tracefile.read_trace(written(tmp_path, document(), {}))


@pytest.mark.parametrize("content", [b"", b"not a zip at all", b"PK\x03\x04 truncated"])
def test_show_trace_says_what_is_wrong_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    path = tmp_path / "trace.zip"
    path.write_bytes(content)
    assert main(["show-trace", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"error: {path} is not a whole zip file") and "Traceback" not in captured.err


def test_show_trace_of_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show-trace", str(tmp_path / "none.zip")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: {tmp_path / 'none.zip'}: no such file",
        "advice: pass the trace.zip a failed test's report names",
    ]


# --- show-trace DIR (issue 41 item 15: a folder was "no such file") ---------------------------------


def test_show_trace_of_a_folder_opens_its_one_trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    test_folder = tmp_path / "artifacts" / "test_app.py-test_sign_in"
    test_folder.mkdir(parents=True)
    written(test_folder, document())
    served: list[bytes] = []

    def serve_once(serve: Any, name: str, port: int) -> int:
        import urllib.request

        with serve() as url, urllib.request.urlopen(url, timeout=10) as page:
            served.append(page.read())
        return 0

    monkeypatch.setattr("pytest_mobile_agent.cli.main._serve_until_stopped", serve_once)
    assert main(["show-trace", str(tmp_path / "artifacts")]) == 0, capsys.readouterr().err
    assert served and b"t.py::t" in served[0]


def test_show_trace_of_a_folder_of_several_names_them_newest_first(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    older, newer = tmp_path / "a", tmp_path / "b"
    older.mkdir()
    newer.mkdir()
    first = written(older, document())
    second = newer / "trace-gw1.zip"
    tracefile.write_trace(second, document(), {"images/1.jpg": b"\xff\xd8jpeg"})
    import os

    os.utime(first, (1_000_000, 1_000_000))
    (newer / ".trace.zip.77.partial").write_bytes(b"half")
    assert main(["show-trace", str(tmp_path)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: {tmp_path} holds 2 traces, the newest first:", f"  {second}", f"  {first}",
        "advice: pass the one to open",
    ]


def test_show_trace_of_a_folder_without_a_trace_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "video.mp4").write_bytes(b"")
    assert main(["show-trace", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {tmp_path} holds no trace (no trace.zip or trace-gwN.zip")


def test_a_steps_source_line_reads_back_and_a_malformed_one_is_refused(tmp_path: Path) -> None:
    """Issue 41 item 15: a step names the test's file and line that made the call (format 1, an addition)."""
    good = document()
    good["steps"][0]["source"] = {"file": "tests/test_app.py", "line": 12}
    assert tracefile.read_trace(written(tmp_path, good)).steps[0]["source"] == {"file": "tests/test_app.py", "line": 12}
    bad = document()
    bad["steps"][0]["source"] = "tests/test_app.py:12"
    with pytest.raises(tracefile.InvalidTrace, match=r"steps\[0\].source is not null or \{file, line\}"):
        tracefile.read_trace(written(tmp_path, bad))


def test_a_steps_source_is_written_relative_to_the_rootdir(tmp_path: Path) -> None:
    from pytest_mobile_agent.mirror.steps import Source

    test_file = tmp_path / "tests" / "test_app.py"
    assert tracefile.source_entry(Source(str(test_file), 12), tmp_path) == {"file": "tests/test_app.py", "line": 12}
    outside = Path("/elsewhere/helpers.py")
    assert tracefile.source_entry(Source(str(outside), 3), tmp_path) == {"file": "/elsewhere/helpers.py", "line": 3}
    assert tracefile.source_entry(None, tmp_path) is None
