"""adbd's sync service: the push permission rule, refusals with adbd's texts, pull, stat, list."""

from __future__ import annotations

import contextlib
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb.wire import encode_sync
from pytest_mobile_agent.virtual.adbd.sync_service import adbd_mode
from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.kernel.creds import Cred

SHELL = Cred(2000)


def exchange(vdev: VirtualDevice, request: bytes) -> bytes:
    stream = vdev.open_service("sync:")
    stream.send(request)
    out = bytearray()
    while True:
        try:
            data = stream.recv(0.1)
        except errors.Timeout:
            break
        if not data:
            break
        out += data
    stream.close()
    return bytes(out)


def push(vdev: VirtualDevice, path: str, data: bytes, mode: int, mtime: int = 1_700_000_000) -> bytes:
    request = encode_sync(b"SEND", f"{path},{0o100000 | mode}".encode())
    for start in range(0, max(1, len(data)), 65536):
        request += encode_sync(b"DATA", data[start : start + 65536])
    return exchange(vdev, request + encode_sync(b"DONE", mtime))


def fail(message: str) -> bytes:
    return encode_sync(b"FAIL", message.encode())


@pytest.mark.parametrize(
    ("pushed", "arrives"), [(0o644, 0o666), (0o755, 0o777), (0o444, 0o444), (0o600, 0o666), (0o700, 0o777)]
)
def test_a_pushed_file_gets_its_owner_bits_copied_to_group_and_other(
    vdev: VirtualDevice, pushed: int, arrives: int
) -> None:
    assert push(vdev, "/data/local/tmp/mobile-agent-it-mode", b"bytes", pushed) == b"OKAY\0\0\0\0"
    info = vdev.fs.stat("/data/local/tmp/mobile-agent-it-mode", SHELL)
    assert (info.mode & 0o7777, info.size, info.mtime, info.uid) == (arrives, 5, 1_700_000_000, 2000)
    assert adbd_mode(pushed) == arrives


def test_a_push_over_a_read_only_file_replaces_it(vdev: VirtualDevice) -> None:
    assert push(vdev, "/data/local/tmp/x.jar", b"one", 0o444) == b"OKAY\0\0\0\0"
    assert push(vdev, "/data/local/tmp/x.jar", b"two", 0o444) == b"OKAY\0\0\0\0"
    assert vdev.fs.read_file("/data/local/tmp/x.jar", SHELL) == b"two"


def test_a_large_push_arrives_whole(vdev: VirtualDevice) -> None:
    data = bytes(range(256)) * 4096 * 2  # 2 MiB
    assert push(vdev, "/sdcard/Download/big.bin", data, 0o644) == b"OKAY\0\0\0\0"
    assert vdev.fs.read_file("/sdcard/Download/big.bin", SHELL) == data


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/system/mobile-agent-it-x", "couldn't create file: Read-only file system"),
        ("/mobile-agent-it-x", "couldn't create file: Read-only file system"),
        ("/data/mobile-agent-it-x", "couldn't create file: Permission denied"),
        ("/system/newdir/mobile-agent-it-x", "secure_mkdirs failed: Read-only file system"),
        ("/data/local/tmp", "couldn't create file: Is a directory"),
    ],
)
def test_a_push_adbd_refuses_fails_with_its_message(vdev: VirtualDevice, path: str, message: str) -> None:
    assert push(vdev, path, b"x", 0o644) == fail(message)


def test_a_push_without_a_mode_fails_as_adbd_does(vdev: VirtualDevice) -> None:
    assert exchange(vdev, encode_sync(b"SEND", b"/data/local/tmp/nomode")) == fail("missing , in ID_SEND")


def test_a_too_long_path_and_an_unknown_id_fail(vdev: VirtualDevice) -> None:
    assert exchange(vdev, b"STAT" + struct.pack("<I", 2000) + b"x" * 2000) == fail("path too long")
    assert exchange(vdev, b"JUNK\0\0\0\0") == fail("unknown command 4b4e554a")


def test_push_makes_missing_parent_directories(vdev: VirtualDevice) -> None:
    assert push(vdev, "/data/local/tmp/a/b/c.txt", b"c", 0o644) == b"OKAY\0\0\0\0"
    assert vdev.fs.stat("/data/local/tmp/a/b", SHELL).is_dir


def test_recv_streams_the_file_then_done(vdev: VirtualDevice) -> None:
    push(vdev, "/data/local/tmp/r", b"hello", 0o644)
    assert exchange(vdev, encode_sync(b"RECV", b"/data/local/tmp/r")) == encode_sync(b"DATA", b"hello") + encode_sync(
        b"DONE", 0
    )
    assert exchange(vdev, encode_sync(b"RECV", b"/data/local/tmp/none")) == fail(
        "open failed: No such file or directory"
    )


def test_stat_v1_and_v2(vdev: VirtualDevice) -> None:
    push(vdev, "/data/local/tmp/s", b"abc", 0o755, mtime=1234)
    assert exchange(vdev, encode_sync(b"STAT", b"/data/local/tmp/s")) == b"STAT" + struct.pack(
        "<III", 0o100777, 3, 1234
    )
    assert exchange(vdev, encode_sync(b"STAT", b"/data/local/tmp/none")) == b"STAT" + bytes(12)
    reply = exchange(vdev, encode_sync(b"STA2", b"/data/local/tmp/s"))
    ident, error, _dev, _ino, mode, _nlink, uid, _gid, size, _at, mtime, _ct = struct.unpack("<4sIQQIIIIQqqq", reply)
    assert (ident, error, mode, uid, size, mtime) == (b"STA2", 0, 0o100777, 2000, 3, 1234)
    missing = exchange(vdev, encode_sync(b"LST2", b"/data/local/tmp/none"))
    assert missing[:8] == b"LST2" + struct.pack("<I", 2)


def test_list_gives_dents_then_done(vdev: VirtualDevice) -> None:
    push(vdev, "/data/local/tmp/l1", b"1", 0o644)
    reply = exchange(vdev, encode_sync(b"LIST", b"/data/local/tmp"))
    names = []
    offset = 0
    while True:
        ident, mode, size, mtime, length = struct.unpack_from("<4sIIII", reply, offset)
        offset += 20
        if ident == b"DONE":
            break
        names.append(reply[offset : offset + length].decode())
        offset += length
    assert names == [".", "..", "l1"]
    assert offset == len(reply)


def test_after_a_refused_send_adbd_drops_the_data_and_closes(vdev: VirtualDevice) -> None:
    stream = vdev.open_service("sync:")
    stream.send(encode_sync(b"SEND", b"/system/x,33188") + encode_sync(b"DATA", b"zz"))
    stream.send(encode_sync(b"DONE", 0))
    assert stream.recv(1) == fail("couldn't create file: Read-only file system")
    assert stream.recv(1) == b""


def test_the_mode_is_read_as_strtoul_reads_it(vdev: VirtualDevice) -> None:
    from pytest_mobile_agent.virtual.adbd.sync_service import _strtoul

    assert [_strtoul(t) for t in ("33188", "0644", "0x1a4", "", "12abc")] == [33188, 0o644, 0o644, 0, 12]
    request = encode_sync(b"SEND", b"/data/local/tmp/octal,0755") + encode_sync(b"DATA", b"x") + encode_sync(b"DONE", 0)
    assert exchange(vdev, request) == b"OKAY\0\0\0\0"
    assert vdev.fs.stat("/data/local/tmp/octal", SHELL).mode & 0o777 == 0o777


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300))
def test_any_bytes_to_the_sync_service_end_in_replies_or_a_close(vdev: VirtualDevice, data: bytes) -> None:
    stream = vdev.open_service("sync:")
    with contextlib.suppress(errors.Closed):
        stream.send(data)
    with contextlib.suppress(errors.Timeout):
        stream.recv(0)
    stream.close()


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=200))
def test_any_bytes_on_a_shell_v2_stream_are_input_or_end_it(vdev: VirtualDevice, data: bytes) -> None:
    stream = vdev.open_service("shell,v2,raw:cat >/dev/null")
    with contextlib.suppress(errors.Closed):
        stream.send(data)
    stream.close()


def test_a_push_to_dev_null_is_written_and_leaves_the_device_node_alone(vdev: VirtualDevice) -> None:
    assert push(vdev, "/dev/null", b"x" * 100_000, 0o644) == b"OKAY\0\0\0\0"
    assert vdev.fs.stat("/dev/null", SHELL).mode == 0o20666
