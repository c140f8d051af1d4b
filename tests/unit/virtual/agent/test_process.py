"""The agent double as a process of the virtual device: identity from its jar, its name, UI
automation and conflicts, the root peer, idle exit and signals."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
import xxhash

from pytest_mobile_agent import errors
from pytest_mobile_agent.agent import protocol as wire
from pytest_mobile_agent.virtual import agent
from pytest_mobile_agent.virtual.agent import process as agent_process
from pytest_mobile_agent.virtual.agent.tree import Tree
from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.kernel.process import SIGCONT, SIGKILL, SIGSTOP, SIGTERM, Process
from pytest_mobile_agent.virtual.kernel.streams import PLAIN, NullFile, Pipe, PipeReader
from tests.support.agent_host import TOKEN
from tests.support.polling import wait_until

JAR = b"PK\x03\x04 classes.dex ... mobile-agent-android 0.1.0\x00 ... dev/mobileagent/agent/Main"


class Launched:
    """An agent process started as app_process starts it, its standard output on a pipe."""

    def __init__(self, proc: Process, out: PipeReader) -> None:
        self.proc = proc
        self.out = out
        self.buffer = b""

    def line(self, timeout: float = 3.0) -> str:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            data = self.out.read(4096, PLAIN, deadline)
            if data is None:
                raise errors.Timeout("agent stdout", timeout)
            if not data:
                raise AssertionError(f"stdout ended: {self.buffer!r}")
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode()

    def payload(self, prefix: str, timeout: float = 3.0) -> dict[str, Any]:
        line = self.line(timeout)
        assert line.startswith(prefix + " "), line
        value: dict[str, Any] = json.loads(line[len(prefix) + 1:])
        return value


@pytest.fixture
def vdev() -> Iterator[VirtualDevice]:
    dev = VirtualDevice("emulator-5570")
    yield dev
    for proc in dev.processes.processes():
        if proc.args_line().startswith(("mobile-agent ", "uiautomator")):
            proc.deliver(SIGKILL)
    dev.close()


def launch(vdev: VirtualDevice, socket: str, *extra: str, jar: bytes = JAR, token: str = TOKEN,
           idle_ms: int = 10_000) -> Launched:
    path = f"/data/local/tmp/{socket}.jar"
    vdev.fs.add_file(path, jar, mode=0o444, uid=2000, gid=2000)
    words = ["serve", "--socket", socket, "--idle-exit-ms", str(idle_ms), *extra]
    pipe = Pipe(vdev.kernel)
    proc = vdev.processes.fork(vdev.adbd, argv=["app_process", "/", agent.MAIN_CLASS, *words],
                                 fds={0: NullFile(), 1: pipe.open_writer(), 2: pipe.open_writer()})
    proc.env = {"CLASSPATH": path, **({"MOBILE_AGENT_TOKEN": token} if token else {})}
    reader = pipe.open_reader()
    proc.start(lambda p: agent.main(vdev, p, words))
    return Launched(proc, reader)


def holder_process(vdev: VirtualDevice, argv: list[str]) -> Process:
    """A resident automation client (as `uiautomator events` is while it runs)."""
    proc = vdev.processes.fork(vdev.adbd, argv=argv)
    proc.uid = 2000
    assert vdev.automation.acquire(proc.pid, " ".join(argv))
    return proc


def connect(vdev: VirtualDevice, socket: str, peer_uid: int = 2000) -> Any:
    return vdev.sockets.connect_abstract(socket, peer_uid)


def frames(stream: Any, timeout: float = 3.0) -> list[dict[str, Any]]:
    """Every frame until the stream ends."""
    decoder = wire.FrameDecoder()
    out: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while True:
        data = stream.recv(max(0.01, deadline - time.monotonic()))
        if not data:
            return out
        out.extend(decoder.feed(data))


def test_the_ready_line_reports_the_build_and_version_of_the_file_it_started_from(vdev: VirtualDevice) -> None:
    launched = launch(vdev, "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000001")
    ready = launched.payload("MOBILE_AGENT_READY")
    assert ready == {"pid": launched.proc.pid, "socket": "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000001",
                     "version": "0.1.0", "build": xxhash.xxh3_64(JAR).hexdigest()[:12], "protocols": [1],
                     "stopped": []}
    older = JAR.replace(b"mobile-agent-android 0.1.0", b"mobile-agent-android 0.0.9")
    launched.proc.deliver(SIGTERM)
    second = launch(vdev, "mobile-agent-0.0.9-p1-bbbbbbbbbbbb-000000000002", jar=older)
    ready = second.payload("MOBILE_AGENT_READY")
    assert (ready["version"], ready["build"]) == ("0.0.9", xxhash.xxh3_64(older).hexdigest()[:12])


def test_the_process_is_named_after_its_socket(vdev: VirtualDevice) -> None:
    socket = "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000003"
    launched = launch(vdev, socket)
    launched.payload("MOBILE_AGENT_READY")
    assert launched.proc.args_line() == f"mobile-agent {socket}"
    assert socket.encode() in launched.proc.cmdline_bytes()
    assert vdev.automation.holder() == (launched.proc.pid, f"mobile-agent {socket}")


def test_without_a_token_or_a_readable_jar_the_agent_prints_an_error_line_and_exits_1(vdev: VirtualDevice) -> None:
    no_token = launch(vdev, "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000004", token="")
    assert no_token.payload("MOBILE_AGENT_ERROR")["code"] == "no_token"
    assert wait_until(lambda: no_token.proc.dead) and no_token.proc.exit_status == 1
    not_agent = launch(vdev, "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000005", jar=b"PK just a zip")
    error = not_agent.payload("MOBILE_AGENT_ERROR")
    assert error["code"] == "classpath" and TOKEN not in json.dumps(error)
    assert vdev.automation.holder() is None


def test_automation_held_by_uiautomator_is_a_conflict_naming_it(vdev: VirtualDevice) -> None:
    holder = holder_process(vdev, ["uiautomator", "events"])
    launched = launch(vdev, "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000006")
    conflict = launched.payload("MOBILE_AGENT_CONFLICT")
    assert conflict["holder"] == {"pid": holder.pid, "name": "uiautomator events"}
    assert "already registered!" in conflict["message"] and "UiAutomationService" in conflict["message"]
    assert wait_until(lambda: launched.proc.dead) and launched.proc.exit_status == 3
    assert vdev.automation.holder() == (holder.pid, "uiautomator events")  # not taken over


def test_force_stops_the_holder_and_reports_it_in_the_ready_line(vdev: VirtualDevice) -> None:
    holder = holder_process(vdev, ["uiautomator", "events"])
    launched = launch(vdev, "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000007", "--force")
    ready = launched.payload("MOBILE_AGENT_READY")
    assert ready["stopped"] == [{"pid": holder.pid, "name": "uiautomator events"}]
    assert holder.dead
    assert vdev.automation.holder() == (
        launched.proc.pid,
        "mobile-agent mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000007",
    )


def test_another_agent_is_a_conflict_until_forced(vdev: VirtualDevice) -> None:
    first = launch(vdev, "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000008")
    first.payload("MOBILE_AGENT_READY")
    second = launch(vdev, "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000009")
    assert second.payload("MOBILE_AGENT_CONFLICT")["holder"] == {
        "pid": first.proc.pid, "name": "mobile-agent mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000008"}
    third = launch(vdev, "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000010", "--force")
    assert [s["pid"] for s in third.payload("MOBILE_AGENT_READY")["stopped"]] == [first.proc.pid]
    assert wait_until(lambda: first.proc.dead)
    assert "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000008" not in vdev.sockets.abstract_names()


def test_an_app_peer_is_refused_and_logged_and_a_closed_stdout_leaves_it_serving(vdev: VirtualDevice) -> None:
    socket = "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000011"
    launched = launch(vdev, socket)
    launched.payload("MOBILE_AGENT_READY")
    assert frames(connect(vdev, socket, peer_uid=10123)) == [
        {"type": "refused", "code": "peer_not_allowed", "message": "peer not allowed"}]
    assert launched.line() == "MOBILE_AGENT_LOG refused peer uid 10123"
    launched.out.release()  # the launch stream is gone: later writes meet EPIPE
    assert frames(connect(vdev, socket, peer_uid=10123))[0]["code"] == "peer_not_allowed"
    stream = connect(vdev, socket)
    stream.send(wire.encode({"type": "auth", "token": TOKEN}))
    decoder = wire.FrameDecoder()
    assert decoder.feed(stream.recv(3.0))[0]["type"] == "hello"
    assert not launched.proc.dead
    stream.close()


def test_without_a_host_the_agent_exits_after_its_idle_bound_and_releases_everything(vdev: VirtualDevice) -> None:
    socket = "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000012"
    launched = launch(vdev, socket, idle_ms=300)
    launched.payload("MOBILE_AGENT_READY")
    started = time.monotonic()
    assert wait_until(lambda: launched.proc.dead)
    assert 0.25 <= time.monotonic() - started < 2.0
    assert launched.proc.exit_status == 0
    assert vdev.automation.holder() is None
    assert socket not in vdev.sockets.abstract_names()


def test_a_connected_host_keeps_the_agent_past_its_idle_bound(vdev: VirtualDevice) -> None:
    socket = "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000013"
    launched = launch(vdev, socket, idle_ms=300)
    launched.payload("MOBILE_AGENT_READY")
    stream = connect(vdev, socket)
    stream.send(wire.encode({"type": "auth", "token": TOKEN}))
    stream.recv(3.0)
    stream.send(wire.encode({"type": "welcome", "protocol": 1, "host": "test"}))
    time.sleep(0.6)
    assert not launched.proc.dead
    stream.close()
    assert wait_until(lambda: launched.proc.dead)


@pytest.mark.parametrize("sig", [SIGTERM, SIGKILL])
def test_a_signal_ends_the_agent_and_releases_automation_and_its_socket(vdev: VirtualDevice, sig: int) -> None:
    socket = f"mobile-agent-0.1.0-p1-aaaaaaaaaaaa-0000000000{sig:02d}"
    launched = launch(vdev, socket)
    launched.payload("MOBILE_AGENT_READY")
    stream = connect(vdev, socket)
    vdev.processes.kill(launched.proc.pid, sig, 2000)
    assert launched.proc.dead and launched.proc.exit_status == 128 + sig
    assert vdev.automation.holder() is None
    assert socket not in vdev.sockets.abstract_names()
    assert frames(stream) == []  # the host sees the end of the stream at once


class Wire:
    """A host on one connection to a launched agent: frames out, frames in with a deadline."""

    def __init__(self, vdev: VirtualDevice, socket: str) -> None:
        self.stream = connect(vdev, socket)
        self.decoder = wire.FrameDecoder()
        self.inbox: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.stream.send(wire.encode(message))

    def handshake(self) -> None:
        self.send({"type": "auth", "token": TOKEN})
        assert self.next(3.0)["type"] == "hello"
        self.send({"type": "welcome", "protocol": 1, "host": "test"})

    def next(self, timeout: float) -> dict[str, Any]:
        """The next frame; errors.Timeout when none came in time, AssertionError at the end."""
        deadline = time.monotonic() + timeout
        while not self.inbox:
            left = deadline - time.monotonic()
            if left <= 0:
                raise errors.Timeout("the next frame", timeout)
            try:
                data = self.stream.recv(left)
            except errors.Timeout:
                continue
            assert data, "the stream ended"
            self.inbox.extend(self.decoder.feed(data))
        return self.inbox.pop(0)

    def within(self, timeout: float) -> list[dict[str, Any]]:
        """Every frame that comes within `timeout` (the stream staying open)."""
        out: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                out.append(self.next(max(0.0, deadline - time.monotonic())))
            except errors.Timeout:
                return out

    def until_end(self, timeout: float = 3.0) -> list[dict[str, Any]]:
        out = list(self.inbox)
        self.inbox.clear()
        return out + frames(self.stream, timeout)


def test_a_stopped_agent_is_silent_until_sigcont_and_then_goes_on(vdev: VirtualDevice) -> None:
    """SIGSTOP stops every thread of the agent: no pong, no response, no ping of its own, no move of
    a swipe under way; SIGCONT lets each go on where it stood."""
    socket = "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000020"
    launched = launch(vdev, socket)
    launched.payload("MOBILE_AGENT_READY")
    host = Wire(vdev, socket)
    host.handshake()
    ui = vdev.ui  # type: ignore[attr-defined]
    host.send({"type": "request", "id": 1, "method": "swipe", "deadline_ms": 5000,
               "params": {"x1": 540, "y1": 1800, "x2": 540, "y2": 600, "duration_ms": 800}})
    assert wait_until(lambda: ui._pointer is not None and ui._pointer.y < 1700)  # the swipe is under way
    launched.proc.deliver(SIGSTOP)
    time.sleep(0.05)  # a move already past the stop lands
    # What the agent wrote before the stop (a status bar event, say) is the host's to read still.
    before_stop = host.within(0.05)
    assert not [m for m in before_stop if m["type"] == "response"]
    at_stop = (ui._pointer.x, ui._pointer.y)
    host.send({"type": "ping", "nonce": 7})
    host.send({"type": "request", "id": 2, "method": "tap", "deadline_ms": 5000, "params": {"x": 10, "y": 10}})
    assert host.within(1.3) == []  # over a second: not even the agent's own ping
    assert ui._pointer is not None and (ui._pointer.x, ui._pointer.y) == at_stop
    assert launched.proc.state_letter() == "T"
    launched.proc.deliver(SIGCONT)
    got = host.within(1.5)
    assert {"type": "pong", "nonce": 7} in got
    responses = {m["id"]: m for m in got if m["type"] == "response"}
    assert set(responses) == {1, 2}
    assert responses[2]["result"] == {"accepted": True}
    assert responses[1]["result"]["moves"] == 100  # every move of the swipe was injected
    assert ui._pointer is None
    assert not launched.proc.dead


@pytest.mark.parametrize("ending", ["shutdown", "refuse"])
def test_shutdown_and_a_refused_protocol_end_the_process_without_waiting_for_the_accept_loop(
        vdev: VirtualDevice, monkeypatch: pytest.MonkeyPatch, ending: str) -> None:
    """Stopping wakes the accept loop: with its wait stretched to 30 s the process still ends."""
    monkeypatch.setattr(agent_process, "ACCEPT_SLICE_S", 30.0)
    socket = f"mobile-agent-0.1.0-p1-aaaaaaaaaaaa-0000000000{21 if ending == 'shutdown' else 22}"
    launched = launch(vdev, socket)
    launched.payload("MOBILE_AGENT_READY")
    host = Wire(vdev, socket)
    if ending == "shutdown":
        host.handshake()
        host.send({"type": "request", "id": 1, "method": "shutdown", "deadline_ms": 3000, "params": {}})
        assert host.until_end() == [{"type": "response", "id": 1, "result": {}},
                                    {"type": "closing", "reason": "shutdown"}]
    else:
        host.send({"type": "auth", "token": TOKEN})
        assert host.next(3.0)["type"] == "hello"
        host.send({"type": "refuse", "code": "version_mismatch", "message": "host speaks protocols [2]"})
        assert host.until_end() == []
    assert wait_until(lambda: launched.proc.dead)
    assert launched.proc.exit_status == 0
    assert vdev.processes.get(launched.proc.pid) is None  # gone from ps
    assert vdev.automation.holder() is None and socket not in vdev.sockets.abstract_names()


def test_a_host_that_authenticated_as_the_agent_exits_idle_is_told_closing_idle(
        vdev: VirtualDevice, monkeypatch: pytest.MonkeyPatch) -> None:
    """The accept loop decides on idle exit when it sees no host; a host whose auth lands just after
    that check is the connection the exit closes, and it is told why (protocol section 7)."""
    socket = "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000023"
    launched = launch(vdev, socket, idle_ms=400)
    launched.payload("MOBILE_AGENT_READY")
    host = Wire(vdev, socket)
    host.handshake()
    # the loop's view: the check ran before the auth landed
    monkeypatch.setattr(agent.AgentCore, "connected", property(lambda self: False))
    # a ping may come first on a loaded host (the agent pings after 1 s of silence): protocol traffic
    assert [m for m in host.until_end() if m["type"] != "ping"] == [{"type": "closing", "reason": "idle"}]
    assert wait_until(lambda: launched.proc.dead) and launched.proc.exit_status == 0


def test_an_agent_stopped_in_the_middle_of_a_read_leaves_the_ui_to_the_device(
        vdev: VirtualDevice, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGSTOP lands while the agent reads the Big tab: the read stops where the model's lock is let
    go, so the device's UI goes on (the shell's input reaches it); SIGCONT finishes the read."""
    status, _, err = vdev.shell("am start -W -S -n dev.mobileagent.fixture/.MainActivity --es tab Big")
    assert status == 0, err
    socket = "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000024"
    launched = launch(vdev, socket)
    launched.payload("MOBILE_AGENT_READY")
    between = Tree.between_slices
    stopped: list[bool] = []

    def a_stop_arrives_mid_read(self: Tree) -> None:
        if not stopped:
            stopped.append(True)
            launched.proc.deliver(SIGSTOP)
        between(self)

    monkeypatch.setattr(Tree, "between_slices", a_stop_arrives_mid_read)
    host = Wire(vdev, socket)
    host.handshake()
    host.send({"type": "request", "id": 1, "method": "snapshot", "deadline_ms": 5000,
               "params": {"evict_event_less": True}})
    assert wait_until(lambda: launched.proc.state_letter() == "T")
    ui = vdev.ui  # type: ignore[attr-defined]
    assert ui.lock.acquire(timeout=2.0), "the stopped agent holds the UI model's lock"
    ui.lock.release()
    status, _, err = vdev.shell("input keyevent 4")  # the device's input reaches the UI meanwhile
    assert status == 0, err
    assert ui.foreground() is None
    assert host.within(0.3) == []
    launched.proc.deliver(SIGCONT)
    got: list[dict[str, Any]] = []
    finished_by = time.monotonic() + 10.0  # the rest of the Big tab's read: 0.8 s was once too short at load
    while not any(m["type"] == "response" for m in got) and time.monotonic() < finished_by:
        got += [m for m in host.within(0.5) if m["type"] != "ping"]
    # the changes first (the BACK's windows_changed, and on a loaded host sometimes a second event
    # before the read ends), then the answer; an event the device sends after it may share the last
    # half second read (CI once read ['event', 'response', 'event'])
    types = [m["type"] for m in got]
    answered = types.index("response") if "response" in types else len(types)
    assert answered < len(types) and types[:answered] and set(types[:answered]) == {"event"}, types
    assert set(types[answered + 1:]) <= {"event"}, types
    assert got[0]["name"] == "windows_changed"
    answer = got[answered]["result"]
    windows = answer["windows"]
    assert "dev.mobileagent.fixture" not in [w["package"] for w in windows]  # gone under the read: left out
    assert answer["node_count"] == sum(w["node_count"] for w in windows)


@pytest.mark.parametrize("ending", ["idle", "shutdown"])
def test_the_rotation_the_user_locked_while_the_agent_ran_outlives_its_exit(vdev: VirtualDevice, ending: str) -> None:
    """UiAutomation.disconnect() would put back the rotation state of the connect
    (UiAutomationConnection.restoreRotationStateLocked); the agent exits without it, and the system
    releases the slot (the automation slot's `release`, UiAutomationManager's death recipient)."""
    socket = f"mobile-agent-0.1.0-p1-aaaaaaaaaaaa-0000000000{30 if ending == 'idle' else 31}"
    launched = launch(vdev, socket, idle_ms=300)
    launched.payload("MOBILE_AGENT_READY")
    vdev.display.freeze_rotation(1)  # the test locks the display in landscape
    if ending == "shutdown":
        host = connect(vdev, socket)
        host.send(wire.encode({"type": "auth", "token": TOKEN}))
        decoder = wire.FrameDecoder()
        assert decoder.feed(host.recv(3.0))[0]["type"] == "hello"
        host.send(wire.encode({"type": "welcome", "protocol": 1, "host": "test"}))
        host.send(wire.encode({"type": "request", "id": 1, "method": "shutdown", "deadline_ms": 1000, "params": {}}))
    assert wait_until(lambda: launched.proc.dead)
    assert vdev.automation.holder() is None
    assert (vdev.display.rotation, vdev.display.rotation_frozen) == (1, True)


def test_a_disconnect_puts_back_the_rotation_state_of_the_connect(vdev: VirtualDevice) -> None:
    """What the agent's old release did (UiAutomationConnection.restoreRotationStateLocked)."""
    proc = holder_process(vdev, ["uiautomator", "events"])  # connected with the display frozen at 0
    vdev.display.freeze_rotation(1)
    vdev.automation.disconnect(proc.pid)
    assert vdev.display.rotation == 0 and vdev.automation.holder() is None
    vdev.display.thaw_rotation()
    other = holder_process(vdev, ["uiautomator", "dump"])  # connected with auto-rotate on
    vdev.display.freeze_rotation(3)
    vdev.automation.disconnect(other.pid)
    assert (vdev.display.rotation, vdev.display.rotation_frozen) == (0, False)


def test_under_adb_root_the_agent_accepts_root_peers_and_refuses_the_shell(vdev: VirtualDevice) -> None:
    """`adb root`: adbd and the shell that launches the agent run as uid 0 (packages/modules/adb,
    daemon/main.cpp should_drop_privileges), so adbd's connection to the agent's socket is root's."""
    socket = "mobile-agent-0.1.0-p1-aaaaaaaaaaaa-000000000032"
    vdev.adbd.uid = 0
    try:
        launched = launch(vdev, socket)
    finally:
        vdev.adbd.uid = 2000
    assert launched.proc.uid == 0
    launched.payload("MOBILE_AGENT_READY")
    stream = connect(vdev, socket, peer_uid=0)
    stream.send(wire.encode({"type": "auth", "token": TOKEN}))
    assert wire.FrameDecoder().feed(stream.recv(3.0))[0]["type"] == "hello"
    stream.close()
    assert frames(connect(vdev, socket, peer_uid=2000)) == [
        {"type": "refused", "code": "peer_not_allowed", "message": "peer not allowed"}]
    assert launched.line() == "MOBILE_AGENT_LOG refused peer uid 2000"
