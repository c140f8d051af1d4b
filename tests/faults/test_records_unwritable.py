"""Records that cannot be written never leave a stray agent (issue 13, item 2): `attach()` checks
before the launch that the record can be written, and when the write still fails after it, stops
the agent it just launched and closes its connection; the error names the record's path. Before,
the agent kept running with no record (every later attach a Conflict for its idle life) and each
failed attach leaked its connection (5 gave +6 threads and +2 fds)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.agent.records import DirRecords, Records
from tests.support.lab import Bench


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def agent_threads() -> int:
    """The host's agent connections alive: each has a reader and a writer thread (agent/connection.py)."""
    return sum(t.name.startswith(("agent-reader", "agent-writer")) for t in threading.enumerate())


def test_a_directory_in_the_records_place_fails_before_any_launch(vd: Bench, tmp_path: Path) -> None:
    records = Records.in_dir(tmp_path, server=vd.server.address)
    records.path_for(vd.serial).mkdir()
    with pytest.raises(errors.RecordsUnwritable):
        vd.attach(records)  # the first one starts what the lab starts once
    threads, fds = agent_threads(), open_fds()
    for _ in range(5):
        with pytest.raises(errors.RecordsUnwritable, match=str(records.path_for(vd.serial))):
            vd.attach(records)
    assert vd.agent_pids() == []
    assert agent_threads() <= threads
    assert open_fds() - fds < 5  # a connection leaked per attach would be 5 or more; the lab's own come and go
    records.path_for(vd.serial).rmdir()
    vd.attach(records)  # no Conflict with a stray agent: the next attach launches and records one
    assert records.get(vd.serial) is not None and len(vd.agent_pids()) == 1


def test_a_write_that_fails_after_the_launch_stops_the_agent_and_closes_its_connection(
        vd: Bench, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = Records.in_dir(tmp_path, server=vd.server.address)

    def disk_full(self: DirRecords, path: Path, data: bytes) -> None:
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(DirRecords, "_write", disk_full)
    with pytest.raises(errors.RecordsUnwritable):
        vd.attach(records)
    threads = agent_threads()
    for _ in range(3):
        with pytest.raises(errors.RecordsUnwritable, match="No space left on device"):
            vd.attach(records)
    assert vd.agent_pids() == []
    assert records.get(vd.serial) is None
    assert agent_threads() <= threads
    monkeypatch.undo()
    vd.attach(records)
    assert len(vd.agent_pids()) == 1
