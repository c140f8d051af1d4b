"""Push through the sync protocol: SEND, 64 KiB DATA chunks written with their headers, DONE, status."""

from __future__ import annotations

import os
import struct

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import wire
from pytest_mobile_agent.adb.connection import AdbConnection
from tests.support.adb_scripted import Peer, client

SERIAL = "emulator-5554"
CHUNK = 64 * 1024


def sync_sink(messages: list[tuple[bytes, int, bytes]], *, reply: bytes = wire.encode_sync(wire.OKAY, 0),
              hang_up: bool = False):
    """Record every sync message up to DONE, answer `reply`, then take QUIT (or hang up)."""

    def handler(peer: Peer) -> None:
        peer.transport(SERIAL, "sync:")
        while True:
            message = peer.read_sync()
            messages.append(message)
            if message[0] == wire.DONE:
                break
        peer.send(reply)
        if hang_up:
            return
        rest = peer.read_until_closed()
        messages.extend(wire.SyncDecoder().feed(rest))

    return handler


def test_push_sends_64k_chunks_then_done_with_the_mtime(scripted):
    data = os.urandom(3 * CHUNK + 1000)
    messages: list[tuple[bytes, int, bytes]] = []
    server = scripted(sync_sink(messages))
    client(server).device(SERIAL).push_bytes(data, "/data/local/tmp/x.jar", mode=0o444, mtime=1_700_000_000)
    server.wait_idle()
    ids = [m[0] for m in messages]
    assert ids == [wire.SEND, wire.DATA, wire.DATA, wire.DATA, wire.DATA, wire.DONE, wire.QUIT]
    send = messages[0]
    assert send[2] == b"/data/local/tmp/x.jar," + str(0o100444).encode()
    assert [m[1] for m in messages[1:5]] == [CHUNK, CHUNK, CHUNK, 1000]
    assert b"".join(m[2] for m in messages[1:5]) == data
    assert messages[5][1] == 1_700_000_000


def test_each_data_header_is_written_with_its_data(scripted, monkeypatch):
    writes: list[bytes] = []
    original = AdbConnection.sendall

    def recording(self, data, operation, **kwargs):
        writes.append(bytes(data))
        return original(self, data, operation, **kwargs)

    monkeypatch.setattr(AdbConnection, "sendall", recording)
    data = os.urandom(2 * CHUNK + 5)
    messages: list[tuple[bytes, int, bytes]] = []
    server = scripted(sync_sink(messages))
    client(server).device(SERIAL).push_bytes(data, "/data/local/tmp/y", mtime=1)
    sync_writes = writes[2:]  # after host:transport and sync:
    data_writes = [w for w in sync_writes if b"DATA" in w[:8] or w.startswith(b"SEND")]
    offsets = 0
    for write in data_writes:
        if write.startswith(b"SEND"):
            (length,) = struct.unpack_from("<I", write, 4)
            write = write[8 + length :]
        ident, length = struct.unpack_from("<4sI", write)
        assert ident == wire.DATA and len(write) == 8 + length, "a DATA header went out without its data"
        offsets += length
    assert offsets == len(data)


def test_push_copies_a_local_file_with_its_mtime(scripted, tmp_path):
    source = tmp_path / "app.jar"
    data = os.urandom(CHUNK + 17)
    source.write_bytes(data)
    os.utime(source, (1_600_000_000, 1_600_000_000))
    messages: list[tuple[bytes, int, bytes]] = []
    server = scripted(sync_sink(messages))
    client(server).device(SERIAL).push(source, "/data/local/tmp/app.jar", mode=0o755)
    assert messages[0][2] == b"/data/local/tmp/app.jar," + str(0o100755).encode()
    assert [m[1] for m in messages if m[0] == wire.DATA] == [CHUNK, 17]
    assert b"".join(m[2] for m in messages if m[0] == wire.DATA) == data
    assert [m for m in messages if m[0] == wire.DONE][0][1] == 1_600_000_000


def test_an_empty_push_sends_no_data(scripted):
    messages: list[tuple[bytes, int, bytes]] = []
    server = scripted(sync_sink(messages))
    client(server).device(SERIAL).push_bytes(b"", "/data/local/tmp/empty", mtime=5)
    server.wait_idle()
    assert [m[0] for m in messages] == [wire.SEND, wire.DONE, wire.QUIT]


def test_a_push_adbd_refuses_reports_its_message(scripted):
    messages: list[tuple[bytes, int, bytes]] = []
    reason = "couldn't create file: Permission denied"
    server = scripted(sync_sink(messages, reply=wire.encode_sync(wire.FAIL, reason.encode())))
    with pytest.raises(errors.SyncFailure) as info:
        client(server).device(SERIAL).push_bytes(b"x", "/system/forbidden", mtime=1)
    assert info.value.reason == reason
    assert "push /system/forbidden" in str(info.value) and reason in str(info.value)


def test_a_refusal_in_the_middle_of_a_push_still_reports_adbds_message(scripted):
    reason = "No space left on device"

    def refuse_early(peer: Peer) -> None:
        peer.transport(SERIAL, "sync:")
        peer.read_sync()  # SEND
        peer.send(wire.encode_sync(wire.FAIL, reason.encode()))
        peer.sock.shutdown(2)

    server = scripted(refuse_early)
    with pytest.raises(errors.SyncFailure, match=reason):
        client(server).device(SERIAL).push_bytes(os.urandom(8 * 1024 * 1024), "/sdcard/big", mtime=1)


def test_a_garbage_push_status_is_a_protocol_error(scripted):
    messages: list[tuple[bytes, int, bytes]] = []
    server = scripted(sync_sink(messages, reply=b"WHAT\x00\x00\x00\x00"))
    with pytest.raises(errors.ProtocolError, match="WHAT"):
        client(server).device(SERIAL).push_bytes(b"x", "/sdcard/x", mtime=1)


def test_a_truncated_push_status_is_a_protocol_error(scripted):
    messages: list[tuple[bytes, int, bytes]] = []
    server = scripted(sync_sink(messages, reply=b"FAIL\x20\x00\x00\x00short", hang_up=True))
    with pytest.raises(errors.ProtocolError, match="truncated"):
        client(server).device(SERIAL).push_bytes(b"x", "/sdcard/x", mtime=1)


def test_a_remote_path_with_nul_is_refused(scripted):
    server = scripted()
    with pytest.raises(errors.InvalidArgument, match="NUL"):
        client(server).device(SERIAL).push_bytes(b"x", "/sdcard/a\x00b")
    assert server.connections == 0


# --- the read side: a scripted adbd sending what a real one would, and garbage -----------------------


def sync_reply(reply: bytes, seen: list[tuple[bytes, int, bytes]] | None = None):
    """Take one sync request, answer `reply` and hang up."""

    def handler(peer: Peer) -> None:
        peer.transport(SERIAL, "sync:")
        message = peer.read_sync()
        if seen is not None:
            seen.append(message)
        peer.send(reply)

    return handler


def test_pull_reads_data_until_done_and_quits(scripted):
    seen: list[tuple[bytes, int, bytes]] = []
    reply = wire.encode_sync(wire.DATA, b"abc") + wire.encode_sync(wire.DATA, b"def") + wire.encode_sync(wire.DONE, 0)
    server = scripted(sync_reply(reply, seen))
    assert client(server).device(SERIAL).pull_bytes("/sdcard/x") == b"abcdef"
    assert seen == [(wire.RECV, 9, b"/sdcard/x")]


@pytest.mark.parametrize(
    ("reply", "error", "says"),
    [
        (
            wire.encode_sync(wire.FAIL, b"open failed: Permission denied"),
            errors.SyncFailure,
            "open failed: Permission denied",
        ),
        (struct.pack("<4sI", wire.DATA, CHUNK + 1), errors.ProtocolError, "over adbd's"),
        (wire.encode_sync(wire.OKAY, 0), errors.ProtocolError, "expected DATA, DONE or FAIL"),
        (wire.encode_sync(wire.DATA, b"abc"), errors.Closed, "closed the connection"),
    ],
    ids=["adbd refuses", "oversized DATA", "an unexpected id", "the stream ends mid-file"],
)
def test_a_pull_that_goes_wrong_is_a_clear_error(scripted, tmp_path, reply, error, says):
    server = scripted(sync_reply(reply))
    with pytest.raises(error, match=says):
        client(server).device(SERIAL).pull("/sdcard/x", tmp_path / "x")
    assert list(tmp_path.iterdir()) == [], "nothing half-written"


def test_stat_decodes_sta2_and_its_errno(scripted):
    fields = struct.pack("<IQQIIIIQqqq", 0, 1, 2, 0o100644, 1, 2000, 2000, 77, 5, 1_700_000_000, 7)
    server = scripted(sync_reply(b"STA2" + fields), sync_reply(b"STA2" + struct.pack("<IQQIIIIQqqq", 2, *[0] * 10)))
    info = client(server).device(SERIAL).stat("/sdcard/x")
    assert (info.mode, info.size, info.mtime, info.uid) == (0o100644, 77, 1_700_000_000, 2000) and info.is_file
    with pytest.raises(errors.SyncFailure, match="stat /sdcard/y: No such file or directory"):
        client(server).device(SERIAL).stat("/sdcard/y")


def test_listdir_skips_dot_entries_and_stops_at_done(scripted):
    def dent(name: bytes, mode: int) -> bytes:
        return struct.pack("<4sIIII", b"DENT", mode, 3, 9, len(name)) + name

    reply = (
        dent(b".", 0o40771)
        + dent(b"..", 0o40755)
        + dent(b"a.txt", 0o100644)
        + struct.pack("<4sIIII", wire.DONE, 0, 0, 0, 0)
    )
    server = scripted(sync_reply(reply))
    (entry,) = client(server).device(SERIAL).listdir("/sdcard")
    assert (entry.name, entry.size, entry.mtime, entry.is_dir) == ("a.txt", 3, 9, False)
