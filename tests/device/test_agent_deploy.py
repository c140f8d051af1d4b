"""The seed's agent deployment integration tests (tests/agent_deploy.rs), on whatever target
`--android-serial` names: `virtual` (the agent double, started from AgentJar.stand_in()) or a real
device or emulator (the jar agent-android/build.sh wrote, AgentJar.locate(), or `--agent-jar`): the
plugin's `agent_jar` fixture.

What they do on the device: start agents with a 10 s idle bound and stop each one at the end; a test
that fails first kills its agents by pid, after checking /proc/<pid>/cmdline against their sockets.
The replacement test starts the current dex with every `mobile-agent-android 0.1.0` rewritten to
0.0.9 (the dex checksum recomputed), pushed as a bare dex; the build test pushes the jar's own dex
bare. The conflict test runs `uiautomator events`, which holds UI automation while it runs.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.agent import (
    AgentJar,
    AgentState,
    Attached,
    Deployer,
    DeployOptions,
    Launched,
    Records,
    Reused,
)
from pytest_mobile_agent.agent.launch import JAR_MODE, PS_COMMAND, find_agents, parse_ps, remote_jar
from pytest_mobile_agent.agent.protocol import FrameDecoder, encode
from pytest_mobile_agent.plugin.gates import HostGate
from tests.support.polling import until, wait_until

pytestmark = pytest.mark.device

IDLE_EXIT_MS = 10_000
QUIET_WAIT_S = 60.0
SIGHUP_AND_SIGPIPE = 0x1001


@dataclass
class Deployments:
    """Deployers for one test, and the cleanup that stops (or kills) every agent they started."""

    device: Device
    jar: AgentJar
    records: Records = field(default_factory=Records)
    attached: list[Attached] = field(default_factory=list)
    started: list[tuple[int, str]] = field(default_factory=list)

    def deployer(self, jar: AgentJar | None = None, records: Records | None = None, **options: Any) -> Deployer:
        options.setdefault("idle_exit_ms", IDLE_EXIT_MS)
        return Deployer(self.device, jar or self.jar, self.records if records is None else records,
                        DeployOptions(**options))

    def attach(self, deployer: Deployer | None = None) -> Attached:
        result = (deployer or self.deployer()).attach()
        self.attached.append(result)
        self.started.append((result.record.pid, result.record.socket))
        return result

    def agents(self) -> list[Any]:
        return find_agents(parse_ps(self.device.shell(PS_COMMAND).stdout.decode()))

    def cleanup(self) -> None:
        for one in self.attached:
            with contextlib.suppress(errors.MobileAgentError):
                one.stop()
        killer = self.deployer()
        for pid, socket in self.started:
            killer.kill(pid, socket)  # only while /proc/<pid>/cmdline still names the socket


@pytest.fixture
def deployments(device: Device, agent_jar: AgentJar, without_this_runs_agent: None) -> Iterator[Deployments]:
    deployments = Deployments(device, agent_jar)
    _wait_quiet(deployments)
    try:
        yield deployments
    finally:
        deployments.cleanup()


AUTOMATION_CLIENTS = ("uiautomator", "com.github.uiautomator", "io.appium.uiautomator2")


def _busy(deployments: Deployments) -> list[str]:
    """The agents and the known automation clients running on the device."""
    entries = parse_ps(deployments.device.shell(PS_COMMAND).stdout.decode())
    agents = [agent.describe() for agent in find_agents(entries)]
    clients = [f"{e.args} (pid {e.pid})" for e in entries
               if e.args and any(e.args.split()[0].endswith(name) for name in AUTOMATION_CLIENTS)]
    return agents + clients


def _wait_quiet(deployments: Deployments) -> None:
    """The shared-device rule: wait, up to a minute, until no agent runs and nothing holds UI automation."""
    deadline = time.monotonic() + QUIET_WAIT_S
    while busy := _busy(deployments):
        if time.monotonic() > deadline:
            pytest.fail(f"the device {deployments.device.serial} is not quiet after {QUIET_WAIT_S:g} s: {busy}")
        time.sleep(0.5)


def _status(device: Device, pid: int) -> dict[str, str]:
    out = device.shell(f"cat /proc/{pid}/status")
    assert out.exit_code == 0, out
    fields = {}
    for line in out.stdout.decode().splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def _running(device: Device, pid: int) -> bool:
    return device.shell(f"cat /proc/{pid}/cmdline").exit_code == 0


def _gone(device: Device, pid: int) -> bool:
    """Whether the process `pid` ended within 5 s."""
    return wait_until(lambda: not _running(device, pid), 5.0, 0.05)


def _packages(device: Device) -> list[str]:
    out = device.shell("pm list packages")
    assert out.exit_code == 0, f"pm list packages failed: {out}"
    return sorted(out.stdout.decode().split())  # pm's order is not stable


def _alive(attached: Attached) -> None:
    assert attached.connection.request("bounds", {"ids": []}, timeout=2.0) == {"nodes": []}


# --- the tests -------------------------------------------------------------------------------------


def test_a_first_attach_starts_the_agent_and_installs_nothing(deployments: Deployments) -> None:
    device = deployments.device
    packages = _packages(device)
    deployer = deployments.deployer()
    assert deployer.state() is AgentState.ABSENT
    attached = deployments.attach(deployer)
    assert isinstance(attached.outcome, Launched) and attached.outcome.replaced is None
    assert deployer.state() is AgentState.RUNNING
    pid, socket = attached.record.pid, attached.record.socket
    assert attached.connection.hello.pid == pid and attached.connection.hello.build == deployments.jar.build
    uid = _status(device, pid)["Uid"].split()
    assert uid[0] == "2000", uid  # the shell user
    assert device.shell(f"ls {remote_jar(socket)}").exit_code != 0  # the jar was deleted
    ps = device.shell(PS_COMMAND).stdout.decode()
    assert f"mobile-agent {socket}" in ps
    assert attached.record.token not in ps  # the token is on no command line
    assert _packages(device) == packages  # nothing installed
    _alive(attached)
    attached.stop()
    assert deployer.state() is AgentState.ABSENT
    assert deployments.records.get(device.serial) is None


def test_a_compatible_agent_is_reused_without_starting_a_process(deployments: Deployments) -> None:
    first = deployments.attach()
    again = deployments.attach()
    assert again.outcome == Reused()
    assert again.record == first.record and again.connection.hello.pid == first.record.pid
    assert [a.pid for a in deployments.agents()] == [first.record.pid]
    assert first.connection.wait_closed(2.0)  # the newer connection replaced the older one
    _alive(again)


def test_an_incompatible_agent_is_replaced_by_the_current_build(deployments: Deployments) -> None:
    jar = deployments.jar
    older = jar.as_version("0.0.9")  # the current dex reading 0.0.9, pushed as a bare dex
    old = deployments.attach(deployments.deployer(older))
    assert old.connection.hello.version == "0.0.9"
    old.connection.close()
    current = deployments.deployer()
    assert current.state() is AgentState.INCOMPATIBLE
    started = time.perf_counter()
    new = deployments.attach(current)
    took = (time.perf_counter() - started) * 1000
    print(f"replacing an older build took {took:.1f} ms")
    assert isinstance(new.outcome, Launched)
    assert new.outcome.replaced is not None and "another version" in new.outcome.replaced
    assert _gone(deployments.device, old.record.pid)
    assert new.connection.hello.version == jar.version
    assert current.state() is AgentState.RUNNING


def test_an_agent_of_another_build_of_the_same_version_is_replaced(deployments: Deployments) -> None:
    jar = deployments.jar
    bare = AgentJar.from_bytes(jar.dex())  # the same version from other bytes
    assert bare.version == jar.version and bare.build != jar.build
    old = deployments.attach(deployments.deployer(bare))
    assert old.connection.hello.build == bare.build
    old.connection.close()
    current = deployments.deployer()
    assert current.state() is AgentState.INCOMPATIBLE
    new = deployments.attach(current)
    assert isinstance(new.outcome, Launched)
    assert new.outcome.replaced is not None and "another build" in new.outcome.replaced
    assert _gone(deployments.device, old.record.pid)
    assert new.connection.hello.build == jar.build


class _Observing:
    """The device, with the mode of each pushed file read back right after the push."""

    def __init__(self, device: Device) -> None:
        self._device = device
        self.modes: dict[str, str] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._device, name)

    def push_bytes(self, data: bytes, remote: str, mode: int = 0o644, **kwargs: Any) -> None:
        self._device.push_bytes(data, remote, mode, **kwargs)
        self.modes[remote] = self._device.shell(f"stat -c %a {remote}").stdout.decode().strip()


class _SnoopingStream:
    """The launch stream, with the process list taken right after the token went in, mid-launch."""

    def __init__(self, stream: Any, device: Device, snapshots: list[str]) -> None:
        self._stream, self._device, self._snapshots = stream, device, snapshots

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def close_stdin(self) -> None:
        self._stream.close_stdin()
        for _ in range(3):
            self._snapshots.append(self._device.shell("ps -A -o PID,ARGS").stdout.decode())


class _Snooping(_Observing):
    def __init__(self, device: Device) -> None:
        super().__init__(device)
        self.snapshots: list[str] = []

    def shell_stream(self, cmd: str) -> Any:
        self.snapshots.append(cmd)
        return _SnoopingStream(self._device.shell_stream(cmd), self._device, self.snapshots)


def test_during_a_launch_no_command_line_and_no_log_record_holds_the_token(
        deployments: Deployments, caplog: pytest.LogCaptureFixture) -> None:
    snooping = _Snooping(deployments.device)
    deployer = Deployer(snooping, deployments.jar, deployments.records,  # type: ignore[arg-type]
                        DeployOptions(idle_exit_ms=IDLE_EXIT_MS))
    with caplog.at_level(logging.DEBUG):
        attached = deployments.attach(deployer)
        _alive(attached)
    token = attached.record.token
    assert len(snooping.snapshots) == 4  # the command and three process lists taken mid-launch
    assert all(token not in text for text in snooping.snapshots)
    cmdline = deployments.device.shell(f"cat /proc/{attached.record.pid}/cmdline").stdout
    assert token.encode() not in cmdline
    assert caplog.records and all(token not in record.getMessage() for record in caplog.records)


def test_the_jar_is_pushed_read_only(deployments: Deployments) -> None:
    observing = _Observing(deployments.device)
    deployer = Deployer(observing, deployments.jar, deployments.records,  # type: ignore[arg-type]
                        DeployOptions(idle_exit_ms=IDLE_EXIT_MS))
    attached = deployments.attach(deployer)
    assert JAR_MODE == 0o444
    assert observing.modes == {remote_jar(attached.record.socket): "444"}  # arrives unwidened
    assert deployments.device.shell(f"ls {remote_jar(attached.record.socket)}").exit_code != 0


def test_the_agent_outlives_its_launch_stream_and_a_closed_stdout(deployments: Deployments,
                                                                   android_target: Any) -> None:
    attached = deployments.attach()
    pid = attached.record.pid
    status = _status(deployments.device, pid)
    assert status["PPid"] == "1"  # reparented to init: the launch shell has exited
    assert int(status["SigIgn"], 16) & SIGHUP_AND_SIGPIPE == SIGHUP_AND_SIGPIPE
    _alive(attached)
    refused = _connect_as_an_app(deployments, android_target, attached.record.socket)
    if refused is not None:
        assert refused == [{"type": "refused", "code": "peer_not_allowed", "message": "peer not allowed"}]
    time.sleep(0.2)  # the agent has written its diagnostic to the closed stdout by now
    assert _running(deployments.device, pid)
    _alive(attached)
    again = deployments.attach()
    assert again.outcome == Reused()


def _connect_as_an_app(deployments: Deployments, android_target: Any, socket: str) -> list[dict] | None:
    """The frames a peer of another uid (an app's, 10123) gets: refused, and the diagnostic goes to
    the closed stdout; None (printed) where no such connection can be made. (Root peers reach the
    token check: under `adb root` adbd's connection is root's, issue 37.)"""
    if android_target.virtual:
        # the virtual device's seam for a connection from another uid's process (as under `su 10123`)
        stream = android_target.lab.device(android_target.serial).open_service(f"localabstract:{socket}",
                                                                               peer_uid=10123)
        try:
            stream.send(encode({"type": "auth", "token": deployments.records.get(deployments.device.serial).token}))
            return _frames_until_end(lambda: stream.recv(2.0))
        finally:
            stream.close()
    if deployments.device.shell("su 10123 id -u").stdout.strip() != b"10123":
        print("no `su` on this device: the app-peer part is skipped")
        return None
    out = deployments.device.shell(f"su 10123 toybox nc -U @{socket} </dev/null")
    print(f"app peer through su 10123: status {out.exit_code}")
    return None


def _frames_until_end(recv: Any) -> list[dict]:
    decoder = FrameDecoder()
    frames: list[dict] = []
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline:
        data = recv()
        if not data:
            break
        frames.extend(decoder.feed(data))
    return frames


def test_a_wrong_token_learns_nothing_but_unauthorized(deployments: Deployments) -> None:
    attached = deployments.attach()
    stream = deployments.device.open_abstract(attached.record.socket)
    try:
        stream.sendall(encode({"type": "auth", "token": "0" * 32}))
        frames = _frames_until_end(lambda: stream.recv(65536, timeout=2.0))
    finally:
        stream.close()
    assert frames == [{"type": "refused", "code": "unauthorized", "message": "unauthorized"}]
    _alive(deployments.attach())  # the agent goes on serving its host


def test_another_tool_holding_automation_is_a_conflict_naming_it_until_forced(deployments: Deployments) -> None:
    device = deployments.device
    holder = device.shell_stream("uiautomator events")
    try:
        until(lambda: any("uiautomator" in e.args for e in parse_ps(device.shell(PS_COMMAND).stdout.decode())),
              timeout=5.0, what="uiautomator in the process list")
        time.sleep(0.3)  # it registers with the automation service after it starts
        with pytest.raises(errors.Conflict) as caught:
            deployments.attach()
        text = str(caught.value)
        pids = [e.pid for e in parse_ps(device.shell(PS_COMMAND).stdout.decode()) if "uiautomator" in e.args]
        assert "uiautomator" in text and any(f"pid {pid}" in text for pid in pids), text
        assert "already registered" in text and "force" in text
        assert deployments.agents() == []
        forced = deployments.attach(deployments.deployer(force=True))
        assert isinstance(forced.outcome, Launched)
        assert any("uiautomator" in name for name in forced.outcome.took_over), forced.outcome
        _alive(forced)
    finally:
        holder.close()


def test_an_agent_another_host_started_is_a_conflict_until_forced(deployments: Deployments,
                                                                  host_gate: HostGate) -> None:
    other_host = deployments.attach(deployments.deployer(records=Records()))  # another host's records
    other_host.connection.close()
    started = time.perf_counter()
    with pytest.raises(errors.Conflict) as caught:
        deployments.attach()
    found = (time.perf_counter() - started) * 1000
    text = str(caught.value)
    assert "mobile-agent" in text and str(other_host.record.pid) in text and other_host.record.socket in text
    assert [a.pid for a in deployments.agents()] == [other_host.record.pid]  # nothing started
    host_gate.check(found, 1000, "the conflict found")
    forced = deployments.attach(deployments.deployer(force=True))
    assert isinstance(forced.outcome, Launched)
    assert any(other_host.record.socket in name for name in forced.outcome.took_over), forced.outcome
    assert _gone(deployments.device, other_host.record.pid)


def _adbd(device: Device, service: str) -> str:
    """What adbd says to `adb root` (`root:`) or `adb unroot` (`unroot:`); then the device is back with
    shells of the new uid (the old adbd exits after its answer and starts nothing more: a shell that
    answers with the new uid is the new adbd's, on the transport the adb server attached again)."""
    with device.open_service(service) as stream:
        said = b""
        while chunk := stream.recv(4096, timeout=10.0):
            said += chunk
    text = said.decode(errors="replace")
    if "restarting" in text:
        uid = b"0" if service == "root:" else b"2000"
        until(lambda: _shell_uid(device) == uid, timeout=30.0,
              what=f"the device back after {service}, its shells uid {uid.decode()}")
    return text


def _shell_uid(device: Device) -> bytes | None:
    with contextlib.suppress(errors.MobileAgentError, OSError):
        return device.shell("id -u").stdout.strip()
    return None


def test_under_adb_root_the_agent_runs_as_the_shell_and_its_clipboard_round_trip_holds(
        deployments: Deployments) -> None:
    """Issue 37, item 1: an agent running as root would clear the clipboard on every read
    (ClipboardService.addActiveOwnerLocked), so under `adb root` the launch runs it as `su 2000`, and
    adbd's root connection reaches its token check."""
    device = deployments.device
    said = _adbd(device, "root:")
    try:
        if "cannot run as root" in said:
            pytest.skip(f"`adb root` on this build: {said.strip()} (only userdebug and eng builds allow it)")
        assert device.shell("id -u").stdout.strip() == b"0"
        attached = deployments.attach(deployments.deployer(records=Records(), force=True))
        assert _status(device, attached.record.pid)["Uid"].split()[0] == "2000"
        conn = attached.connection
        conn.request("clipboard_set", {"text": "set under adb root"}, timeout=5.0)
        assert conn.request("clipboard_get", {}, timeout=5.0) == {"text": "set under adb root"}
        conn.request("clipboard_set", {"text": None}, timeout=5.0)
    finally:
        if "cannot run as root" not in said:
            _adbd(device, "unroot:")
