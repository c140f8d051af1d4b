"""Confining a host tool the virtual device runs (the real toybox, awk) with Linux's Landlock.

The device never hands a host path to a tool: its file arguments are staged copies of device files
(virtual/programs/hosttools.py). Landlock is the second wall, for the tools whose scripts can name
files or run commands (awk's `system()`, `print > FILE`, `getline < FILE`):

* files: the staging directory may be read and written; the tool's binary and its ELF interpreter
  may be executed; the shared libraries, locale and time zone data may be read; nothing else, so
  `system("sh")` fails (no execute right on /bin) and `/etc/passwd` cannot be opened;
* network (ABI 4, Linux 6.7): no TCP bind or connect;
* scopes (ABI 6, Linux 6.12): no abstract unix socket or signal outside the tool's own domain.

`restrict_thread` applies to the calling thread only (landlock_restrict_self restricts the caller,
and the children it forks inherit that): the runner spawns each tool from a short-lived thread of
its own, so the rest of the process keeps its rights. `available()` says whether this kernel has
Landlock at all (None on other systems, or a kernel without it).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import logging
import os
import struct
import sys
from collections.abc import Iterable

log = logging.getLogger("pytest_mobile_agent.virtual")

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446  # the same on every architecture
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2

# Library and data directories a tool may read (Debian and most Linux layouts).
READABLE_DIRS = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/share/zoneinfo", "/usr/share/locale",
                 "/usr/lib/locale")
READABLE_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/nsswitch.conf")


def _fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1  # EXECUTE .. MAKE_SYM: ABI 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


@functools.lru_cache(maxsize=1)
def available() -> int | None:
    """The Landlock ABI version of this kernel, or None without Landlock."""
    libc = _libc()
    if libc is None:
        return None
    abi = libc.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    return int(abi) if abi > 0 else None


def _check(result: int, what: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")
    return result


def elf_interpreter(binary: str) -> str | None:
    """The PT_INTERP path of an ELF executable (what execve opens, and Landlock checks, with it)."""
    try:
        with open(binary, "rb") as file:
            head = file.read(64)
            if head[:4] != b"\x7fELF" or head[4] != 2:  # 64-bit only
                return None
            phoff, = struct.unpack_from("<Q", head, 32)
            phentsize, phnum = struct.unpack_from("<HH", head, 54)
            file.seek(phoff)
            table = file.read(phentsize * phnum)
            for index in range(phnum):
                kind, _, offset, _, _, size = struct.unpack_from("<IIQQQQ", table, index * phentsize)
                if kind == 3:  # PT_INTERP
                    file.seek(offset)
                    return file.read(size).rstrip(b"\0").decode()
    except (OSError, struct.error, UnicodeDecodeError):
        return None
    return None


def restrict_thread(*, writable: str, executables: Iterable[str]) -> None:
    """Landlock the calling thread (and what it forks): read+write under `writable`, execute the
    `executables`, read the library and data paths, nothing else; no TCP, no abstract sockets or
    signals outside. OSError when the kernel refuses."""
    libc = _libc()
    abi = available()
    if libc is None or abi is None:
        raise OSError(errno.ENOSYS, "Landlock is not available on this host")
    handled_fs = _fs_rights(abi)
    attr = struct.pack("<Q", handled_fs)
    if abi >= 4:
        attr += struct.pack("<Q", NET_BIND_TCP | NET_CONNECT_TCP)
    if abi >= 6:
        attr += struct.pack("<Q", SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _check(libc.syscall(SYS_CREATE_RULESET, buffer, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0)),
                     "landlock_create_ruleset")
    try:
        _allow(libc, ruleset, writable, handled_fs)
        for path in executables:
            _allow(libc, ruleset, path, EXECUTE | READ_FILE)
        for path in READABLE_DIRS:
            _allow(libc, ruleset, path, READ_FILE | READ_DIR, missing_ok=True)
        for path in READABLE_FILES:
            _allow(libc, ruleset, path, READ_FILE, missing_ok=True)
        _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
        _check(libc.syscall(SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, rights: int, *, missing_ok: bool = False) -> None:
    try:
        fd = os.open(os.path.realpath(path), os.O_PATH | os.O_CLOEXEC)
    except OSError:
        if missing_ok:
            return
        raise
    try:
        if not os.path.isdir(f"/proc/self/fd/{fd}"):
            rights &= FILE_RIGHTS
        rule = ctypes.create_string_buffer(struct.pack("<Qi", rights, fd), 12)
        _check(libc.syscall(SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), rule,
                            ctypes.c_uint32(0)),
               f"landlock_add_rule({path})")
    finally:
        os.close(fd)
