"""The agent double started as the host starts the real agent: the launch line on a shell v2 stream,
the token on standard input, the stream dropped after the ready line; then served over
`localabstract:` with a snapshot of the fixture's Big tab."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pytest_mobile_agent.adb import wire as adb_wire
from pytest_mobile_agent.agent import protocol as wire
from pytest_mobile_agent.agent.launch import launch_command
from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.kernel.process import SIGKILL
from tests.support.agent_host import TOKEN
from tests.support.polling import wait_until

SOCKET = "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-00000000abcd"
JAR = f"/data/local/tmp/{SOCKET}.jar"


@pytest.fixture
def vdev() -> Iterator[VirtualDevice]:
    dev = VirtualDevice("emulator-5574")  # the agent double registered, the UI attached, as the image has them
    yield dev
    for proc in dev.processes.processes():
        if proc.args_line().startswith("mobile-agent "):
            proc.deliver(SIGKILL)
    dev.close()


def read_stdout_line(stream: object, timeout: float = 5.0) -> str:
    decoder = adb_wire.ShellPacketDecoder()
    out = b""
    deadline = time.monotonic() + timeout
    while b"\n" not in out:
        data = stream.recv(max(0.01, deadline - time.monotonic()))  # type: ignore[attr-defined]
        assert data, f"the stream ended: {out!r}"
        for kind, payload in decoder.feed(data):
            if kind == adb_wire.SHELL_STDOUT:
                out += payload
    return out.split(b"\n", 1)[0].decode()


def test_the_launch_line_starts_a_detached_agent_that_serves_the_fixture(vdev: VirtualDevice) -> None:
    vdev.fs.add_file(JAR, b"dex\n\x00mobile-agent-android 0.1.0\x00...", mode=0o444, uid=2000, gid=2000)
    status, _, err = vdev.shell("am start -S -n dev.mobileagent.fixture/.MainActivity --es tab Big")
    assert status == 0, err
    stream = vdev.open_service("shell,v2,raw:" + launch_command(JAR, SOCKET, 10_000))
    stream.send(adb_wire.encode_shell_packet(adb_wire.SHELL_STDIN, (TOKEN + "\n").encode()))
    line = read_stdout_line(stream)
    assert line.startswith("MOBILE_AGENT_READY ")
    ready = json.loads(line.split(" ", 1)[1])
    stream.close()  # adbd's SIGHUP goes to a shell that is gone, never to the agent
    proc = vdev.processes.get(ready["pid"])
    assert proc is not None and proc.ppid == 1
    assert proc.args_line() == f"mobile-agent {SOCKET}"
    assert TOKEN not in proc.args_line() and TOKEN.encode() not in proc.cmdline_bytes()
    time.sleep(0.4)  # the Big tab composes
    conn, recv = _established(vdev, proc.pid)
    conn.send(wire.encode({"type": "request", "id": 1, "method": "snapshot", "deadline_ms": 5000, "params": {}}))
    snapshot = recv("response")["result"]
    assert snapshot["node_count"] == 573
    assert snapshot["display"] == {"width": 1080, "height": 2400, "density": 420, "rotation": 0}
    conn.send(wire.encode({"type": "request", "id": 2, "method": "shutdown", "deadline_ms": 5000, "params": {}}))
    assert recv("response")["result"] == {}
    assert wait_until(lambda: proc.dead) and proc.exit_status == 0
    assert vdev.automation.holder() is None


def test_a_landscape_screenshot_has_landscape_dimensions_and_the_display_orientation(vdev: VirtualDevice) -> None:
    from pytest_mobile_agent.virtual.agent import AgentCore, Identity, Platform, display_info
    from pytest_mobile_agent.virtual.kernel.streams import Kernel
    from tests.support.agent_host import Host

    ui = vdev.ui
    vdev.shell("am start -n dev.mobileagent.fixture/.MainActivity --es tab Big")
    vdev.display.rotation = 1
    core = AgentCore(Identity("0.1.0", "aaaaaaaaaaaa", 1, SOCKET, TOKEN), Platform(ui, lambda: display_info(vdev, ui)))
    try:
        host = Host(core, Kernel())
        host.handshake()
        shot = host.result("screenshot")
        assert (shot["width"], shot["height"], shot["rotation"]) == (2400, 1080, 1)
        snapshot = host.result("snapshot")
        assert snapshot["display"] == {"width": 2400, "height": 1080, "density": 420, "rotation": 1}
        assert snapshot["windows"][0]["bounds"] == [0, 0, 2400, 84]  # the status bar across the top
        vdev.display.rotation = 0
        vdev.display.override_density = 480
        assert host.result("snapshot")["display"] == {"width": 1080, "height": 2400, "density": 480, "rotation": 0}
        host.close()
    finally:
        core.stop()


def test_under_adb_root_the_launch_runs_the_agent_as_the_shell_and_its_clipboard_reads_keep_the_clip(
        vdev: VirtualDevice) -> None:
    """Issue 37, item 1: a root agent's clipboard read clears the clipboard (ClipboardService's
    addActiveOwnerLocked), so under `adb root` the launch line runs app_process as `su 2000`; adbd's
    connection, root's, reaches the token check."""
    vdev.fs.add_file(JAR, b"dex\n\x00mobile-agent-android 0.1.0\x00...", mode=0o444, uid=2000, gid=2000)
    vdev.adbd.uid = 0
    try:
        stream = vdev.open_service("shell,v2,raw:" + launch_command(JAR, SOCKET, 10_000))
        stream.send(adb_wire.encode_shell_packet(adb_wire.SHELL_STDIN, (TOKEN + "\n").encode()))
        line = read_stdout_line(stream)
    finally:
        vdev.adbd.uid = 2000
    assert line.startswith("MOBILE_AGENT_READY "), line
    proc = vdev.processes.get(json.loads(line.split(" ", 1)[1])["pid"])
    assert proc is not None and proc.uid == 2000
    stream.close()
    vdev.ui.clipboard = "the user's clip"
    conn, recv = _established(vdev, proc.pid, peer_uid=0)
    conn.send(wire.encode({"type": "request", "id": 1, "method": "clipboard_get", "deadline_ms": 5000, "params": {}}))
    assert recv("response")["result"] == {"text": "the user's clip"}
    assert vdev.ui.clipboard == "the user's clip"
    conn.send(wire.encode({"type": "request", "id": 2, "method": "shutdown", "deadline_ms": 5000, "params": {}}))
    assert recv("response")["result"] == {}


def _established(vdev: VirtualDevice, pid: int, peer_uid: int | None = None) -> tuple[Any, Callable[[str], dict]]:
    """A host connection to the launched agent, through its token and the handshake (its hello naming
    `pid`), and the call that reads the next message of a kind."""
    conn = vdev.open_service(f"localabstract:{SOCKET}", peer_uid=peer_uid)
    decoder = wire.FrameDecoder()
    inbox: list[dict] = []

    def recv(kind: str) -> dict:
        deadline = time.monotonic() + 5
        while True:
            while inbox:
                message = inbox.pop(0)
                if message["type"] == kind:
                    return message
            inbox.extend(decoder.feed(conn.recv(max(0.01, deadline - time.monotonic()))))

    conn.send(wire.encode({"type": "auth", "token": TOKEN}))
    assert recv("hello")["pid"] == pid
    conn.send(wire.encode({"type": "welcome", "protocol": 1, "host": "test"}))
    return conn, recv
