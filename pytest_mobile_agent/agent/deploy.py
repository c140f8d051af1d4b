"""Deploying one agent build on one device: reuse, replacement, conflict, launch (the seed's
"Agent deployment")."""

from __future__ import annotations

import logging
import shlex
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from pytest_mobile_agent.agent.connection import ByteStream, Connection
from pytest_mobile_agent.agent.jar import AgentJar
from pytest_mobile_agent.agent.launch import (
    JAR_MODE,
    PS_COMMAND,
    AgentProcess,
    ConflictLine,
    ErrorLine,
    Ready,
    SocketName,
    find_agents,
    launch_command,
    new_token,
    parse_launch_line,
    parse_ps,
    remote_jar,
    socket_name,
)
from pytest_mobile_agent.agent.protocol import AGENT_NAME, LIVENESS_TIMEOUT, PROTOCOLS, Hello
from pytest_mobile_agent.agent.records import Record, Records
from pytest_mobile_agent.errors import (
    Conflict,
    DeployError,
    MobileAgentError,
    RecordsUnwritable,
    StaleJar,
    Timeout,
    VersionMismatch,
)

log = logging.getLogger("pytest_mobile_agent.agent")

_POLL = 0.05
_MAX_KEPT_LINES = 20
_MAX_STDERR = 4096


# --- what the deployer needs of a device (adb.Device, or a test's fake) ---------------------------


class _Output(Protocol):
    exit_code: int
    stdout: bytes
    stderr: bytes


class _Stream(Protocol):
    def write(self, data: bytes) -> None: ...
    def close_stdin(self) -> None: ...
    def read(self, timeout: float | None = None) -> tuple[int, bytes] | None: ...
    def close(self) -> None: ...


class DeviceLike(Protocol):
    serial: str

    def shell(self, cmd: str) -> Any: ...
    def shell_stream(self, cmd: str) -> Any: ...
    def push_bytes(self, data: bytes, remote: str, mode: int = 0o644) -> None: ...
    def open_abstract(self, name: str) -> Any: ...


class _LaunchOutput:
    """The launch stream's standard output line by line, with stderr and stray lines kept (bounded)
    to explain a launch that ends without its ready line."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._buffer = bytearray()
        self._stderr = bytearray()
        self._kept: list[str] = []

    def next_line(self, timeout: float) -> str | None:
        deadline = time.monotonic() + timeout
        while True:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[:newline + 1]
                return line.rstrip(b"\r").decode("utf-8", "replace")
            item = self._stream.read(max(0.001, deadline - time.monotonic()))
            if item is None:
                rest, self._buffer = bytes(self._buffer), bytearray()
                return rest.decode("utf-8", "replace") if rest else None
            kind, data = item
            if kind == 1:
                self._buffer += data
            elif len(self._stderr) < _MAX_STDERR:
                self._stderr += data[:_MAX_STDERR - len(self._stderr)]

    def keep(self, line: str) -> None:
        if line.strip() and len(self._kept) < _MAX_KEPT_LINES:
            self._kept.append(line.strip())

    def describe(self) -> str:
        parts = []
        if self._kept:
            parts.append("stdout: " + "; ".join(self._kept))
        stderr = self._stderr.decode("utf-8", "replace").strip()
        if stderr:
            parts.append("stderr: " + "; ".join(stderr.splitlines()[:_MAX_KEPT_LINES]))
        return ", ".join(parts) or "no output"


# --- values --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeployOptions:
    """`force` lets the new agent stop whatever holds UI automation (the launch passes --force)."""

    force: bool = False
    idle_exit_ms: int = 10_000
    exit_timeout: float = 3.0
    ready_timeout: float = 20.0
    connect_timeout: float = 5.0
    extra_args: tuple[str, ...] = ()
    liveness_timeout: float = LIVENESS_TIMEOUT
    """How long the connection takes a silent agent for alive (the seed's 3 s)."""
    kill_timeout: float = 1.0
    """How long a SIGKILLed agent may take to go before it "survived SIGKILL"."""


@dataclass(frozen=True)
class Reused:
    """The recorded agent answered as this build: no process started."""


@dataclass(frozen=True)
class Launched:
    """A new agent was started; `replaced` says why a recorded one was stopped first, `took_over`
    names the automation clients the forced launch stopped."""

    replaced: str | None = None
    took_over: list[str] = field(default_factory=list)


Outcome = Reused | Launched


class AgentState(Enum):
    ABSENT = "absent"
    RUNNING = "running"
    INCOMPATIBLE = "incompatible"


@dataclass
class Attached:
    """An agent this host holds a connection to."""

    connection: Connection
    outcome: Outcome
    record: Record
    deployer: Deployer = field(repr=False)
    stopped: bool = False

    def stop(self) -> None:
        """Ask the agent to shut down, wait for its exit, kill it past the exit timeout, forget it."""
        if self.stopped:
            return
        self.stopped = True
        self.deployer._stop(self.record.pid, self.record.socket, self.connection, self.record.token)
        self.deployer.records.forget(self.record.serial)


# --- the deployer --------------------------------------------------------------------------------


@dataclass
class _Previous:
    """The recorded agent found running and not reusable: how to stop it, and why."""

    record: Record
    reason: str
    connection: Connection | None
    kill_now: bool = False
    exits_by_itself: bool = False


class Deployer:
    """Deploys `jar` on `device` (the seed's `agent::Deployer`)."""

    def __init__(self, device: DeviceLike, jar: AgentJar, records: Records | None = None,
                 options: DeployOptions | None = None) -> None:
        self.device = device
        self.jar = jar
        self.records = records if records is not None else Records()
        self.options = options or DeployOptions()

    @property
    def serial(self) -> str:
        return str(self.device.serial)

    # --- state -----------------------------------------------------------------------------

    def agents(self) -> list[AgentProcess]:
        """The agent processes in `ps -A -o PID,ARGS`."""
        out = self.device.shell(PS_COMMAND)
        if out.exit_code != 0:
            raise DeployError(f"`{PS_COMMAND}` on {self.serial} failed with status {out.exit_code}: "
                              f"{out.stderr.decode('utf-8', 'replace').strip()}")
        return find_agents(parse_ps(out.stdout.decode("utf-8", "replace")))

    def is_this_build(self, name: SocketName | None) -> bool:
        jar = self.jar
        return name is not None and name.version == jar.version and name.build == jar.build \
            and name.protocol in PROTOCOLS

    def state(self) -> AgentState:
        """From the process list alone: connecting would take the agent away from its host."""
        agents = self.agents()
        if not agents:
            return AgentState.ABSENT
        if any(self.is_this_build(agent.name) for agent in agents):
            return AgentState.RUNNING
        return AgentState.INCOMPATIBLE

    # --- attach -----------------------------------------------------------------------------

    def attach(self) -> Attached:
        agents = self.agents()
        previous: _Previous | None = None
        record = self.records.get(self.serial)
        if record is not None:
            if any(a.pid == record.pid and a.socket == record.socket for a in agents):
                found = self._try_reuse(record)
                if isinstance(found, Attached):
                    return found
                previous = found
            else:
                log.info("the recorded agent %s on %s is gone; forgetting it", record.socket, self.serial)
                self.records.forget(self.serial)
            agents = [a for a in agents if a.pid != record.pid]
        if agents and not self.options.force:
            if previous is not None and previous.connection is not None:
                previous.connection.close()
            raise self._conflict(agents[0])
        try:
            self.records.check_writable(self.serial)  # before a launch whose record could not be kept
        except RecordsUnwritable:
            if previous is not None and previous.connection is not None:
                previous.connection.close()
            raise
        replaced = None
        if previous is not None:
            self._replace(previous)
            replaced = previous.reason
        return self._launch(replaced)

    def _try_reuse(self, record: Record) -> Attached | _Previous:
        try:
            conn = self._connect(record.socket, record.token)
        except VersionMismatch as exc:
            return _Previous(record, f"it speaks no protocol this host speaks ({exc})", None, exits_by_itself=True)
        except MobileAgentError as exc:
            return _Previous(record, f"it does not answer as recorded ({exc})", None, kill_now=True)
        hello = conn.hello
        if (hello.pid, hello.socket) != (record.pid, record.socket):
            conn.close()
            return _Previous(record, f"it does not answer as recorded (its hello names pid {hello.pid} and "
                                     f"socket {hello.socket})", None, kill_now=True)
        reason = self._incompatibility(hello, record)
        if reason is None:
            log.info("reusing %s on %s", conn.hello.names(), self.serial)
            return Attached(conn, Reused(), record, self)
        return _Previous(record, reason, conn)

    def _incompatibility(self, hello: Hello, record: Record) -> str | None:
        jar = self.jar
        if hello.agent != AGENT_NAME or hello.version != jar.version:
            return f"{hello.agent} {hello.version} is another version than the jar's {jar.version}"
        if record.build is None:
            return f"{hello.names()} was recorded before builds were recorded (its build is unknown)"
        if hello.build != jar.build or record.build != jar.build:
            return f"{hello.names()} is another build than the jar's {jar.build}"
        return None

    def _conflict(self, agent: AgentProcess) -> Conflict:
        return Conflict(
            f"{agent.describe()} holds UI automation on {self.serial} and these records do not name it: another "
            "host's agent, or one a run with other records left (it exits once idle for its idle exit)",
            holder=f"mobile-agent {agent.socket or ''}".strip(),
        )

    def _replace(self, previous: _Previous) -> None:
        record = previous.record
        log.info("replacing the agent %s on %s: %s", record.socket, self.serial, previous.reason)
        if previous.kill_now:
            self._kill(record.pid, record.socket)
        elif previous.exits_by_itself:
            self._wait_gone_or_kill(record.pid, record.socket)
        else:
            self._stop(record.pid, record.socket, previous.connection)
        self.records.forget(self.serial)

    # --- launch -----------------------------------------------------------------------------

    def _launch(self, replaced: str | None) -> Attached:
        jar = self.jar
        socket = socket_name(jar.version, max(PROTOCOLS), jar.build)
        token = new_token()
        remote = remote_jar(socket)
        log.info("launching %s on %s as %s", jar.describe(), self.serial, socket)
        self.device.push_bytes(jar.data, remote, mode=JAR_MODE)
        try:
            ready = self._start(remote, socket, token)
        finally:
            self._delete(remote)
        try:
            conn = self._connect(socket, token)
        except MobileAgentError as exc:
            self._kill(ready.pid, socket)
            raise DeployError(f"the agent {socket} on {self.serial} started (pid {ready.pid}) but its "
                              f"connection failed: {exc}") from exc
        hello = conn.hello
        if hello.version != jar.version or hello.build != jar.build:
            self._stop(ready.pid, socket, conn)
            raise StaleJar(
                f"the agent started from {jar.describe()} reports {hello.names()}, not "
                f"{jar.version} (build {jar.build}): the jar is stale",
                advice="Rebuild it with agent-android/build.sh (it needs ANDROID_HOME)",
            )
        record = Record(self.serial, socket, ready.pid, token, hello.version, conn.protocol, hello.build)
        try:
            self.records.put(record)
        except RecordsUnwritable:
            self._stop(ready.pid, socket, conn)  # an agent no record names would be a Conflict for its lifetime
            raise
        took_over = [holder.describe() for holder in ready.stopped]
        return Attached(conn, Launched(replaced, took_over), record, self)

    def _start(self, remote: str, socket: str, token: str) -> Ready:
        options = self.options
        command = launch_command(remote, socket, options.idle_exit_ms, force=options.force,
                                 extra_args=options.extra_args)
        stream = self.device.shell_stream(command)
        output = _LaunchOutput(stream)
        try:
            stream.write(token.encode("ascii") + b"\n")
            stream.close_stdin()
            deadline = time.monotonic() + options.ready_timeout
            waiting = f"the launch of {socket} on {self.serial} (waiting for its ready line)"
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Timeout(waiting, options.ready_timeout)
                try:
                    line = output.next_line(left)
                except MobileAgentError as exc:
                    if exc.is_timeout():
                        raise Timeout(waiting, options.ready_timeout) from None
                    raise DeployError(f"the launch stream of {socket} on {self.serial} failed: {exc}") from exc
                if line is None:
                    raise DeployError(f"the agent {socket} on {self.serial} exited before its ready line "
                                      f"({output.describe()})")
                parsed = parse_launch_line(line)
                if isinstance(parsed, Ready):
                    return parsed
                if isinstance(parsed, ConflictLine):
                    raise self._held(parsed)
                if isinstance(parsed, ErrorLine):
                    raise DeployError(f"the agent {socket} on {self.serial} failed to start: "
                                      f"{parsed.code}: {parsed.message}")
                output.keep(line)
        except Timeout:
            self._kill_by_socket(socket)
            raise
        finally:
            stream.close()

    def _held(self, line: ConflictLine) -> Conflict:
        holder = line.holder.describe() if line.holder else "an unknown client"
        return Conflict(f"UI automation on {self.serial} is held by {holder}: {line.message}",
                        holder=holder if line.holder else "")

    def _connect(self, socket: str, token: str) -> Connection:
        stream: ByteStream = self.device.open_abstract(socket)
        return Connection.open(stream, token, timeout=self.options.connect_timeout,
                               name=f"{self.serial} {socket}", liveness_timeout=self.options.liveness_timeout)

    def _delete(self, remote: str) -> None:
        try:
            self.device.shell(f"rm -f {shlex.quote(remote)}")
        except MobileAgentError as exc:
            log.warning("could not delete %s on %s: %s", remote, self.serial, exc)

    # --- stopping ---------------------------------------------------------------------------

    def stop_recorded(self) -> bool:
        """Stop the recorded agent without a connection of ours; False when there is no record."""
        record = self.records.get(self.serial)
        if record is None:
            return False
        if self._running(record.pid, record.socket):
            try:
                conn: Connection | None = self._connect(record.socket, record.token)
            except MobileAgentError as exc:
                log.info("the recorded agent %s does not answer (%s); killing it", record.socket, exc)
                self._kill(record.pid, record.socket)
            else:
                self._stop(record.pid, record.socket, conn)
        self.records.forget(self.serial)
        return True

    def _stop(self, pid: int, socket: str, conn: Connection | None, token: str | None = None) -> None:
        """Ask for shutdown (through `conn`, else, with `token`, a new connection when the agent still
        runs, as after another connection replaced ours), wait for the exit, kill past the timeout."""
        if (conn is None or conn.closed) and token is not None and self._running(pid, socket):
            try:
                conn = self._connect(socket, token)
            except MobileAgentError as exc:
                log.debug("the agent %s does not answer (%s); it will be killed", socket, exc)
        if conn is not None:
            try:
                conn.request("shutdown", {}, timeout=min(2.0, self.options.exit_timeout))
            except MobileAgentError as exc:
                log.debug("shutdown of %s: %s", socket, exc)
            conn.close()
        self._wait_gone_or_kill(pid, socket)

    def _wait_gone_or_kill(self, pid: int, socket: str) -> None:
        if not self._wait_gone(pid, socket, self.options.exit_timeout):
            log.info("the agent %s (pid %d) outlived its exit timeout; killing it", socket, pid)
            self._kill(pid, socket)

    def _wait_gone(self, pid: int, socket: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self._running(pid, socket):
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL)
        return True

    def _running(self, pid: int, socket: str) -> bool:
        """Whether `pid` still runs the agent on `socket`, from /proc/<pid>/cmdline."""
        out = self.device.shell(f"cat /proc/{int(pid)}/cmdline")
        return out.exit_code == 0 and socket in out.stdout.replace(b"\0", b" ").decode("utf-8", "replace")

    def kill(self, pid: int, socket: str) -> None:
        """SIGKILL the agent `pid` if its /proc/<pid>/cmdline still names `socket` (test cleanup)."""
        self._kill(pid, socket)

    def _kill(self, pid: int, socket: str) -> None:
        """SIGKILL `pid`, only while its /proc/<pid>/cmdline still names `socket`."""
        if not self._running(pid, socket):
            return
        log.info("killing the agent %s (pid %d) on %s", socket, pid, self.serial)
        self.device.shell(f"kill -9 {int(pid)}")
        if not self._wait_gone(pid, socket, self.options.kill_timeout):
            raise DeployError(f"the agent {socket} (pid {pid}) on {self.serial} survived SIGKILL "
                              f"(still there {self.options.kill_timeout:g} s later)")

    def _kill_by_socket(self, socket: str) -> None:
        try:
            for agent in self.agents():
                if agent.socket == socket:
                    self._kill(agent.pid, socket)
        except MobileAgentError as exc:
            log.warning("could not clean up the agent %s on %s: %s", socket, self.serial, exc)
