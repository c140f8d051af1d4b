"""The files this host reads back are read bounded (issue 13, item 9): a FIFO, a symlink or a huge
file at a record's, a lock holder's or a discovery file's path is no record, never a hang or a
64 MiB read. Each read runs on a thread joined with a bound, so a hang fails instead of blocking."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mobile_agent.agent import Records
from pytest_mobile_agent.emulator import discovery
from pytest_mobile_agent.lock import AutomationLock
from pytest_mobile_agent.userfiles import MAX_READ_BYTES, read_small_file

HANG_BOUND_S = 5.0


def ends(call: Callable[[], Any]) -> Any:
    result: list[Any] = []
    worker = threading.Thread(target=lambda: result.append(call()), daemon=True)
    worker.start()
    worker.join(HANG_BOUND_S)
    if worker.is_alive():
        # unblock the reader (open of a FIFO waits for a writer) so the thread ends
        pytest.fail(f"the read did not end within {HANG_BOUND_S} s")
    return result[0]


@pytest.fixture
def unblock_fifos(tmp_path: Path):
    fifos: list[Path] = []
    yield fifos
    for fifo in fifos:  # a reader still blocked in open() gets its writer and ends
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass


def test_a_fifo_at_the_records_path_is_no_record(tmp_path: Path, unblock_fifos: list[Path]) -> None:
    records = Records.in_dir(tmp_path)
    path = records.path_for("emulator-5554")
    os.mkfifo(path)
    unblock_fifos.append(path)
    assert ends(lambda: records.get("emulator-5554")) is None


def test_a_huge_records_file_is_not_read_whole(tmp_path: Path) -> None:
    records = Records.in_dir(tmp_path)
    path = records.path_for("emulator-5554")
    with open(path, "wb") as big:
        big.truncate(64 << 20)  # sparse: 64 MiB without writing them
    assert ends(lambda: records.get("emulator-5554")) is None


def test_a_fifo_lock_holder_is_no_holder(tmp_path: Path, unblock_fifos: list[Path]) -> None:
    lock = AutomationLock("emulator-5554", tmp_path / "locks")
    os.mkfifo(lock.holder_path)
    unblock_fifos.append(lock.holder_path)
    assert ends(lock.holder) is None


def test_a_symlinked_record_is_not_followed(tmp_path: Path) -> None:
    records = Records.in_dir(tmp_path / "records")
    records.directory.mkdir()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("{}")
    records.path_for("emulator-5554").symlink_to(elsewhere)
    with pytest.raises(OSError):
        read_small_file(records.path_for("emulator-5554"))


def test_the_shared_reader_refuses_past_its_cap_and_reads_below_it(tmp_path: Path) -> None:
    small = tmp_path / "small"
    small.write_bytes(b"x" * 100)
    assert read_small_file(small) == b"x" * 100
    big = tmp_path / "big"
    big.write_bytes(b"x" * (MAX_READ_BYTES + 1))
    with pytest.raises(OSError, match="larger than"):
        read_small_file(big)


def test_discovery_reads_through_the_shared_reader(tmp_path: Path, unblock_fifos: list[Path]) -> None:
    fifo = tmp_path / "pid_1.ini"
    os.mkfifo(fifo)
    unblock_fifos.append(fifo)
    assert ends(lambda: discovery.read_file(fifo)) is None
    link = tmp_path / "pid_2.ini"
    good = tmp_path / "target.txt"
    good.write_text("grpc.port=8554\n")
    link.symlink_to(good)
    assert discovery.read_file(link) is None
