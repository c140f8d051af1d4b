"""Starting a host tool with posix_spawn, so that no fork handler runs in the child.

The process that runs the virtual device also runs grpc (the emulator controller's double, the
emulator client), and grpc core registers pthread_atfork handlers that glibc runs in the child of
every fork(). CPython 3.11's subprocess forks with fork() (Modules/_posixsubprocess.c) whenever it
cannot use vfork: a preexec_fn, or a change of user, group or supplementary groups, which every
tool had when the host runs us as root (the tool runs as nobody). glibc's posix_spawn (2.24 and
later, sysdeps/unix/sysv/linux/spawni.c) starts the child with clone(CLONE_VM | CLONE_VFORK) and
runs no fork handler, C's or Python's (os.register_at_fork).

What a preexec_fn would have done in the child is done to the spawning thread instead, whose state
the child copies and the rest of the process does not share: the thread is a fresh one, ended
after the spawn, that

* takes a working directory of its own (unshare(CLONE_FS)) and changes into the tool's;
* runs `prepare` (the Landlock confinement, confine.restrict_thread, which is per thread too);
* drops to the tool's uid and gid with no supplementary groups, by the raw system calls, which
  change the calling thread only (glibc's setuid would change every thread of the process).

The child's stdin, stdout and stderr are pipes; every other inheritable descriptor is closed in
the child (subprocess's close_fds); SIGPIPE and SIGXFSZ are reset to their default, as
subprocess's restore_signals does; the child leads a session of its own.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import platform
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

CLONE_FS = 0x200

# (setgroups, setresgid, setresuid) by machine: x86_64's table, and the generic one of arm64 and riscv64
_IDENTITY_SYSCALLS = {
    "x86_64": (116, 119, 117),
    "aarch64": (159, 149, 147),
    "arm64": (159, 149, 147),
    "riscv64": (159, 149, 147),
}


@dataclass
class SpawnedTool:
    """A started tool: its pid and the parent's ends of its three pipes (what _pump needs of a Popen)."""

    pid: int
    stdin: IO[bytes]
    stdout: IO[bytes]
    stderr: IO[bytes]
    returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            _, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


def available() -> bool:
    """Whether this host can spawn that way: Linux, with posix_spawn and unshare."""
    return hasattr(os, "posix_spawn") and _libc() is not None


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    return libc if hasattr(libc, "unshare") else None


def spawn(argv: list[str], executable: str, *, cwd: str, env: dict[str, str], identity: int | None = None,
          prepare: Callable[[], None] | None = None) -> SpawnedTool:
    """Start `executable` with `argv` in `cwd`; `identity` the uid and gid to run as (None: ours);
    `prepare` runs on the spawning thread first. OSError when the host cannot (not `available()`),
    or when a step fails (prepare's own exceptions as they are)."""
    libc = _libc()
    if libc is None or not hasattr(os, "posix_spawn"):
        raise OSError(errno.ENOSYS, "posix_spawn from a thread of its own needs Linux")
    ends = [os.pipe() for _ in range(3)]  # stdin, stdout, stderr: (read, write), not inheritable
    child_ends = [ends[0][0], ends[1][1], ends[2][1]]
    result: dict[str, object] = {}

    def start() -> None:
        try:
            result["pid"] = _spawn_here(libc, argv, executable, cwd, env, identity, prepare, child_ends)
        except BaseException as exc:  # handed to the caller
            result["error"] = exc

    spawner = threading.Thread(target=start, name="virtual-host-tool", daemon=True)
    spawner.start()
    spawner.join()
    for fd in child_ends:
        os.close(fd)
    if "error" in result:
        for fd in (ends[0][1], ends[1][0], ends[2][0]):
            os.close(fd)
        raise result["error"]  # type: ignore[misc]
    return SpawnedTool(int(result["pid"]),  # type: ignore[call-overload]
                       open(ends[0][1], "wb", buffering=0), open(ends[1][0], "rb", buffering=0),
                       open(ends[2][0], "rb", buffering=0))


def _spawn_here(libc: ctypes.CDLL, argv: list[str], executable: str, cwd: str, env: dict[str, str],
                identity: int | None, prepare: Callable[[], None] | None, child_ends: list[int]) -> int:
    actions: list[tuple[int, ...]] = [(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(child_ends)]
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inheritable_fds() if fd > 2]  # before Landlock hides /proc
    _check(libc.unshare(CLONE_FS), "unshare(CLONE_FS)")
    os.chdir(cwd)  # this thread's directory only, now
    if prepare is not None:
        prepare()
    if identity is not None:
        _drop_identity(libc, identity)
    return os.posix_spawn(executable, argv, env, file_actions=actions, setsid=True,
                          setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))


def _drop_identity(libc: ctypes.CDLL, identity: int) -> None:
    numbers = _IDENTITY_SYSCALLS.get(platform.machine())
    if numbers is None:
        raise OSError(errno.ENOSYS, f"dropping to uid {identity} on one thread is not known on {platform.machine()}")
    setgroups, setresgid, setresuid = numbers
    _check(libc.syscall(setgroups, 0, None), "setgroups")
    _check(libc.syscall(setresgid, identity, identity, identity), "setresgid")
    _check(libc.syscall(setresuid, identity, identity, identity), "setresuid")


def _inheritable_fds() -> list[int]:
    """This process's descriptors that an exec would pass on (Python's own are not inheritable;
    a C library's or a user's may be)."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        with contextlib.suppress(OSError):
            if os.get_inheritable(fd):
                found.append(fd)
    return found


def _check(result: int, what: str) -> None:
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")
