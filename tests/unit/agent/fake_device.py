"""A fake device for the deployer's logic: a process list, /proc cmdlines, pushes, the launch stream,
and agents served by ScriptedAgent peers over socketpairs."""

from __future__ import annotations

import json
import re
import shlex
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from pytest_mobile_agent.agent.jar import build_of
from pytest_mobile_agent.agent.launch import PS_COMMAND
from pytest_mobile_agent.errors import Closed, Timeout
from tests.support.scripted_agent import AgentIdentity, ScriptedAgent


@dataclass
class Output:
    exit_code: int
    stdout: bytes = b""
    stderr: bytes = b""


@dataclass
class FakeAgent:
    """An agent process on the fake device."""

    pid: int
    socket: str
    token: str
    version: str = "0.1.0"
    build: str = "7fec0cb05341"
    protocols: tuple[int, ...] = (1,)
    exits_on_shutdown: bool = True
    args: str = ""
    hello_pid: int | None = None  # the pid its hello names, when not its own
    connections: list[ScriptedAgent] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.args = self.args or f"mobile-agent {self.socket}"


@dataclass
class Holder:
    pid: int
    args: str


class LaunchStream:
    """The shell v2 stream of the launch command: takes the token on stdin, then gives lines."""

    def __init__(self, device: FakeDevice, command: str) -> None:
        self.device = device
        self.command = command
        self.stdin = b""
        self.lines: list[str] = []
        self.ends = True  # the stream ends after its lines (else it stays silent)
        self.closed = False

    def write(self, data: bytes) -> None:
        self.stdin += data

    def close_stdin(self) -> None:
        self.lines, self.ends = self.device.run_launch(self.command, self.stdin.decode().strip())

    def read(self, timeout: float | None = None) -> tuple[int, bytes] | None:
        """(1, stdout bytes) or (2, stderr bytes); None once the command exited."""
        if self.lines:
            line = self.lines.pop(0)
            if line.startswith("stderr:"):
                return 2, line[len("stderr:"):].encode() + b"\n"
            half = len(line) // 2  # lines arrive split across packets
            if half:
                self.lines.insert(0, line[half:])
                return 1, line[:half].encode()
            return 1, line.encode()
        if self.ends:
            return None
        time.sleep(timeout or 0)
        raise Timeout("reading the launch stream", timeout)

    def close(self) -> None:
        self.closed = True


class FakeDevice:
    serial = "emulator-5554"

    def __init__(self) -> None:
        self.agents: dict[int, FakeAgent] = {}
        self.others: dict[int, str] = {1: "init second_stage", 600: "/system/bin/surfaceflinger"}
        self.holder: Holder | None = None  # a non-agent client holding UI automation
        self.files: dict[str, tuple[bytes, int]] = {}
        self.pushes: list[tuple[str, int]] = []
        self.commands: list[str] = []
        self.launches: list[LaunchStream] = []
        self.kills: list[int] = []
        self.report_build: str | None = None  # a launched agent reports this build instead of its jar's
        self.launch_script: list[str] | None = None  # lines a launch prints instead of the ready line
        self.launch_ends = True
        self.peers: list[ScriptedAgent] = []  # every connection ever served
        self._next_pid = 4000
        self._lock = threading.Lock()

    # --- the device surface the deployer uses ---------------------------------------------------

    def shell(self, cmd: str) -> Output:
        self.commands.append(cmd)
        if cmd == PS_COMMAND:
            return Output(0, self._ps().encode())
        if match := re.fullmatch(r"cat /proc/(\d+)/cmdline", cmd):
            args = self._args(int(match[1]))
            if args is None:
                return Output(1, b"", f"cat: /proc/{match[1]}/cmdline: No such file or directory\n".encode())
            return Output(0, args.replace(" ", "\0").encode() + b"\0")
        if match := re.fullmatch(r"kill -9 (\d+)", cmd):
            pid = int(match[1])
            self.kills.append(pid)
            self.exit(pid)
            return Output(0)
        if cmd.startswith("rm -f "):
            self.files.pop(shlex.split(cmd)[2], None)
            return Output(0)
        return Output(127, b"", f"/system/bin/sh: {cmd.split()[0]}: inaccessible or not found\n".encode())

    def shell_stream(self, cmd: str) -> LaunchStream:
        self.commands.append(cmd)
        stream = LaunchStream(self, cmd)
        self.launches.append(stream)
        return stream

    def push_bytes(self, data: bytes, remote: str, mode: int = 0o644) -> None:
        self.files[remote] = (bytes(data), mode)
        self.pushes.append((remote, mode))

    def open_abstract(self, name: str) -> Any:
        agent = next((a for a in self.agents.values() if a.socket == name), None)
        if agent is None:
            raise Closed(f"localabstract:{name}: closed (nothing accepted the connection on the device)")
        identity = AgentIdentity(token=agent.token, version=agent.version, build=agent.build,
                                 protocols=agent.protocols, pid=agent.hello_pid or agent.pid, socket=agent.socket)

        def on_shutdown() -> None:
            if agent.exits_on_shutdown:
                self.exit(agent.pid)

        peer = ScriptedAgent(identity=identity, on_shutdown=on_shutdown).start()
        threading.Thread(target=self._exit_after_refuse, args=(agent, peer), daemon=True).start()
        agent.connections.append(peer)
        self.peers.append(peer)
        return peer.host_end

    # --- the test's controls ----------------------------------------------------------------------

    def add_agent(self, socket: str, token: str = "0" * 32, **kwargs: Any) -> FakeAgent:
        agent = FakeAgent(self._take_pid(), socket, token, **kwargs)
        self.agents[agent.pid] = agent
        return agent

    def exit(self, pid: int) -> None:
        with self._lock:
            self.agents.pop(pid, None)
            self.others.pop(pid, None)
            if self.holder is not None and self.holder.pid == pid:
                self.holder = None

    def close(self) -> None:
        for peer in self.peers:
            peer.close()

    def peers_for(self, socket: str) -> list[ScriptedAgent]:
        return [peer for peer in self.peers if peer.identity.socket == socket]

    # --- internals ----------------------------------------------------------------------------

    def _exit_after_refuse(self, agent: FakeAgent, peer: ScriptedAgent) -> None:
        if peer.refused.wait(5.0):
            self.exit(agent.pid)

    def _take_pid(self) -> int:
        with self._lock:
            self._next_pid += 1
            return self._next_pid

    def _args(self, pid: int) -> str | None:
        if pid in self.agents:
            return self.agents[pid].args
        if self.holder is not None and self.holder.pid == pid:
            return self.holder.args
        return self.others.get(pid)

    def _ps(self) -> str:
        rows = dict(self.others)
        rows.update({pid: agent.args for pid, agent in self.agents.items()})
        if self.holder is not None:
            rows[self.holder.pid] = self.holder.args
        return "  PID ARGS\n" + "".join(f"{pid:>5} {args}\n" for pid, args in sorted(rows.items()))

    def run_launch(self, command: str, token: str) -> tuple[list[str], bool]:
        socket = re.search(r"--socket (\S+)", command)[1]  # type: ignore[index]
        jar = re.search(r"CLASSPATH=(\S+)", command)[1]  # type: ignore[index]
        force = " --force" in command
        if self.launch_script is not None:
            return [line if line.startswith("stderr:") else line + "\n" for line in self.launch_script], \
                self.launch_ends
        data = self.files[jar][0]
        version = re.search(rb"mobile-agent-android ([0-9.]+)", data)[1].decode()  # type: ignore[index]
        stopped: list[dict[str, Any]] = []
        holders = [(a.pid, a.args) for a in self.agents.values()]
        if self.holder is not None:
            holders.append((self.holder.pid, self.holder.args))
        if holders and not force:
            pid, args = holders[0]
            line = {"holder": {"pid": pid, "name": args},
                    "message": "UiAutomationService android.accessibilityservice.IAccessibilityServiceClient"
                               "$Stub$Proxy@5d4d5e8 already registered!"}
            return ["MOBILE_AGENT_CONFLICT " + json.dumps(line) + "\n"], True
        for pid, args in holders:
            stopped.append({"pid": pid, "name": args})
            self.exit(pid)
        agent = self.add_agent(socket, token, version=version, build=self.report_build or build_of(data))
        ready = {"pid": agent.pid, "socket": socket, "version": version, "build": agent.build,
                 "protocols": [1], "stopped": stopped}
        return ["some linker warning\n", "MOBILE_AGENT_READY " + json.dumps(ready) + "\n"], False
