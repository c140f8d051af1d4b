"""Push through the sync protocol: SEND, 64 KiB DATA chunks written with their headers, DONE, status."""

from __future__ import annotations

import os
import struct

import pytest
from adb_scripted import Peer, client

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import wire
from pytest_mobile_agent.adb.connection import Connection

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
    original = Connection.sendall

    def recording(self, data, operation, **kwargs):
        writes.append(bytes(data))
        return original(self, data, operation, **kwargs)

    monkeypatch.setattr(Connection, "sendall", recording)
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
