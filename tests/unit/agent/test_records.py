"""agent::records::tests: in memory, in a directory (0600, atomic), corrupt and foreign files."""

from __future__ import annotations

import json
import logging
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_mobile_agent.agent.records import Record, Records

TOKEN = "0123456789abcdef0123456789abcdef"
RECORD = Record("emulator-5554", "mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae", 2973, TOKEN, "0.1.0", 1,
                "7fec0cb05341")


def test_records_in_memory_are_per_serial() -> None:
    records = Records()
    assert records.get("emulator-5554") is None
    records.put(RECORD)
    assert records.get("emulator-5554") == RECORD and records.get("emulator-5556") is None
    records.forget("emulator-5554")
    assert records.get("emulator-5554") is None
    assert TOKEN not in repr(RECORD) and TOKEN not in repr(records)


def test_records_in_a_directory_outlive_the_process_that_wrote_them(tmp_path: Path) -> None:
    script = (
        "import sys; from pytest_mobile_agent.agent.records import Record, Records; "
        f"Records.in_dir(sys.argv[1]).put(Record('127.0.0.1:5555', 's', 7, '{TOKEN}', '0.1.0', 1, 'b'))"
    )
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=True, timeout=30)
    record = Records.in_dir(tmp_path).get("127.0.0.1:5555")
    assert record == Record("127.0.0.1:5555", "s", 7, TOKEN, "0.1.0", 1, "b")
    assert Records.in_dir(tmp_path).get("emulator-5554") is None


def test_the_records_file_is_0600_and_written_atomically(tmp_path: Path) -> None:
    records = Records.in_dir(tmp_path / "records")
    records.put(RECORD)
    path = records.path_for("emulator-5554")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    records.put(Record(**{**RECORD.__dict__, "pid": 3000}))
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left behind
    assert records.get("emulator-5554").pid == 3000
    records.forget("emulator-5554")
    assert not path.exists() and records.get("emulator-5554") is None


def test_a_record_written_before_builds_were_recorded_has_an_unknown_build(tmp_path: Path) -> None:
    records = Records.in_dir(tmp_path)
    old = RECORD.to_json()
    del old["build"]
    records.path_for("emulator-5554").write_text(json.dumps(old))
    record = records.get("emulator-5554")
    assert record is not None and record.build is None and record.token == TOKEN


@pytest.mark.parametrize("content", [
    "{not json",
    json.dumps({"kind": "something-else", "serial": "emulator-5554"}),
    json.dumps([1, 2]),
    json.dumps({**RECORD.to_json(), "pid": "2973"}),
    json.dumps({**RECORD.to_json(), "token": "short"}),
    json.dumps({**RECORD.to_json(), "serial": "emulator-5556"}),
])
def test_a_corrupt_or_foreign_file_is_no_record_and_a_warning(tmp_path: Path, content: str,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    records = Records.in_dir(tmp_path)
    records.path_for("emulator-5554").write_text(content)
    with caplog.at_level(logging.WARNING, logger="pytest_mobile_agent.agent"):
        assert records.get("emulator-5554") is None
    assert any("agent record" in r.getMessage() for r in caplog.records)
    assert all(TOKEN not in r.getMessage() for r in caplog.records)


def _dead_address() -> str:
    """A loopback address nothing listens on (a port just freed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


def test_the_record_of_a_served_virtual_device_whose_lab_is_gone_is_pruned(tmp_path: Path) -> None:
    gone = _dead_address()
    real = Record(**{**RECORD.__dict__, "serial": "emulator-5556"})
    with socket.socket() as live:
        live.bind(("127.0.0.1", 0))
        live.listen()
        alive = f"127.0.0.1:{live.getsockname()[1]}"
        of_gone_lab = Records.in_dir(tmp_path, server=gone, virtual=True)
        of_gone_lab.put(RECORD)
        Records.in_dir(tmp_path, server=alive, virtual=True).put(RECORD)
        Records.in_dir(tmp_path, server=gone).put(real)  # a real device's adb server, down for now
        written = json.loads(of_gone_lab.path_for(RECORD.serial).read_text())
        assert written["virtual_lab"] == gone and Record.from_json(written) == RECORD
        records = Records.in_dir(tmp_path, server=alive, virtual=True)
        assert records.prune_gone_labs() == [of_gone_lab.path_for(RECORD.serial)]
        assert records.get(RECORD.serial) == RECORD
        assert Records.in_dir(tmp_path, server=gone).get(real.serial) == real
        assert len(list(tmp_path.iterdir())) == 2
