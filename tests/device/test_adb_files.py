"""pull, pull_bytes, stat and listdir (sync STA2, LIST and RECV), written once for any target: the
device suite runs them on the built-in adb endpoint and through Debian's adb server."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import Device
from tests.support.on_device import it_name

pytestmark = pytest.mark.device

BIG = os.urandom(200_000) + bytes(range(256)) * 100  # several DATA chunks, and every byte value


def test_pull_bytes_reads_back_what_push_wrote(device: Device, remote_path: str) -> None:
    device.push_bytes(BIG, remote_path)
    assert device.pull_bytes(remote_path) == BIG
    device.push_bytes(b"", remote_path)
    assert device.pull_bytes(remote_path) == b""


def test_pull_writes_the_local_file_whole(device: Device, remote_path: str, tmp_path: Path) -> None:
    device.push_bytes(BIG, remote_path)
    target = tmp_path / "pulled.bin"
    assert device.pull(remote_path, target) == len(BIG)
    assert target.read_bytes() == BIG
    assert [p.name for p in tmp_path.iterdir()] == ["pulled.bin"], "no partial file left"


def test_pulling_a_missing_file_carries_adbds_error_and_leaves_nothing(device: Device, tmp_path: Path) -> None:
    missing = f"/data/local/tmp/{it_name('missing')}"
    with pytest.raises(errors.SyncFailure) as failed:
        device.pull(missing, tmp_path / "never.bin")
    assert "open failed: No such file or directory" in str(failed.value) and missing in str(failed.value)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(errors.SyncFailure, match="open failed: No such file or directory"):
        device.pull_bytes(missing)


def test_pulling_a_directory_fails_at_the_read_as_adbd_does(device: Device) -> None:
    with pytest.raises(errors.SyncFailure, match="read failed: Is a directory"):
        device.pull_bytes("/data/local/tmp")


def test_stat_gives_the_mode_size_and_mtime(device: Device, remote_path: str) -> None:
    device.push_bytes(b"x" * 1234, remote_path, mode=0o644, mtime=1_700_000_000)
    info = device.stat(remote_path)
    assert info.is_file and not info.is_dir
    assert (stat.S_IMODE(info.mode), info.size, info.mtime) == (0o666, 1234, 1_700_000_000)
    assert device.stat("/data/local/tmp").is_dir
    assert info.uid == 2000, "the shell user pushed it"


def test_stat_of_a_missing_path_carries_the_errno(device: Device) -> None:
    with pytest.raises(errors.SyncFailure, match="No such file or directory"):
        device.stat(f"/data/local/tmp/{it_name('missing')}")


def test_listdir_lists_the_entries_without_dot_and_dotdot(device: Device, remote_path: str) -> None:
    directory = remote_path + "-dir"
    try:
        device.push_bytes(b"one", f"{directory}/a.txt")
        device.push_bytes(b"three", f"{directory}/sub/b.txt")
        entries = {entry.name: entry for entry in device.listdir(directory)}
        assert set(entries) == {"a.txt", "sub"}
        assert entries["a.txt"].size == 3 and not entries["a.txt"].is_dir
        assert entries["sub"].is_dir
    finally:
        device.shell(f"rm -rf {directory}")


def test_listing_a_path_that_is_no_directory_is_empty_as_adbd_answers(device: Device) -> None:
    assert device.listdir(f"/data/local/tmp/{it_name('missing')}") == []


def test_a_path_with_a_nul_is_refused_before_anything_is_sent(device: Device) -> None:
    with pytest.raises(errors.InvalidArgument):
        device.pull_bytes("/data/local/tmp/a\x00b")
    with pytest.raises(errors.InvalidArgument):
        device.stat("x" * 1025)
