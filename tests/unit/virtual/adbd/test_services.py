"""adbd's own services on the device model: TERM on shells, adb root and unroot, sync v2 (SND2/RCV2)."""

from __future__ import annotations

import struct

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.device import VirtualDevice
from tests.support.streams import read_to_end
from tests.support.virtual_shell import run_shell as run


def test_term_is_dumb_unless_the_service_names_one_on_raw_and_pty_shells(vdev: VirtualDevice) -> None:
    assert run(vdev, "echo $TERM") == (0, "dumb\n", "")
    for service in ("shell,v2,TERM=xterm-256color,raw:echo $TERM", "shell,v2,TERM=vt100,pty:echo $TERM"):
        data = read_to_end(vdev.open_service(service))
        assert (b"xterm-256color" if "raw" in service else b"vt100") in data
    assert read_to_end(vdev.open_service("exec:echo [$TERM]")) == b"[]\n"  # exec: sets no TERM (no terminal type)


def test_root_restarts_adbd_as_root_on_a_userdebug_image_and_user_builds_refuse(vdev: VirtualDevice) -> None:
    restarts: list[int] = []
    vdev.adbd_restart_listeners.append(lambda: restarts.append(vdev.adbd.uid))
    assert read_to_end(vdev.open_service("root:")) == b"restarting adbd as root\n"
    assert restarts == [2000] and vdev.getprop("service.adb.root") == "1"  # told while the old adbd exits
    with pytest.raises(errors.Closed, match="adbd is restarting"):  # the old adbd starts nothing more
        vdev.open_service("shell:id -u")
    vdev.adbd_restarted()  # the front dropped its transports: the new adbd is up
    assert read_to_end(vdev.open_service("shell:id -u")) == b"0\n"  # what adbd starts now runs as root
    vdev.adbd_restart_listeners.append(vdev.adbd_restarted)  # a front that drops its transports at once
    assert read_to_end(vdev.open_service("root:")) == b"adbd is already running as root\n"
    assert read_to_end(vdev.open_service("unroot:")) == b"restarting adbd as non root\n"
    assert read_to_end(vdev.open_service("unroot:")) == b"adbd not running as root\n"
    assert read_to_end(vdev.open_service("shell:id -u")) == b"2000\n"
    vdev.setprop("ro.debuggable", "0")
    assert read_to_end(vdev.open_service("root:")) == b"adbd cannot run as root in production builds\n"


def _sync(vdev: VirtualDevice, request: bytes, size: int, timeout: float = 2.0) -> bytes:
    stream = vdev.open_service("sync:")
    stream.send(request)
    data = b""
    while len(data) < size:
        data += stream.recv(timeout)
    stream.close()
    return data


def test_snd2_and_rcv2_push_and_pull_and_a_dry_run_writes_nothing(vdev: VirtualDevice) -> None:
    path = b"/data/local/tmp/v2"
    push = (b"SND2" + struct.pack("<I", len(path)) + path + b"SND2" + struct.pack("<II", 0o100644, 0)
            + b"DATA" + struct.pack("<I", 3) + b"abc" + b"DONE" + struct.pack("<I", 1000))
    assert _sync(vdev, push, 8) == b"OKAY\0\0\0\0"
    assert run(vdev, "cat /data/local/tmp/v2; stat -c %a /data/local/tmp/v2") == (0, "abc666\n", "")
    pull = b"RCV2" + struct.pack("<I", len(path)) + path + b"RCV2" + struct.pack("<I", 0)
    assert _sync(vdev, pull, 19) == b"DATA\x03\0\0\0abcDONE\0\0\0\0"
    dry = b"/data/local/tmp/dry"
    trial = (b"SND2" + struct.pack("<I", len(dry)) + dry + b"SND2" + struct.pack("<II", 0o100644, 0x8000_0000)
             + b"DATA" + struct.pack("<I", 1) + b"x" + b"DONE" + struct.pack("<I", 0))
    assert _sync(vdev, trial, 8) == b"OKAY\0\0\0\0"
    assert not vdev.fs.exists("/data/local/tmp/dry")
    brotli = b"RCV2" + struct.pack("<I", len(path)) + path + b"RCV2" + struct.pack("<I", 1)
    assert _sync(vdev, brotli, 8 + len("unsupported compression")) == b"FAIL\x17\0\0\0unsupported compression"
