"""The virtual device's process table: pids, parents, sessions, fds, signals and exit statuses.

A process is a record in the table plus, while it runs a program, one daemon thread. Python cannot
kill a thread, so a fatal signal ends the *process* at once, as the kernel does (its fds close, its
children are reparented to init, its status becomes 128 + n, it leaves `ps`), and its thread finds
out at its next blocking point or fd operation, where `Terminated` (a BaseException, so a program's
`except Exception` does not swallow it) unwinds it. Every blocking point of a program is a
`proc.wait(...)`: pipe reads and writes through `proc.stdin/stdout/stderr`, `proc.sleep`, socket
accepts and receives given `waiter=proc`, and waits for children.

Signals follow Linux: SIGKILL and SIGSTOP cannot be ignored; SIGCONT continues a stopped process;
an ignored signal (`trap '' HUP PIPE`, inherited across fork and exec) is dropped; a blocked one is
left pending (ART blocks SIGQUIT, SIGUSR1, SIGPIPE and signal 32: SigBlk 0x80001204, as the seed
measured on the API 36 emulator); a caught one (`proc.signals.catch`, or a shell trap with a
command) interrupts the blocking call with `Interrupted`; the rest take their default action:
terminate (HUP, INT, QUIT, PIPE, TERM, USR1, ...) or nothing (CHLD, WINCH, URG). A write to a pipe
with no reader raises SIGPIPE, or, when SIGPIPE is ignored or blocked, fails with EPIPE
(BrokenPipeError), which is how the agent survives its closed launch stream.

What `ps` shows of a process besides its ids: its memory (VSZ and RSS in KiB, by program, from
`MEMORY_KB`, as a 64-bit Android process reserves ~10 GB of address space and ART processes more)
and its wait channel (WCHAN: `0` while it runs, `do_wait` in waitpid, `hrtimer_nanosleep` in a
sleep, the program's usual channel otherwise: `pipe_read` for a tool, `do_epoll_wait` for ART).

C stdio buffering for programs that use it (getevent): `proc.c_stdout()` is line buffered on a
terminal and fully buffered (4096 bytes) elsewhere, flushed at a normal exit and lost when a signal
kills the process, as with a real C program.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.streams import Kernel, NullFile, OpenFile

log = logging.getLogger("pytest_mobile_agent.virtual")

SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE = 1, 2, 3, 4, 5, 6, 7, 8
SIGKILL, SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM = 9, 10, 11, 12, 13, 14, 15
SIGCHLD, SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, SIGURG, SIGWINCH = 17, 18, 19, 20, 21, 22, 23, 28

SIGNALS: dict[str, int] = {
    "HUP": SIGHUP, "INT": SIGINT, "QUIT": SIGQUIT, "ILL": SIGILL, "TRAP": SIGTRAP,
    "ABRT": SIGABRT, "IOT": SIGABRT, "BUS": SIGBUS, "FPE": SIGFPE, "KILL": SIGKILL,
    "USR1": SIGUSR1, "SEGV": SIGSEGV, "USR2": SIGUSR2, "PIPE": SIGPIPE, "ALRM": SIGALRM,
    "TERM": SIGTERM, "STKFLT": 16, "CHLD": SIGCHLD, "CONT": SIGCONT, "STOP": SIGSTOP,
    "TSTP": SIGTSTP, "TTIN": SIGTTIN, "TTOU": SIGTTOU, "URG": SIGURG, "XCPU": 24,
    "XFSZ": 25, "VTALRM": 26, "PROF": 27, "WINCH": SIGWINCH, "IO": 29, "POLL": 29,
    "PWR": 30, "SYS": 31,
}
SIGNAL_NAMES: dict[int, str] = {}
for _name, _number in SIGNALS.items():
    SIGNAL_NAMES.setdefault(_number, _name)

DEFAULT_IGNORED = frozenset({SIGCHLD, SIGWINCH, SIGURG, SIGCONT})

# (VSZ KiB, RSS KiB, WCHAN while blocked) by comm: figures of the kind an API 36 emulator's
# `ps -A` shows (bionic's 64-bit address space; ART's heap and boot image reservations).
MEMORY_KB: dict[str, tuple[int, int, str]] = {
    "sh": (10860888, 3628, "pipe_read"),
    "mksh": (10860888, 3628, "pipe_read"),
    "app_process": (14536404, 112340, "do_epoll_wait"),
    "app_process64": (14536404, 112340, "do_epoll_wait"),
    "mobile-agent": (14562180, 118872, "do_epoll_wait"),
    "uiautomator": (14494116, 101244, "do_epoll_wait"),
    "logcat": (10889212, 4456, "__do_sys_rt_sigtimedwait"),
    "getevent": (10867940, 3212, "do_sys_poll"),
}
DEFAULT_MEMORY_KB = (10871112, 3408, "pipe_read")  # a toybox tool: the 64-bit reservation, a few MB resident
ART_SIGBLK = 0x80001204
SHELL_UID = 2000
ROOT_UID = 0
INIT_PID = 1


def parse_signal(text: str) -> int | None:
    """A signal by number, name (HUP) or SIG-name (SIGHUP); None if unknown."""
    word = text.upper()
    if is_decimal(word):
        number = int(word)
        return number if 0 <= number <= 64 else None
    if word.startswith("SIG"):
        word = word[3:]
    return SIGNALS.get(word)


def mask_of(signals: set[int] | frozenset[int]) -> int:
    """The /proc/<pid>/status bit mask: bit n-1 for signal n."""
    mask = 0
    for sig in signals:
        if sig >= 1:
            mask |= 1 << (sig - 1)
    return mask


class Terminated(BaseException):  # noqa: N818 - it is a control-flow signal, like SystemExit
    """The process was ended by a signal (or exited); unwinds its thread."""

    def __init__(self, sig: int = 0) -> None:
        super().__init__(sig)
        self.sig = sig


class Interrupted(Exception):  # noqa: N818 - EINTR
    """A caught signal interrupted a blocking call (EINTR); `sig` says which."""

    def __init__(self, sig: int) -> None:
        super().__init__(f"interrupted by signal {sig}")
        self.sig = sig


@dataclass
class SignalState:
    """Dispositions of one process: `proc.signals`."""

    ignored: set[int] = field(default_factory=set)
    caught: set[int] = field(default_factory=set)
    blocked: int = 0
    pending: list[int] = field(default_factory=list)
    blocked_pending: set[int] = field(default_factory=set)

    def ignore(self, *sigs: int) -> None:
        for sig in sigs:
            if sig not in (SIGKILL, SIGSTOP):
                self.ignored.add(sig)
                self.caught.discard(sig)

    def default(self, *sigs: int) -> None:
        for sig in sigs:
            self.ignored.discard(sig)
            self.caught.discard(sig)

    def catch(self, *sigs: int) -> None:
        for sig in sigs:
            if sig not in (SIGKILL, SIGSTOP):
                self.caught.add(sig)
                self.ignored.discard(sig)

    def block(self, mask: int) -> None:
        self.blocked |= mask

    def is_blocked(self, sig: int) -> bool:
        return bool(self.blocked & (1 << (sig - 1)))

    def take(self) -> int | None:
        """The oldest caught signal not yet handled, if any."""
        return self.pending.pop(0) if self.pending else None

    def copy_for_exec(self) -> SignalState:
        """Across fork and exec: ignored stays ignored, caught returns to default, mask kept."""
        return SignalState(ignored=set(self.ignored), blocked=self.blocked)


class Process:
    """One process of the device. Programs get it as `proc`."""

    def __init__(
        self,
        table: ProcessTable,
        pid: int,
        ppid: int,
        argv: list[str],
        env: dict[str, str],
        uid: int,
        *,
        fds: dict[int, OpenFile] | None = None,
        cwd: str = "/",
        pgid: int | None = None,
        sid: int | None = None,
        tty: str | None = None,
        signals: SignalState | None = None,
    ) -> None:
        self.table = table
        self.kernel = table.kernel
        self.pid = pid
        self.ppid = ppid
        self.argv = list(argv)
        self.env = dict(env)
        self.uid = uid
        self.gid = uid
        self.cwd = cwd
        self.pgid = pgid if pgid is not None else pid
        self.sid = sid if sid is not None else pid
        self.tty = tty
        self.fds: dict[int, OpenFile] = fds if fds is not None else {}
        self.signals = signals if signals is not None else SignalState()
        self.cond = table.kernel.condition()
        self.started_at = time.monotonic()
        self.dead = False
        self.stopped = False
        self.exit_status: int | None = None
        self.term_signal = 0
        self.thread: threading.Thread | None = None
        self._waiting_on: threading.Condition | None = None
        self._name_override: str | None = None
        self._arg_block = sum(len(a.encode()) + 1 for a in argv)
        self.comm = _comm_of(argv)
        self._at_exit: list[Callable[[], None]] = []
        self._at_death: list[Callable[[], None]] = []
        self.memory = memory_of(self.comm)  # (VSZ KiB, RSS KiB, usual WCHAN)
        self.cpu_ms = 0.0  # CPU time used (/proc/PID/stat's utime and stime): what its work charged
        self.channel: str | None = None  # the wait channel of the blocking call under way

    # --- identity ----------------------------------------------------------------------------------

    def __repr__(self) -> str:
        return f"<Process {self.pid} {self.args_line()!r}>"

    def set_name(self, line: str) -> None:
        """Process.setArgV0: the argument block now reads `line` (NUL padded to its old length),
        and the thread name (comm, 15 characters at most) is its tail; `ps` and /proc follow."""
        with self.kernel.lock:
            self._name_override = line
            encoded = line.encode()
            self.comm = (encoded[-15:] if len(encoded) > 15 else encoded).decode(errors="replace")

    def cmdline_bytes(self) -> bytes:
        if self._name_override is not None:
            text = self._name_override.encode()
            return text + b"\0" * max(1, self._arg_block - len(text))
        return b"".join(a.encode() + b"\0" for a in self.argv)

    def args_line(self) -> str:
        """toybox ps ARGS: the command line with NULs as spaces."""
        raw = self.cmdline_bytes().rstrip(b"\0")
        return raw.replace(b"\0", b" ").decode(errors="replace") or f"[{self.comm}]"

    def user_name(self) -> str:
        return {0: "root", 1000: "system", 1001: "radio", 1013: "media", 1036: "logd", 1041: "audioserver",
                2000: "shell"}.get(
            self.uid, f"u0_a{self.uid - 10000}" if self.uid >= 10000 else str(self.uid)
        )

    # --- exec --------------------------------------------------------------------------------------

    def exec_image(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        """execve(2): a new argv and environment, same pid and fds; caught signals to default."""
        with self.kernel.lock:
            self.argv = list(argv)
            if env is not None:
                self.env = dict(env)
            self._name_override = None
            self._arg_block = sum(len(a.encode()) + 1 for a in argv)
            self.comm = _comm_of(argv)
            self.memory = memory_of(self.comm)
            self.signals = self.signals.copy_for_exec()

    # --- blocking, signals ------------------------------------------------------------------------

    def checkpoint(self) -> None:
        """Raise Terminated if the process has ended, Interrupted if a caught signal is pending."""
        if self.dead:
            raise Terminated(self.term_signal)
        if self.signals.pending:
            raise Interrupted(self.signals.take() or 0)

    def wait(self, cond: threading.Condition, ready: Callable[[], bool], deadline: float | None) -> bool:
        """The Waiter protocol: block until ready() or the deadline, interruptible by signals."""
        with self.kernel.lock:
            previous = self._waiting_on
            self._waiting_on = cond
            try:
                while True:
                    self.checkpoint()
                    if self.stopped:
                        cond.wait()
                        continue
                    if ready():
                        return True
                    if deadline is None:
                        cond.wait()
                        continue
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return False
                    cond.wait(remaining)
            finally:
                self._waiting_on = previous

    def sleep(self, seconds: float) -> None:
        """An interruptible sleep (SIGTERM, SIGKILL, SIGHUP... end it at once)."""
        with self._in_channel("hrtimer_nanosleep"):
            self.wait(self.cond, lambda: False, time.monotonic() + max(0.0, seconds))

    def wait_for(self, child: Process, deadline: float | None = None) -> int | None:
        """waitpid(2) for a child: its status, or None at the deadline."""
        with self._in_channel("do_wait"):
            if not self.wait(child.cond, lambda: child.dead, deadline):
                return None
        return child.exit_status

    @contextlib.contextmanager
    def _in_channel(self, name: str) -> Iterator[None]:
        previous, self.channel = self.channel, name
        try:
            yield
        finally:
            self.channel = previous

    def wchan(self) -> str:
        """What `ps` shows as WCHAN: 0 while running, else where the process sleeps."""
        if self.state_letter() == "R":
            return "0"
        return self.channel or self.memory[2]

    def deliver(self, sig: int) -> None:
        """The kernel's side of kill(2) (lock taken here)."""
        with self.kernel.lock:
            if self.dead or sig == 0:
                return
            if sig == SIGKILL:
                self.table.terminate(self, sig)
            elif sig == SIGSTOP or (sig in (SIGTSTP, SIGTTIN, SIGTTOU) and sig not in self.signals.ignored
                                    and sig not in self.signals.caught):
                self.stopped = True
            elif sig == SIGCONT:
                self.stopped = False
                if sig in self.signals.caught:
                    self.signals.pending.append(sig)
            elif sig in self.signals.ignored:
                return
            elif self.signals.is_blocked(sig):
                self.signals.blocked_pending.add(sig)
            elif sig in self.signals.caught:
                self.signals.pending.append(sig)
            elif sig in DEFAULT_IGNORED:
                return
            else:
                self.table.terminate(self, sig)
            self._wake()

    def _wake(self) -> None:
        self.cond.notify_all()
        if self._waiting_on is not None:
            self._waiting_on.notify_all()

    # --- fds ----------------------------------------------------------------------------------------

    def fd(self, number: int) -> OpenFile:
        with self.kernel.lock:
            if self.dead:
                raise Terminated(self.term_signal)
            file = self.fds.get(number)
            if file is None:
                raise OSError(errno.EBADF, "Bad file descriptor")
            return file

    def set_fd(self, number: int, file: OpenFile) -> None:
        """dup2: `file` (a reference the caller owns) becomes fd `number`."""
        with self.kernel.lock:
            old = self.fds.pop(number, None)
            self.fds[number] = file
            if old is not None:
                old.release()

    def close_fd(self, number: int) -> None:
        with self.kernel.lock:
            old = self.fds.pop(number, None)
            if old is not None:
                old.release()

    def dup_fds(self) -> dict[int, OpenFile]:
        with self.kernel.lock:
            return {n: f.dup() for n, f in self.fds.items()}

    @property
    def stdin(self) -> FdStream:
        return FdStream(self, 0)

    @property
    def stdout(self) -> FdStream:
        return FdStream(self, 1)

    @property
    def stderr(self) -> FdStream:
        return FdStream(self, 2)

    def c_stdout(self) -> CStdio:
        """A C stdio `stdout` over fd 1: line buffered on a tty, 4096-byte blocks on a pipe."""
        stream = CStdio(self.stdout)
        self._at_exit.append(stream.flush)
        return stream

    def at_exit(self, callback: Callable[[], None]) -> None:
        """Run at a normal exit (returning from the program), not when a signal kills it."""
        self._at_exit.append(callback)

    def at_death(self, callback: Callable[[], None]) -> None:
        """Run (lock held) however the process ends: the kernel's cleanup (sockets, slots)."""
        with self.kernel.lock:
            if self.dead:
                callback()
            else:
                self._at_death.append(callback)

    # --- running ------------------------------------------------------------------------------------

    def start(self, program: Callable[[Process], int]) -> None:
        """Run `program(self)` on a daemon thread; its return value is the exit status."""
        self.thread = threading.Thread(target=self.run, args=(program,), name=f"pid{self.pid}:{self.comm}", daemon=True)
        self.thread.start()

    def run(self, program: Callable[[Process], int]) -> None:
        """Run `program` on the calling thread and exit with its status."""
        status = 1
        try:
            status = program(self)
            for callback in list(self._at_exit):
                callback()
        except Terminated:
            return
        except OSError as exc:  # EPIPE, EIO on a hung-up terminal...: the program's error exit
            log.debug("virtual process %d (%s) ended on %s", self.pid, self.comm, exc)
            status = 1
        except Exception:  # a program's bug: the process dies, the device goes on
            log.exception("virtual process %d (%s) failed", self.pid, self.comm)
            status = 1
        self.table.exit(self, status & 0xFF if isinstance(status, int) else 1)

    def exit_now(self, status: int) -> None:
        """_exit(2) from inside the program: flush nothing, end now."""
        self.table.exit(self, status & 0xFF)
        raise Terminated(0)

    def state_letter(self) -> str:
        """Z dead, T stopped, R running its program (not blocked), S sleeping."""
        if self.dead:
            return "Z"
        if self.stopped:
            return "T"
        if self.thread is not None and self.thread.is_alive() and self._waiting_on is None:
            return "R"
        return "S"


def memory_of(comm: str) -> tuple[int, int, str]:
    return MEMORY_KB.get(comm, DEFAULT_MEMORY_KB)


def _comm_of(argv: list[str]) -> str:
    base = argv[0].rsplit("/", 1)[-1] if argv else "?"
    return base[:15]


class FdStream:
    """A program's view of one of its fds: read/readline/write/close, signal aware."""

    def __init__(self, proc: Process, number: int) -> None:
        self.proc = proc
        self.number = number

    def isatty(self) -> bool:
        try:
            return self.proc.fd(self.number).isatty()
        except OSError:
            return False

    def read(self, n: int = 65536, timeout: float | None = None) -> bytes:
        """Up to n bytes, b"" at end of file; errors.Timeout when nothing came in time."""
        file = self.proc.fd(self.number)
        deadline = None if timeout is None else time.monotonic() + timeout
        data = file.read(n, self.proc, deadline)
        if data is None:
            raise errors.Timeout(f"read of fd {self.number}", timeout)
        return data

    def readline(self, timeout: float | None = None) -> bytes:
        """One line with its newline (b"" at end), read a byte at a time as a shell's read does."""
        out = bytearray()
        deadline = None if timeout is None else time.monotonic() + timeout
        file = self.proc.fd(self.number)
        while True:
            data = file.read(1, self.proc, deadline)
            if data is None:
                raise errors.Timeout(f"read of fd {self.number}", timeout)
            if not data:
                return bytes(out)
            out += data
            if data == b"\n":
                return bytes(out)

    def read_all(self) -> bytes:
        out = bytearray()
        while True:
            data = self.read()
            if not data:
                return bytes(out)
            out += data

    def write(self, data: bytes | str) -> None:
        payload = data.encode() if isinstance(data, str) else bytes(data)
        if not payload:
            return
        file = self.proc.fd(self.number)
        try:
            file.write(payload, self.proc)
        except BrokenPipeError:
            self._sigpipe()
            raise

    def _sigpipe(self) -> None:
        proc = self.proc
        signals = proc.signals
        if SIGPIPE in signals.ignored or signals.is_blocked(SIGPIPE) or SIGPIPE in signals.caught:
            if signals.is_blocked(SIGPIPE):
                signals.blocked_pending.add(SIGPIPE)
            return  # EPIPE for the caller
        proc.deliver(SIGPIPE)
        raise Terminated(SIGPIPE)

    def close(self) -> None:
        self.proc.close_fd(self.number)


class CStdio:
    """C stdio's stdout: line buffered on a terminal, fully buffered (BUFSIZ 4096) on a pipe."""

    BUFSIZ = 4096

    def __init__(self, stream: FdStream) -> None:
        self.stream = stream
        self.line_buffered = stream.isatty()
        self.buffer = bytearray()

    def write(self, data: bytes | str) -> None:
        self.buffer += data.encode() if isinstance(data, str) else data
        if self.line_buffered:
            cut = self.buffer.rfind(b"\n")
            if cut >= 0:
                chunk = bytes(self.buffer[: cut + 1])
                del self.buffer[: cut + 1]
                self.stream.write(chunk)
            return
        while len(self.buffer) >= self.BUFSIZ:
            chunk = bytes(self.buffer[: self.BUFSIZ])
            del self.buffer[: self.BUFSIZ]
            self.stream.write(chunk)

    def flush(self) -> None:
        if self.buffer:
            chunk, self.buffer = bytes(self.buffer), bytearray()
            with contextlib.suppress(BrokenPipeError, OSError):
                self.stream.write(chunk)


class ProcessTable:
    """All processes of one device. Pids grow from `first_pid`; init is pid 1."""

    def __init__(self, kernel: Kernel, *, first_pid: int = 3000) -> None:
        self.kernel = kernel
        self._procs: dict[int, Process] = {}
        self._next_pid = first_pid
        self.on_exit: list[Callable[[Process], None]] = []

    def _alloc_pid(self) -> int:
        while self._next_pid in self._procs:
            self._next_pid += 1
        pid = self._next_pid
        self._next_pid += 1
        if self._next_pid > 32767:
            self._next_pid = 3000
        return pid

    def add_system(self, pid: int, ppid: int, argv: list[str], uid: int, *, name: str | None = None,
                   memory: tuple[int, int, str] | None = None) -> Process:
        """A resident system process (init, adbd, system_server...), with no thread."""
        with self.kernel.lock:
            proc = Process(self, pid, ppid, argv, {}, uid, fds={0: NullFile(), 1: NullFile(), 2: NullFile()})
            if name is not None:
                proc.set_name(name)
            if memory is not None:
                proc.memory = memory
            self._procs[pid] = proc
            return proc

    def fork(self, parent: Process, *, argv: list[str] | None = None,
             fds: dict[int, OpenFile] | None = None) -> Process:
        """fork(2): a child with the parent's fds (dup'd), env, uid, session, dispositions."""
        with self.kernel.lock:
            pid = self._alloc_pid()
            child = Process(
                self,
                pid,
                parent.pid,
                argv if argv is not None else parent.argv,
                parent.env,
                parent.uid,
                fds=fds if fds is not None else parent.dup_fds(),
                cwd=parent.cwd,
                pgid=parent.pgid,
                sid=parent.sid,
                tty=parent.tty,
                signals=SignalState(ignored=set(parent.signals.ignored), blocked=parent.signals.blocked),
            )
            child._name_override = parent._name_override if argv is None else None
            child._arg_block = parent._arg_block if argv is None else child._arg_block
            child.comm = parent.comm if argv is None else child.comm
            self._procs[pid] = child
            return child

    def spawn_session(
        self, parent: Process, argv: list[str], env: dict[str, str], uid: int, fds: dict[int, OpenFile], tty: str | None
    ) -> Process:
        """fork + setsid + exec, as adbd starts a shell: a new session led by the child."""
        with self.kernel.lock:
            pid = self._alloc_pid()
            child = Process(self, pid, parent.pid, argv, env, uid, fds=fds, cwd="/", tty=tty)
            self._procs[pid] = child
            return child

    def get(self, pid: int) -> Process | None:
        with self.kernel.lock:
            return self._procs.get(pid)

    def processes(self) -> list[Process]:
        with self.kernel.lock:
            return sorted(self._procs.values(), key=lambda p: p.pid)

    def kill(self, pid: int, sig: int, sender_uid: int) -> None:
        """kill(2): ProcessLookupError (ESRCH) or PermissionError (EPERM) as the kernel would."""
        with self.kernel.lock:
            proc = self._procs.get(pid)
            if proc is None or proc.dead:
                raise ProcessLookupError(errno.ESRCH, "No such process")
            if sender_uid != ROOT_UID and sender_uid != proc.uid:
                raise PermissionError(errno.EPERM, "Operation not permitted")
            proc.deliver(sig)

    def kill_group(self, pgid: int, sig: int) -> None:
        with self.kernel.lock:
            for proc in list(self._procs.values()):
                if proc.pgid == pgid:
                    proc.deliver(sig)

    def terminate(self, proc: Process, sig: int) -> None:
        proc.term_signal = sig
        self.exit(proc, 128 + sig)

    def exit(self, proc: Process, status: int) -> None:
        """The process ends: fds closed, children to init, waiters woken, table entry gone."""
        with self.kernel.lock:
            if proc.dead:
                return
            proc.dead = True
            proc.exit_status = status
            fds, proc.fds = proc.fds, {}
            for file in fds.values():
                file.release()
            for other in self._procs.values():
                if other.ppid == proc.pid:
                    other.ppid = INIT_PID
            self._procs.pop(proc.pid, None)
            callbacks, proc._at_death = proc._at_death, []
            for callback in callbacks:
                try:
                    callback()
                except Exception:  # noqa: BLE001 - cleanup of one resource must not stop the others
                    log.exception("cleanup after pid %d failed", proc.pid)
            for hook in self.on_exit:
                hook(proc)
            proc._wake()
