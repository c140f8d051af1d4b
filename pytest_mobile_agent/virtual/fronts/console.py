"""The emulator console of a virtual device: the text protocol `adb emu` and telnet speak on the
console port (the number in `emulator-<port>`, the adbd port minus one), as the emulator's
android/console.cpp serves it (aosp platform/external/qemu, emulator-facts.md §5).

* On connect, with a non-empty token file: `Android Console: Authentication required`, `Android
  Console: type 'auth <auth_token>' to authenticate`, `Android Console: you can find your
  <auth_token> in `, `'<path>'`, `OK`; with an empty file (auth disabled), `Android Console: type
  'help' for a list of commands` and `OK`. Every line ends in CR LF (control_control_write
  inserts the CR).
* Before auth only help (`help|h|?`), help-verbose, ping, `avd name`, auth and quit (`quit|exit`)
  are accepted; anything else is `KO: unknown command, try 'help'`. `auth TOKEN` compares the whole
  argument with the file's token (`KO: authentication token does not match
  ~/.emulator_console_auth_token`, `KO: missing authentication token`).
* After auth: ping (`I am alive!`), `avd name|id|status`, `grpc <port>` (the controller double is
  started, `OK: { "port": "N" }`, then `OK: gRPC endpoint available at port N`, or, when it runs
  on another port, `OK: Port has already been activated at port: N`; a bad argument is
  `KO: Usage: "grpc <port>"`), kill (`OK: killing emulator, bye bye`, then the device powers off
  and the connection closes), quit. A command that succeeds ends with `OK`; a sub-command
  missing or unknown prints the command's help, then `KO: missing sub-command` or
  `KO:  bad sub-command` (two blanks, as console.cpp writes it).
* An HTTP request line is `KO: Forbidden HTTP request. Aborting`, bytes that are not UTF-8
  `KO: Forbidden binary request. Aborting`; both close the connection. A line longer than 4095
  bytes starts over, as the console's 4096-byte buffer does.

* `network status|speed|delay` drive the device's emulated link (android/hardware.py): `status`
  prints do_network_status's lines (`download speed: N bits/s (X KB/s)`, ..., `maximum latency: N
  ms`); a missing or unreadable value is `KO: missing <speed> argument, see 'help network speed'`
  / `KO: invalid <speed> argument, see 'help network speed' for valid values` (and the same for
  `<delay>`).

Only the commands above are modelled; the others the emulator lists (geo, sms, ...) are unknown
commands here. The console listens on 127.0.0.1 only, as the emulator's does.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import os
import re
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pytest_mobile_agent.virtual.android.hardware import SPEED_NAMES, NetworkLink
from pytest_mobile_agent.virtual.fronts.loopback import AcceptLoop, bind_loopback

log = logging.getLogger("pytest_mobile_agent.virtual")

TOKEN_FILE = ".emulator_console_auth_token"
LINE_LIMIT = 4095
HTTP_REQUEST = re.compile(rb"^(GET|POST|PUT|DELETE|HEAD|OPTIONS|CONNECT|TRACE|PATCH) \S+ HTTP/\d")

Handler = Callable[["ConsoleSession", str | None], bool]  # True: success (OK follows)


def write_token_file(directory: Path) -> Path:
    """A console auth token as console_auth.cpp makes one: 12 random bytes in base64 (16
    characters), in a 0600 file."""
    path = directory / TOKEN_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(base64.b64encode(secrets.token_bytes(12)).decode())
    return path


@dataclass(frozen=True)
class Command:
    names: str  # "help|h|?"
    abstract: str
    handler: Handler | None = None
    description: str | None = None
    subcommands: tuple[Command, ...] = field(default_factory=tuple)

    def matches(self, line: str) -> tuple[str, str | None] | None:
        """(the rest of the line, its arguments) when the line starts with one of the names."""
        for name in self.names.split("|"):
            if line.startswith(name) and line[len(name) : len(name) + 1] in ("", " "):
                rest = line[len(name) :].lstrip(" ")
                return line[len(name) :], rest or None
        return None


def find(commands: tuple[Command, ...], line: str) -> tuple[Command, str | None] | None:
    for command in commands:
        found = command.matches(line)
        if found is not None:
            return command, found[1]
    return None


class ConsoleSession:
    """One connection to the console."""

    def __init__(self, console: EmulatorConsole, sock: socket.socket) -> None:
        self.console = console
        self.sock = sock
        self.commands: tuple[Command, ...] = console.preauth_commands
        self.finished = False
        self.kill_requested = False

    def write(self, text: str) -> None:
        """console.cpp's control_control_write: a CR before each LF that lacks one."""
        data = re.sub(r"(?<!\r)\n", "\r\n", text).encode()
        with contextlib.suppress(OSError):
            self.sock.sendall(data)

    def greet(self) -> None:
        token = self.console.token()
        if token:
            self.write("Android Console: Authentication required\n"
                       "Android Console: type 'auth <auth_token>' to authenticate\n"
                       "Android Console: you can find your <auth_token> in \n"
                       f"'{self.console.token_path}'\nOK\n")
        else:
            self.commands = self.console.main_commands
            self.write("Android Console: type 'help' for a list of commands\nOK\n")

    def serve(self) -> None:
        self.greet()
        buffer = bytearray()
        while not self.finished:
            try:
                chunk = self.sock.recv(4096)
            except OSError:
                return
            if not chunk:
                return
            for byte in chunk:
                if byte == 0x0D:
                    continue
                if byte != 0x0A:
                    if len(buffer) >= LINE_LIMIT:
                        buffer.clear()
                    buffer.append(byte)
                    continue
                line, buffer = bytes(buffer), bytearray()
                self.run(line)
                if self.finished:
                    return

    def run(self, raw: bytes) -> None:
        if HTTP_REQUEST.match(raw):
            self.write("KO: Forbidden HTTP request. Aborting\n")
            self.finished = True
            return
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            self.write("KO: Forbidden binary request. Aborting\n")
            self.finished = True
            return
        found = find(self.commands, line)
        if found is None:
            self.write("KO: unknown command, try 'help'\n")
            return
        command, args = found
        while command.handler is None:
            if args is None:
                self.dump_help(command, "")
                self.write("KO: missing sub-command\n")
                return
            sub = find(command.subcommands, args)
            if sub is None:
                self.dump_help(command, "")
                self.write("KO:  bad sub-command\n")
                return
            command, args = sub
        if command.handler(self, args):
            self.write("OK\n")

    def dump_help(self, command: Command, prefix: str) -> None:
        self.write(command.description if command.description is not None else f"{command.abstract}\n")
        if command.subcommands:
            self.write("\navailable sub-commands:\n")
            for sub in command.subcommands:
                self.write(f"   {prefix} {sub.names:<15}  {sub.abstract}\n")
            self.write("\n")


# --- the commands ------------------------------------------------------------------------------


def do_help(session: ConsoleSession, args: str | None) -> bool:
    commands = session.commands
    if args is None:
        session.write("Android console commands:\n" + "".join(f"    {c.names}\n" for c in commands)
                      + "\nTry 'help-verbose' for more description\nTry 'help <command>' for command-specific help\n")
        return True
    start = args
    while True:
        found = find(commands, args)
        if found is None:
            do_help(session, None)
            session.write("\nKO: unknown command\n")
            return False
        command, rest = found
        if rest is None or not command.subcommands:
            session.dump_help(command, start)
            return True
        commands, args = command.subcommands, rest


def do_help_verbose(session: ConsoleSession, args: str | None) -> bool:
    session.write("Android console command help:\n\n"
                  + "".join(f"    {c.names:<15}  {c.abstract}\n" for c in session.commands)
                  + "\ntry 'help <command>' for command-specific help\n")
    return True


def do_ping(session: ConsoleSession, args: str | None) -> bool:
    session.write("I am alive!\n")
    return True


def do_quit(session: ConsoleSession, args: str | None) -> bool:
    session.finished = True
    return False


def do_auth(session: ConsoleSession, args: str | None) -> bool:
    if args is None:
        session.write("KO: missing authentication token\n")
        return False
    token = session.console.token()
    if token is None:
        session.write("KO: unable to read ~/.emulator_console_auth_token\n")
        return False
    if not secrets.compare_digest(token.encode(), args.encode()):
        session.write("KO: authentication token does not match ~/.emulator_console_auth_token\n")
        return False
    session.write("Android Console: type 'help' for a list of commands\n")
    session.commands = session.console.main_commands
    return True


def do_avd_name(session: ConsoleSession, args: str | None) -> bool:
    session.write(f"{session.console.avd_name}\n")
    return True


def do_avd_id(session: ConsoleSession, args: str | None) -> bool:
    session.write(f"{session.console.avd_name}\n")
    return True


def do_avd_status(session: ConsoleSession, args: str | None) -> bool:
    session.write("virtual device is running\n")
    return True


def do_kill(session: ConsoleSession, args: str | None) -> bool:
    """The emulator answers, then exits: OK follows the farewell, and the connection closes."""
    session.write("OK: killing emulator, bye bye\n")
    session.finished = session.kill_requested = True
    return True


def do_grpc(session: ConsoleSession, args: str | None) -> bool:
    match = re.match(r"\s*([+-]?\d+)", args or "")
    port = int(match.group(1)) if match else -1
    if not 0 <= port < 65536:
        session.write('KO: Usage: "grpc <port>"\n')
        return False
    try:
        active = session.console.on_grpc(port)
    except Exception:  # the controller did not start: what the emulator reports
        log.warning("console %d: starting the controller failed", session.console.port, exc_info=True)
        active = -1
    session.write(f'OK: {{ "port": "{active}" }}\n')
    if active < 0:
        session.write("KO: Failed to launch gRPC service\n")
        return False
    if port != 0 and active != port:
        session.write(f"OK: Port has already been activated at port: {active}\n")
    else:
        session.write(f"OK: gRPC endpoint available at port {active}\n")
    return True


def do_network_status(session: ConsoleSession, args: str | None) -> bool:
    link = session.console.link
    session.write("Current network status:\n"
                  f"  download speed:   {int(link.download_bps):8d} bits/s ({link.download_bps / 8192:.1f} KB/s)\n"
                  f"  upload speed:     {int(link.upload_bps):8d} bits/s ({link.upload_bps / 8192:.1f} KB/s)\n"
                  f"  minimum latency:  {int(link.min_latency_ms)} ms\n"
                  f"  maximum latency:  {int(link.max_latency_ms)} ms\n")
    return True


def do_network_speed(session: ConsoleSession, args: str | None) -> bool:
    return _set_link(session, args, "speed", session.console.link.set_speed)


def do_network_delay(session: ConsoleSession, args: str | None) -> bool:
    return _set_link(session, args, "delay", session.console.link.set_latency)


def _set_link(session: ConsoleSession, args: str | None, what: str, setter: Callable[[str], bool]) -> bool:
    """`network speed|delay VALUE`, with the console's KO lines for a missing or invalid value."""
    if args is None:
        session.write(f"KO: missing <{what}> argument, see 'help network {what}'\n")
        return False
    if not setter(args.strip()):
        session.write(f"KO: invalid <{what}> argument, see 'help network {what}' for valid values\n")
        return False
    return True


HELP = Command("help|h|?", "print a list of commands", do_help)
HELP_VERBOSE = Command("help-verbose", "print a list of commands with descriptions", do_help_verbose)
PING = Command("ping", "check if the emulator is alive", do_ping)
QUIT = Command("quit|exit", "quit control session", do_quit)
AVD_DESCRIPTION = "allows you to control (e.g. start/stop) the execution of the virtual device\n"
AVD_NAME = Command("name", "query virtual device name", do_avd_name,
                   "'avd name' will return the name of this virtual device\n")
PREAUTH: tuple[Command, ...] = (
    HELP, HELP_VERBOSE, PING,
    Command("avd", "control virtual device execution", None, AVD_DESCRIPTION, (AVD_NAME,)),
    Command("auth", "user authentication for the emulator console", do_auth,
            "use 'auth <auth_token>' to get extended console functionality\n"),
    QUIT,
)
MAIN: tuple[Command, ...] = (
    HELP, HELP_VERBOSE, PING,
    Command("kill", "kill the emulator instance", do_kill),
    Command("grpc", "enable the grpc endpoint", do_grpc,
            "This allows you to start the grpc endpoint at the given port\n"),
    QUIT,
    Command("network", "manage network settings", None, "allows you to manage the settings related to the network "
            "data connection of the\nemulated device.\n", (
        Command("status", "dump network status", do_network_status),
        Command("speed", "change network speed", do_network_speed,
                "'network speed <speed>' allows you to dynamically change the speed of the emulated\n"
                "network on the device, where <speed> is one of the following:\n\n"
                + "".join(f"  {name:<8} {label}\n" for name, label in SPEED_NAMES.items())
                + "  <num>    selects both upload and download speed\n"
                "  <up>:<down> select individual upload/download speeds\n"),
        Command("delay", "change network latency", do_network_delay,
                "'network delay <latency>' allows you to dynamically change the latency of the emulated\n"
                "network on the device, where <latency> is one of the following:\n\n"),
    )),
    Command("avd", "control virtual device execution", None, AVD_DESCRIPTION, (
        Command("status", "query virtual device status", do_avd_status,
                "'avd status' will indicate whether the virtual device is running or not\n"),
        AVD_NAME,
        Command("id", "query virtual device ID", do_avd_id, "'avd id' will return the ID of this virtual device\n"),
    )),
)


class EmulatorConsole:
    """The console of one virtual device on 127.0.0.1:port (a listener the caller bound, or
    one bound here)."""

    preauth_commands: tuple[Command, ...] = PREAUTH
    main_commands: tuple[Command, ...] = MAIN

    def __init__(self, *, avd_name: str, token_path: Path, on_grpc: Callable[[int], int],
                 on_kill: Callable[[], None], listener: socket.socket | None = None, port: int = 0,
                 link: NetworkLink | None = None) -> None:
        self.avd_name = avd_name
        #: the emulated network link `network speed|delay|status` drive (the device's `state.link`)
        self.link = link if link is not None else NetworkLink()
        self.token_path = token_path
        self.on_grpc = on_grpc
        self._on_kill = on_kill
        listener = listener if listener is not None else bind_loopback(port)
        self.port: int = listener.getsockname()[1]
        self._loop = AcceptLoop(listener, self._serve, name=f"virtual-console-{self.port}",
                                connection_name="virtual-console-client")
        self._loop.start()

    def token(self) -> str | None:
        """The token in the file (stripped); "" when the file is empty (auth disabled), None when
        it cannot be read."""
        try:
            return self.token_path.read_text().strip()
        except OSError:
            return None

    def _serve(self, sock: socket.socket) -> None:
        session = ConsoleSession(self, sock)
        try:
            session.serve()
        finally:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        if session.kill_requested:  # the emulator exits once its farewell is out
            self._on_kill()

    def stop(self) -> None:
        self._loop.close()
        self._loop.shut_connections()
        self._loop.join(2)
