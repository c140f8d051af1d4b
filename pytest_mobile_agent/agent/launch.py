"""How the agent is started, named and found: the launch command, socket names, tokens, and the
parsers of its launch lines and of the process list (docs/protocol.md section 2)."""

from __future__ import annotations

import json
import re
import secrets
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_mobile_agent.errors import ProtocolError

MAIN_CLASS = "dev.mobileagent.agent.Main"
PROCESS_NAME = "mobile-agent"
REMOTE_DIR = "/data/local/tmp"
TOKEN_ENV = "MOBILE_AGENT_TOKEN"
JAR_MODE = 0o444

READY = "MOBILE_AGENT_READY "
CONFLICT = "MOBILE_AGENT_CONFLICT "
ERROR = "MOBILE_AGENT_ERROR "
LOG = "MOBILE_AGENT_LOG "

_SOCKET_RE = re.compile(
    r"mobile-agent-(?P<version>[0-9A-Za-z][0-9A-Za-z.+-]*?)-p(?P<protocol>[0-9]{1,4})"
    r"-(?P<build>[0-9a-f]{12})-(?P<suffix>[0-9a-f]{12})"
)
_SOCKET_FULL_RE = re.compile(rf"^{_SOCKET_RE.pattern}$")
_PS_LINE_RE = re.compile(r"^\s*(\d+)\s+(.*?)\s*$")


# --- names and secrets ---------------------------------------------------------------------------


def new_token() -> str:
    """16 random bytes as 32 lowercase hex digits."""
    return secrets.token_hex(16)


def socket_name(version: str, protocol: int, build: str, suffix: str | None = None) -> str:
    """`mobile-agent-<version>-p<protocol>-<build>-<12 random hex>`: per launch, naming the build."""
    return f"{PROCESS_NAME}-{version}-p{protocol}-{build}-{suffix or secrets.token_hex(6)}"


@dataclass(frozen=True)
class SocketName:
    version: str
    protocol: int
    build: str
    suffix: str

    @classmethod
    def parse(cls, name: str) -> SocketName | None:
        match = _SOCKET_FULL_RE.match(name)
        if match is None:
            return None
        return cls(match["version"], int(match["protocol"]), match["build"], match["suffix"])


def remote_jar(socket: str) -> str:
    return f"{REMOTE_DIR}/{socket}.jar"


def launch_command(jar: str, socket: str, idle_exit_ms: int, *, force: bool = False,
                   extra_args: Sequence[str] = ()) -> str:
    """The shell command that starts the agent detached, the token read from standard input.

    `read -r t` takes the token from stdin, so it is on no command line (the environment of
    app_process holds it); the subshell's background job is reparented to init; HUP and PIPE are
    ignored in case an adbd signals the whole group; stdin is /dev/null.

    Under `adb root` the shell is uid 0, and an agent running as root has its clipboard reads clear
    the clipboard (ClipboardService.addActiveOwnerLocked: uid 0 does not own com.android.shell;
    issue 37). So where the shell is root and `su` is there (userdebug and eng builds, the only ones
    where `adb root` works, have AOSP's system/extras/su, which execs in the same process, keeps the
    environment but PATH, and may be run by root and the shell), app_process runs as `su 2000,2000,3009`
    (the shell user, with adbd's readproc group); the
    agent lets root peers (adbd) reach its token check. Without su it runs as root and answers
    `clipboard_unavailable` for clipboard reads.
    """
    args = ["serve", "--socket", socket, "--idle-exit-ms", str(int(idle_exit_ms))]
    if force:
        args.append("--force")
    args.extend(extra_args)
    argv = " ".join(shlex.quote(arg) for arg in args)
    return (
        f"read -r t && (trap '' HUP PIPE; {AS_SHELL_UNDER_ROOT} {TOKEN_ENV}=\"$t\" CLASSPATH={shlex.quote(jar)} "
        f"exec $u app_process / {MAIN_CLASS} {argv} </dev/null &)"
    )


#: the shell user for su: uid and gid 2000 (AID_SHELL) and the supplementary group readproc (AID_READPROC,
#: 3009), which adbd gives its shell too (packages/modules/adb, daemon/main.cpp, drop_privileges): /proc
#: is mounted hidepid=2,gid=readproc, and the agent reads other uids' /proc/<pid>/cmdline to name an
#: automation holder (android/Holders). su takes `uid,gid,groups...` (system/extras/su/su.cpp)
SHELL_IDS = "2000,2000,3009"
#: sets $u to `su SHELL_IDS` where the shell is root and su is there (launch_command)
AS_SHELL_UNDER_ROOT = f'u=; if [ "$(id -u)" = 0 ] && command -v su >/dev/null; then u="su {SHELL_IDS}"; fi;'


# --- launch lines ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Holder:
    """A process holding UI automation: its pid when known, and its command line."""

    pid: int | None
    name: str

    def describe(self) -> str:
        return f"{self.name} (pid {self.pid})" if self.pid is not None else self.name

    @classmethod
    def from_json(cls, value: Any, where: str) -> Holder:
        if not isinstance(value, dict):
            raise ProtocolError(f"{where}: a holder that is not an object")
        pid, name = value.get("pid"), value.get("name")
        if pid is not None and (not isinstance(pid, int) or isinstance(pid, bool)):
            raise ProtocolError(f"{where}: a holder whose pid is not an integer")
        if not isinstance(name, str):
            raise ProtocolError(f"{where}: a holder without a string name")
        return cls(pid, name)


@dataclass(frozen=True)
class Ready:
    pid: int
    socket: str
    version: str
    build: str
    protocols: tuple[int, ...]
    stopped: tuple[Holder, ...]


@dataclass(frozen=True)
class ConflictLine:
    holder: Holder | None
    message: str


@dataclass(frozen=True)
class ErrorLine:
    code: str
    message: str


LaunchLine = Ready | ConflictLine | ErrorLine


def _json_object(text: str, where: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError(f"{where} is not followed by JSON: {text[:120]!r}") from None
    if not isinstance(value, dict):
        raise ProtocolError(f"{where} is not followed by a JSON object: {text[:120]!r}")
    return value


def _field(obj: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = obj.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ProtocolError(f"{where} without a {kind.__name__} `{key}`")
    return value


def parse_launch_line(line: str) -> LaunchLine | None:
    """The ready, conflict or error line; None for any other line (diagnostics, noise).

    A line with one of the three prefixes whose JSON is malformed is a ProtocolError.
    """
    line = line.rstrip("\r\n")
    if line.startswith(READY):
        where = "the ready line"
        obj = _json_object(line[len(READY):], where)
        protocols = _field(obj, "protocols", list, where)
        if not all(isinstance(p, int) and not isinstance(p, bool) for p in protocols):
            raise ProtocolError(f"{where}: protocols that are not integers")
        stopped = obj.get("stopped", [])
        if not isinstance(stopped, list):
            raise ProtocolError(f"{where}: `stopped` is not a list")
        return Ready(
            pid=_field(obj, "pid", int, where), socket=_field(obj, "socket", str, where),
            version=_field(obj, "version", str, where), build=_field(obj, "build", str, where),
            protocols=tuple(protocols), stopped=tuple(Holder.from_json(h, where) for h in stopped),
        )
    if line.startswith(CONFLICT):
        where = "the conflict line"
        obj = _json_object(line[len(CONFLICT):], where)
        holder = obj.get("holder")
        return ConflictLine(None if holder is None else Holder.from_json(holder, where),
                            _field(obj, "message", str, where))
    if line.startswith(ERROR):
        where = "the error line"
        obj = _json_object(line[len(ERROR):], where)
        return ErrorLine(_field(obj, "code", str, where), _field(obj, "message", str, where))
    return None


# --- the process list --------------------------------------------------------------------------


@dataclass(frozen=True)
class ProcessEntry:
    pid: int
    args: str


@dataclass(frozen=True)
class AgentProcess:
    """An agent in the process list; `socket` is None when its command line names none."""

    pid: int
    socket: str | None
    args: str

    @property
    def name(self) -> SocketName | None:
        return SocketName.parse(self.socket) if self.socket else None

    def describe(self) -> str:
        return f"mobile-agent pid {self.pid} (socket {self.socket or 'unknown'})"


PS_COMMAND = "ps -A -o PID,ARGS"


def parse_ps(output: str) -> list[ProcessEntry]:
    """The rows of `ps -A -o PID,ARGS`; the header and lines without a leading pid are skipped."""
    entries = []
    for line in output.splitlines():
        match = _PS_LINE_RE.match(line)
        if match:
            entries.append(ProcessEntry(int(match[1]), match[2]))
    return entries


def _socket_in_args(words: list[str]) -> str | None:
    for index, word in enumerate(words):
        if word == "--socket" and index + 1 < len(words):
            return words[index + 1]
        if word.startswith("--socket="):
            return word.split("=", 1)[1]
    return None


def agent_of(entry: ProcessEntry) -> AgentProcess | None:
    """An agent named `mobile-agent <socket>`, or an app_process running the agent's main class
    (before it set its name). The launch's own shell, whose command line names the main class too,
    is no agent."""
    words = entry.args.split()
    if not words:
        return None
    if words[0] == PROCESS_NAME and len(words) >= 2:
        return AgentProcess(entry.pid, words[1], entry.args)
    if MAIN_CLASS in words and words[0].rsplit("/", 1)[-1].startswith("app_process"):
        return AgentProcess(entry.pid, _socket_in_args(words), entry.args)
    return None


def find_agents(entries: Iterable[ProcessEntry]) -> list[AgentProcess]:
    return [agent for agent in map(agent_of, entries) if agent is not None]
