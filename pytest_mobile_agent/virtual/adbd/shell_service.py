"""adbd's shell services on the virtual device: `shell,v2,raw:CMD`, `shell,v2,pty:CMD`, legacy
`shell:CMD` and `exec:CMD`.

As adbd does, a service starts `/system/bin/sh -c CMD` (or `/system/bin/sh -` when CMD is empty)
as a session leader, child of adbd, with adbd's environment (PATH, HOME=/, TMPDIR, USER=shell...;
TERM from the service's `TERM=` argument, else `dumb`, on raw and pty shells alike, as
daemon/services.cpp's ShellService does; `exec:` sets none). The type defaults as adbd's do:
a pty when the command is empty, raw otherwise; `raw` and `pty` force it.

* Shell protocol v2: stdin packets go to the command's standard input (buffered without bound,
  so a front's thread never blocks on a command that does not read), close-stdin closes it (and
  is ignored on a pty, as adbd ignores it: "PTYs can't close just input"), window-size packets
  are kept; bytes that are not shell packets (an unknown id, a packet over 1 MiB) end the stream
  as a dead protocol fd does: SIGHUP to the shell, then end of stream; stdout and stderr packets
  come back separately on raw (merged as stdout on a pty), and the exit packet (the status, 128+n
  for a signal) is sent once the shell has exited *and* every holder of its output closed it, since
  adbd passes data until both output pipes are closed: a background process that keeps the
  shell's stdout keeps the stream open, as the agent's launch relies on.
* Legacy `shell:` and `exec:` carry raw bytes both ways, stderr merged into stdout, no status;
  the stream ends with the output.

Closing the stream is what dropping it does on the real device: adbd closes its end of the pipes
(the command reads end of file, and a write fails with EPIPE or raises SIGPIPE), and sends SIGHUP
to the shell it started; on a pty the terminal hangs up too, which sends SIGHUP to the terminal's
foreground process group, as the kernel does.
"""

from __future__ import annotations

import logging
import re

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb.wire import (
    SHELL_CLOSE_STDIN,
    SHELL_EXIT,
    SHELL_STDERR,
    SHELL_STDIN,
    SHELL_STDOUT,
    SHELL_WINDOW_SIZE,
    ShellPacketDecoder,
    encode_shell_packet,
)
from pytest_mobile_agent.virtual.adbd.daemon import Adbd
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.pty import Pty
from pytest_mobile_agent.virtual.kernel.streams import (
    PLAIN,
    OpenFile,
    Pipe,
    PipeWriter,
    Waiter,
    _deadline,
)

log = logging.getLogger("pytest_mobile_agent.virtual")

CHUNK = 64 * 1024
OUTBOX_CAPACITY = 1024 * 1024


def parse_shell_service(service: str) -> tuple[list[str], str] | None:
    """`shell[,arg...]:CMD` -> (args, CMD); None when it is not a shell service."""
    if service.startswith("exec:"):
        return ["exec"], service[5:]
    if not service.startswith("shell"):
        return None
    head, sep, command = service.partition(":")
    if not sep:
        return None
    parts = head.split(",")
    if parts[0] != "shell":
        return None
    return parts[1:], command


class _Sink(OpenFile):
    """The write end of one of the service's output pipes (stdout or stderr)."""

    def __init__(self, session: ShellSession, kind: int) -> None:
        super().__init__()
        self.session = session
        self.kind = kind
        self.path = "pipe:[adbd]"

    def readable(self) -> bool:
        return False

    def read(self, n: int, waiter: Waiter, deadline: float | None) -> bytes | None:
        raise OSError(9, "Bad file descriptor")

    def write(self, data: bytes, waiter: Waiter) -> None:
        self.session.emit(self.kind, data, waiter)

    def on_last_close(self) -> None:
        self.session.output_closed(self.kind)


class ShellSession:
    """The device-side stream of one shell service (what open_service returns)."""

    def __init__(self, adbd: Adbd, args: list[str], command: str, peer_uid: int) -> None:
        self.adbd = adbd
        self.kernel = adbd.system.kernel
        self.processes = adbd.system.processes
        self.label = "shell"
        self.peer_uid = peer_uid
        legacy_exec = args == ["exec"]
        self.v2 = "v2" in args
        if "raw" in args or legacy_exec:
            self.use_pty = False
        elif "pty" in args:
            self.use_pty = True
        else:
            self.use_pty = command == ""
        self.merge_stderr = not self.v2 or self.use_pty
        term = None if legacy_exec else next((a[5:] for a in args if a.startswith("TERM=")), "dumb")
        self.outbox = Pipe(self.kernel, OUTBOX_CAPACITY)
        self.outbox.readers = 1
        self.outbox.writers = 1  # ours: closed when the session finishes
        self._decoder = ShellPacketDecoder()
        self._closed = False
        self._finished = False
        self._open_outputs: set[int] = set()
        self._exit_status: int | None = None
        self.stdin_writer: PipeWriter | None = None
        self.pty: Pty | None = None
        self.proc = self._start(command, term)

    # --- start ----------------------------------------------------------------------------------------

    def _start(self, command: str, term: str | None) -> pm.Process:
        adbd = self.adbd
        env = adbd.shell_environment()
        if term is not None:
            env["TERM"] = term
        fds: dict[int, OpenFile] = {}
        tty_name = None
        if self.use_pty:
            tty_name = adbd.allocate_pts()
            self.pty = Pty(self.kernel, tty_name, self._emit_pty, lambda: self.output_closed(SHELL_STDOUT),
                           self._interrupt)
            fds = {0: self.pty.open_slave(), 1: self.pty.open_slave(), 2: self.pty.open_slave()}
            self._open_outputs = {SHELL_STDOUT}
        else:
            stdin = Pipe(self.kernel)
            fds[0] = stdin.open_reader()
            self.stdin_writer = stdin.open_writer()
            fds[1] = _Sink(self, SHELL_STDOUT)
            if self.merge_stderr:
                fds[2] = fds[1].dup()
                self._open_outputs = {SHELL_STDOUT}
            else:
                fds[2] = _Sink(self, SHELL_STDERR)
                self._open_outputs = {SHELL_STDOUT, SHELL_STDERR}
        argv = ["/system/bin/sh", "-c", command] if command else ["/system/bin/sh", "-"]
        uid = self.peer_uid
        with self.kernel.lock:
            proc = self.processes.spawn_session(adbd.process, argv, env, uid, fds, tty_name)
            proc.at_death(lambda: self._shell_exited(proc))
        proc.start(adbd.shell_program)
        return proc

    def _interrupt(self) -> None:
        proc = self.proc
        self.processes.kill_group(proc.pgid, pm.SIGINT)

    # --- output --------------------------------------------------------------------------------------

    def _emit_pty(self, data: bytes, waiter: Waiter | None) -> None:
        self.emit(SHELL_STDOUT, data, waiter or PLAIN, force=waiter is None)

    def emit(self, kind: int, data: bytes, waiter: Waiter, *, force: bool = False) -> None:
        """Output of the command (lock may be held); BrokenPipeError once the stream closed."""
        if self.merge_stderr:
            kind = SHELL_STDOUT
        with self.kernel.lock:
            if self._closed:
                raise BrokenPipeError(32, "Broken pipe")
            for start in range(0, len(data), CHUNK):
                piece = data[start : start + CHUNK]
                payload = encode_shell_packet(kind, piece) if self.v2 else piece
                if force:
                    self.outbox.buffer += payload
                    self.outbox.cond.notify_all()
                else:
                    self.outbox.write(payload, waiter)

    def output_closed(self, kind: int) -> None:
        with self.kernel.lock:
            self._open_outputs.discard(kind)
            self._maybe_finish()

    def _shell_exited(self, proc: pm.Process) -> None:
        self._exit_status = proc.exit_status if proc.exit_status is not None else 1
        self._maybe_finish()

    def _maybe_finish(self) -> None:
        if self._finished or self._open_outputs or self._exit_status is None:
            return
        self._finished = True
        if self.v2 and not self._closed:
            self.outbox.buffer += encode_shell_packet(SHELL_EXIT, bytes([self._exit_status & 0xFF]))
        if self.outbox.writers:
            self.outbox.writers -= 1
        self.outbox.cond.notify_all()

    # --- the DeviceStream interface ---------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def send(self, data: bytes) -> None:
        if self._closed:
            raise errors.Closed("shell: send on a closed stream")
        if not self.v2:
            self._stdin(data)
            return
        try:
            packets = self._decoder.feed(data)
        except errors.ProtocolError as exc:
            log.info("shell stream of pid %d: %s; closing it", self.proc.pid, exc)
            self.close()  # what adbd does when it cannot read the protocol fd any more
            return
        for kind, payload in packets:
            if kind == SHELL_STDIN:
                self._stdin(payload)
            elif kind == SHELL_CLOSE_STDIN:
                self._close_stdin()
            elif kind == SHELL_WINDOW_SIZE and self.pty is not None:
                self._window(payload)

    sendall = send

    def _stdin(self, data: bytes) -> None:
        if self.pty is not None:
            self.pty.master_write(data)
            return
        with self.kernel.lock:
            writer = self.stdin_writer
            if writer is None or writer.pipe.readers == 0:
                return
            # never blocks the front's thread: what the host sends waits here for the command
            writer.pipe.buffer += data
            writer.pipe.cond.notify_all()

    def _close_stdin(self) -> None:
        if self.pty is not None:
            return  # adbd: "PTYs can't close just input", so the request is ignored
        with self.kernel.lock:
            writer, self.stdin_writer = self.stdin_writer, None
            if writer is not None:
                writer.release()

    def _window(self, payload: bytes) -> None:
        """adbd's `ROWSxCOLS,XPIXELSxYPIXELS` (TIOCSWINSZ on the pty)."""
        match = re.fullmatch(rb"(\d+)x(\d+),(\d+)x(\d+)\0?", payload)
        if match is None or self.pty is None:
            return
        self.pty.rows, self.pty.cols = int(match.group(1)), int(match.group(2))

    def recv(self, timeout: float | None = None) -> bytes:
        if self._closed:
            return b""
        data = self.outbox.read(256 * 1024, PLAIN, _deadline(timeout))
        if data is None:
            raise errors.Timeout("shell: recv", timeout)
        return data

    def close(self) -> None:
        """Drop the stream: adbd closes its pipe ends and sends SIGHUP to the shell."""
        with self.kernel.lock:
            if self._closed:
                return
            self._closed = True
            self.outbox.readers = 0
            self.outbox.buffer.clear()
            self.outbox.cond.notify_all()
            self._close_stdin()
            if self.pty is not None:
                self.pty.hang_up()
                self.processes.kill_group(self.proc.pgid, pm.SIGHUP)
            self.proc.deliver(pm.SIGHUP)
        log.debug("shell stream of pid %d closed", self.proc.pid)

    def wait_exit(self, timeout: float) -> int | None:
        """For in-process users: the shell's status once it ended, else None."""
        end = _deadline(timeout)
        with self.kernel.lock:
            PLAIN.wait(self.proc.cond, lambda: self.proc.dead, end)
            return self.proc.exit_status


def run_to_completion(session: ShellSession, stdin: bytes = b"", timeout: float = 10.0) -> tuple[int, bytes, bytes]:
    """Drive a v2 raw session: write stdin, close it, collect (status, stdout, stderr)."""
    from pytest_mobile_agent.adb.wire import encode_shell_packet as enc

    if stdin:
        session.send(enc(SHELL_STDIN, stdin))
    session.send(enc(SHELL_CLOSE_STDIN, b""))
    decoder = ShellPacketDecoder()
    out = bytearray()
    err = bytearray()
    status = -1
    end = _deadline(timeout)
    assert end is not None
    import time

    while True:
        remaining = end - time.monotonic()
        if remaining <= 0:
            raise errors.Timeout("virtual shell command", timeout)
        data = session.recv(remaining)
        if not data:
            break
        for kind, payload in decoder.feed(data):
            if kind == SHELL_STDOUT:
                out += payload
            elif kind == SHELL_STDERR:
                err += payload
            elif kind == SHELL_EXIT:
                status = payload[0] if payload else 0
    return status, bytes(out), bytes(err)



