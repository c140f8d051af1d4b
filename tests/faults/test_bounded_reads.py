"""What is at a record's, a lock holder's or a discovery file's path is read only when it is a
small regular file (issue 13, item 9): a FIFO made `attach()` hang for ever in `open`, and a file of
64 MiB was read whole (64 MiB of blanks before a valid record was taken for the record)."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mobile_agent.agent.records import Record, Records
from pytest_mobile_agent.automation_lock import AutomationLock
from pytest_mobile_agent.emulator import discovery
from pytest_mobile_agent.userfiles import SMALL_FILE_LIMIT, read_small_file

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")

RECORD = Record("emulator-5554", "mobile-agent-0.1.0-x", 4242, "0" * 32, "0.1.0", 1, "abc")


def finishes(call: Callable[[], Any], seconds: float = 10.0) -> Any:
    """The call's result; a failure (not a hang of the suite) when it blocks past `seconds`."""
    box: list[Any] = []
    worker = threading.Thread(target=lambda: box.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "the read blocked"
    return box[0]


def blank_padded(path: Path, payload: bytes, size: int) -> None:
    """`size` bytes in all: blanks, then the payload, so the whole file is valid JSON."""
    blanks = size - len(payload)
    with path.open("wb") as out:
        for start in range(0, blanks, 1 << 20):
            out.write(b" " * min(1 << 20, blanks - start))
        out.write(payload)


def test_a_fifo_at_the_records_path_is_no_record_and_does_not_block(tmp_path: Path) -> None:
    records = Records.in_dir(tmp_path, server="127.0.0.1:5037")
    os.mkfifo(records.path_for("emulator-5554"))
    assert finishes(lambda: records.get("emulator-5554")) is None


def test_a_64_mib_record_is_refused_unread(tmp_path: Path) -> None:
    records = Records.in_dir(tmp_path, server="127.0.0.1:5037")
    blank_padded(records.path_for("emulator-5554"), json.dumps(RECORD.to_json()).encode(), 64 << 20)
    assert records.get("emulator-5554") is None


def test_a_small_record_is_still_read(tmp_path: Path) -> None:
    records = Records.in_dir(tmp_path, server="127.0.0.1:5037")
    records.put(RECORD)
    assert records.get("emulator-5554") == RECORD


def test_a_symlinked_record_is_not_followed(tmp_path: Path) -> None:
    records = Records.in_dir(tmp_path / "records", server="127.0.0.1:5037")
    (tmp_path / "records").mkdir()
    elsewhere = tmp_path / "planted.json"
    elsewhere.write_text(json.dumps(RECORD.to_json()))
    records.path_for("emulator-5554").symlink_to(elsewhere)
    assert records.get("emulator-5554") is None


def test_a_fifo_or_a_huge_file_as_the_lock_holder_is_no_holder(tmp_path: Path) -> None:
    lock = AutomationLock("emulator-5554", directory=tmp_path)
    os.mkfifo(lock.holder_path)
    assert finishes(lock.holder) is None
    lock.holder_path.unlink()
    blank_padded(lock.holder_path, b'{"test": "planted"}', SMALL_FILE_LIMIT * 4)
    assert lock.holder() is None


def test_a_fifo_as_a_discovery_file_is_ignored_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pid_4242.ini"
    os.mkfifo(fifo)
    assert finishes(lambda: discovery.read_file(fifo)) is None


@pytest.mark.parametrize(("size", "refused"), [(SMALL_FILE_LIMIT, False), (SMALL_FILE_LIMIT + 1, True)])
def test_the_cap_is_exact(tmp_path: Path, size: int, refused: bool) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * size)
    if refused:
        with pytest.raises(OSError, match="more than the 65536 bytes"):
            read_small_file(path)
    else:
        assert len(read_small_file(path)) == size
