"""The agent double as a process (the Java agent's `Main` and `android/AndroidAgent`):
`dev.mobileagent.agent.Main` of the virtual device's `app_process`: arguments, token, jar, name,
UI automation (with `--force`), the launch output lines, the accept loop and the idle exit, wiring
an `AgentCore` to the device.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.agent.platform import AgentHost, Platform, ProcessGate
from pytest_mobile_agent.virtual.agent.server import (
    AGENT_NAME,
    PROTOCOLS,
    AgentCore,
    Identity,
    build_of,
    version_in,
)
from pytest_mobile_agent.virtual.android.automation import already_registered_message
from pytest_mobile_agent.virtual.kernel.creds import Cred
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.process import Process
from pytest_mobile_agent.virtual.kernel.sockets import Listener
from pytest_mobile_agent.virtual.ui.model import UiModel

log = logging.getLogger("pytest_mobile_agent.virtual")

MAIN_CLASS = "dev.mobileagent.agent.Main"


# --- the launch output lines ----------------------------------------------------------------------


def ready_line(identity: Identity, stopped: list[dict[str, Any]]) -> str:
    payload = {"pid": identity.pid, "socket": identity.socket, "version": identity.version, "build": identity.build,
               "protocols": list(PROTOCOLS), "stopped": stopped}
    return "MOBILE_AGENT_READY " + json.dumps(payload, separators=(",", ":")) + "\n"


def conflict_line(holder: dict[str, Any] | None, message: str) -> str:
    return "MOBILE_AGENT_CONFLICT " + json.dumps({"holder": holder, "message": message}, separators=(",", ":")) + "\n"


def error_line(code: str, message: str) -> str:
    return "MOBILE_AGENT_ERROR " + json.dumps({"code": code, "message": message}, separators=(",", ":")) + "\n"


def already_registered() -> str:
    """The platform's message when UI automation is taken: the device's IllegalStateException's
    message, as the Java agent reports `getMessage()` (the proxy's hash differs each time)."""
    return already_registered_message().removeprefix("java.lang.IllegalStateException: ")


# --- the process ----------------------------------------------------------------------------------

#: ART blocks SIGQUIT, SIGUSR1, SIGPIPE and signal 32 in every thread (SigBlk on the API 36 emulator)
ART_SIGBLK = 0x80001204
SIGTERM, SIGKILL = 15, 9
FORCE_STOP_WAIT_S = 2.0
ACCEPT_SLICE_S = 0.25
KNOWN_CLIENTS = ("uiautomator", "mobile-agent ")
KNOWN_INSTRUMENTATIONS = ("com.github.uiautomator", "io.appium.uiautomator2")


def _is_automation_client(args_line: str) -> bool:
    """uiautomator, another agent, or an instrumentation server (what `--force` stops)."""
    return args_line.startswith(KNOWN_CLIENTS) or any(name in args_line for name in KNOWN_INSTRUMENTATIONS)


@dataclass(frozen=True)
class Args:
    socket: str
    idle_exit_ms: int
    force: bool


def parse_args(argv: list[str]) -> Args:
    """`app_process / dev.mobileagent.agent.Main serve --socket NAME --idle-exit-ms MS [--force]`."""
    words = argv[argv.index(MAIN_CLASS) + 1:] if MAIN_CLASS in argv else list(argv)
    if not words or words[0] != "serve":
        raise ValueError("usage: serve --socket NAME --idle-exit-ms MS [--force]")
    socket_name: str | None = None
    idle_ms = 0
    force = False
    i = 1
    while i < len(words):
        word = words[i]
        if word == "--force":
            force = True
        elif word in ("--socket", "--idle-exit-ms") and i + 1 < len(words):
            i += 1
            if word == "--socket":
                socket_name = words[i]
            else:
                if not is_decimal(words[i]):
                    raise ValueError(f"--idle-exit-ms takes milliseconds, not {words[i]!r}")
                idle_ms = int(words[i])
        else:
            raise ValueError(f"unknown argument {word!r}")
        i += 1
    if not socket_name:
        raise ValueError("--socket NAME is required")
    return Args(socket_name, idle_ms, force)


class _Stdout:
    """The agent's standard output: lines, with EPIPE on a closed stream ignored."""

    def __init__(self, proc: Process) -> None:
        self.proc = proc

    def line(self, text: str) -> None:
        # EPIPE: the launch stream is gone; the agent keeps serving
        with contextlib.suppress(BrokenPipeError, OSError, errors.MobileAgentError):
            self.proc.stdout.write(text.encode())


def main(host: AgentHost, proc: Process, argv: list[str] | None = None) -> int:
    """The agent double as a program of the virtual device's `app_process` (`argv`: the words
    after the main class, or the whole command line), on `host`."""
    out = _Stdout(proc)
    proc.signals.block(ART_SIGBLK)
    try:
        args = parse_args(list(proc.argv if argv is None else argv))
    except ValueError as exc:
        out.line(error_line("usage", str(exc)))
        return 1
    token = proc.env.get("MOBILE_AGENT_TOKEN", "")
    if not token:
        out.line(error_line("no_token", "MOBILE_AGENT_TOKEN is not set"))
        return 1
    identity_or_error = _identity(proc, host, args, token)
    if isinstance(identity_or_error, str):
        out.line(identity_or_error)
        return 1
    identity = identity_or_error
    proc.set_name(f"mobile-agent {args.socket}")
    stopped = _take_automation(proc, host, args, out)
    if stopped is None:
        return 3
    try:
        listener = host.sockets.listen_abstract(args.socket, proc.pid)
    except Exception as exc:  # noqa: BLE001 - the name is taken, or the device refuses it
        host.automation.release(proc.pid)
        out.line(error_line("socket", f"cannot listen on @{args.socket}: {exc}"))
        return 1
    ui = host.ui
    platform = Platform(ui, lambda: display_info(host, ui),
                        diagnostic=lambda msg: out.line(f"MOBILE_AGENT_LOG {msg}\n"),
                        logcat=host.log, gate=ProcessGate(proc))
    core = AgentCore(identity, platform)
    core.on_stop(lambda: _close_quietly(listener))  # wakes the accept loop: the process exits at once

    def on_death() -> None:  # however the process ends, SIGKILL included
        core.stop(core.exit_status or 0)
        _close_quietly(listener)
        host.automation.release(proc.pid)

    proc.at_death(on_death)
    core.last_disconnect = time.monotonic()
    out.line(ready_line(identity, stopped))
    platform.logcat("MobileAgent", f"serving @{args.socket} ({identity.version}, build {identity.build})")
    try:
        _accept_loop(proc, core, listener, args.idle_exit_ms)
    finally:
        core.stop(core.exit_status or 0)
        _close_quietly(listener)
        host.automation.release(proc.pid)
    return core.exit_status or 0


def _identity(proc: Process, host: AgentHost, args: Args, token: str) -> Identity | str:
    """The agent's identity from the file it started from; an error line when it cannot be read."""
    classpath = proc.env.get("CLASSPATH", "").split(":")[0]
    if not classpath:
        return error_line("classpath", "CLASSPATH names no file")
    try:
        data = read_device_file(host, classpath, proc)
    except OSError as exc:
        return error_line("classpath", f"cannot read {classpath}: {exc.strerror or exc}")
    version = version_in(data)
    if version is None:
        return error_line("classpath", f"{classpath} holds no {AGENT_NAME} (ClassNotFoundException: {MAIN_CLASS})")
    return Identity(version, build_of(data), proc.pid, args.socket, token, uid=proc.uid)


def read_device_file(host: AgentHost, path: str, proc: Process) -> bytes:
    return host.fs.read_file(path, Cred(proc.uid, pid=proc.pid))


def _holder_of(proc: Process, pid: int | None, label: str) -> dict[str, Any]:
    other = proc.table.get(pid) if pid is not None else None
    name = other.args_line() if other is not None and not other.dead else label
    return {"pid": pid, "name": name}


def _take_automation(proc: Process, host: AgentHost, args: Args, out: _Stdout) -> list[dict[str, Any]] | None:
    """UI automation for this agent: the clients `--force` stopped, or None after a conflict line."""
    automation = host.automation
    stopped: list[dict[str, Any]] = []
    held = automation.holder()
    if held is not None and held[0] != proc.pid:
        holder = _holder_of(proc, held[0], held[1])
        if not args.force:
            out.line(conflict_line(holder, already_registered()))
            return None
        stopped.extend(_force_stop(proc, holder))
    if args.force:
        for other in proc.table.processes():
            line = other.args_line()
            if other.pid != proc.pid and not other.dead and _is_automation_client(line) \
                    and all(s["pid"] != other.pid for s in stopped):
                stopped.extend(_force_stop(proc, {"pid": other.pid, "name": line}))
    if not automation.acquire(proc.pid, f"mobile-agent {args.socket}"):
        held = automation.holder()
        out.line(conflict_line(_holder_of(proc, held[0], held[1]) if held else None, already_registered()))
        return None
    return stopped


def _force_stop(proc: Process, holder: dict[str, Any]) -> list[dict[str, Any]]:
    """SIGTERM, then SIGKILL past a short wait; the holder in the `stopped` list once it is gone."""
    pid = holder["pid"]
    if pid is None:
        return []
    for sig in (SIGTERM, SIGKILL):
        try:
            proc.table.kill(pid, sig, proc.uid)
        except ProcessLookupError:
            return [holder]
        except PermissionError:
            return []
        end = time.monotonic() + FORCE_STOP_WAIT_S
        while time.monotonic() < end:
            other = proc.table.get(pid)
            if other is None or other.dead:
                log.info("agent: stopped automation client %s (%s)", pid, holder["name"])
                return [holder]
            proc.sleep(0.01)
    return []


def _accept_loop(proc: Process, core: AgentCore, listener: Listener, idle_exit_ms: int) -> None:
    while not core.stopped:
        if proc.dead:
            return
        if idle_exit_ms > 0 and not core.connected:
            idle_left = core.last_disconnect + idle_exit_ms / 1000.0 - time.monotonic()
            if idle_left <= 0:
                log.info("agent %s: no host for %d ms, exiting", core.identity.socket, idle_exit_ms)
                core.stop(0, "idle")  # a host that authenticated since the check above is told why
                return
            timeout = min(ACCEPT_SLICE_S, idle_left)
        else:
            timeout = ACCEPT_SLICE_S
        try:
            stream, peer_uid = listener.accept(timeout, waiter=proc)
        except errors.Timeout:
            continue
        except (errors.MobileAgentError, OSError):
            return  # the listener was closed under us: the process is ending
        core.serve(stream, peer_uid)


def _close_quietly(obj: Any) -> None:
    with contextlib.suppress(Exception):
        obj.close()


def display_info(host: AgentHost, ui: UiModel) -> dict[str, int]:
    """The `display` of a snapshot: the logical size (turned by the rotation), the density in
    effect and the rotation, as the UI is laid out for them."""
    rotation = host.display.rotation
    with ui.lock:
        ui.advance()  # lays the UI out again if the display changed
        geo = ui.geo
    return {"width": geo.width, "height": geo.height, "density": geo.density,
            "rotation": rotation % 4}


def register(host: AgentHost) -> None:
    """Make `app_process / dev.mobileagent.agent.Main ...` run the agent double on `host` (the
    device does it once, when it is made)."""
    host.app_process_mains[MAIN_CLASS] = functools.partial(main, host)
