"""The files this host keeps for its user: where they live, and the one way their directories are made.

Everything the plugin writes for later runs (the built agent jars, the agent records) lives in one
per-user cache directory, `user_cache_dir()`, and every directory it creates there, or is pointed at,
goes through `private_dir`: made with mode 0700, and refused when it is a symlink, not a
directory, or owned by another user, since the records hold the agents' tokens and the cache holds
the code the device runs.

`target_key(server, serial)` names a per-target file: two devices that are both `emulator-5554`
on two adb servers never share one.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
import sys
from pathlib import Path

from pytest_mobile_agent.errors import UnsafeDirectory

APP_DIR = "pytest-mobile-agent"
_MAX_STEM = 200


def user_cache_dir(environ: os._Environ[str] | dict[str, str] | None = None, platform: str | None = None) -> Path:
    """`$XDG_CACHE_HOME/pytest-mobile-agent`, else the OS's cache directory: `~/.cache` on Linux and
    the BSDs, `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows."""
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    xdg = env.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):  # the XDG spec: a relative value is to be ignored
        return Path(xdg) / APP_DIR
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    if platform == "darwin":
        return home / "Library" / "Caches" / APP_DIR
    if platform.startswith("win"):
        local = env.get("LOCALAPPDATA")
        return (Path(local) if local else home / "AppData" / "Local") / APP_DIR
    return home / ".cache" / APP_DIR


def private_dir(path: str | os.PathLike[str]) -> Path:
    """`path` as a directory only we can use: created (with its missing parents) mode 0700, or, when
    it exists, checked to be a real directory of ours, its mode narrowed to 0700. UnsafeDirectory
    names what is wrong and how to fix it."""
    where = Path(path)
    where.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.mkdir(where, 0o700)
    info = os.lstat(where)
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeDirectory(f"{where} is a symbolic link (to {os.readlink(where)}), not a directory of ours",
                              advice=f"Remove the link (rm {where}) or name a directory of your own")
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeDirectory(
            f"{where} is not a directory", advice=f"Remove it (rm {where}) or name a directory of your own"
        )
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        raise UnsafeDirectory(
            f"{where} belongs to uid {info.st_uid}, not to us (uid {os.geteuid()})",
            advice=f"Remove it as its owner (rm -r {where}), or name a directory of your own",
        )
    if os.name == "posix" and stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(where, 0o700)
    return where


def target_key(server: str, serial: str) -> str:
    """A file-name stem for one target of one adb server (`emulator-5554` on `127.0.0.1:5037`):
    injective (unsafe bytes as `%XX`), at most 200 bytes (a long key keeps a prefix and a digest)."""
    return file_stem(f"{serial}@{server}")


def file_stem(name: str) -> str:
    """`name` as a file-name stem: the bytes outside `[A-Za-z0-9._-]` as `%XX`, so that two names
    never share a stem; past 200 bytes, a prefix and 16 hex digits of the name's SHA-256."""
    safe = re.sub(
        r"[^A-Za-z0-9._-]", lambda m: "".join(f"%{b:02X}" for b in m[0].encode("utf-8", "surrogatepass")), name
    )
    if safe in ("", ".", ".."):
        safe = safe.replace(".", "%2E") or "%00"
    if len(safe) > _MAX_STEM:  # a file name is at most 255 bytes
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        safe = f"{safe[:_MAX_STEM - 17]}-{digest}"
    return safe


SMALL_FILE_LIMIT = 1 << 16
"""Bytes a record or a lock's holder may have: a few hundred in practice."""


def read_small_file(path: str | os.PathLike[str], limit: int = SMALL_FILE_LIMIT) -> bytes:
    """A small regular file's bytes, read without trusting what is at `path`: opened without
    following a symlink and without blocking (a FIFO would block `open` and `read` for ever), then
    checked on the open descriptor (no race with a swap after a stat) to be a regular file of at
    most `limit` bytes. Anything else is an OSError whose strerror says why."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if info.st_size > limit:
            raise OSError(
                errno.EFBIG, f"{info.st_size} bytes, more than the {limit} bytes such a file may have", str(path)
            )
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0 and (chunk := os.read(fd, left)):
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:  # it grew after the fstat
        raise OSError(errno.EFBIG, f"more than the {limit} bytes such a file may have", str(path))
    return data


def write_private(path: str | os.PathLike[str], data: bytes) -> None:
    """Write `data` to `path` as a file only we can read (0600), never through a symlink planted in
    its place (O_NOFOLLOW: UnsafeDirectory names it) and never into a FIFO (O_NONBLOCK)."""
    flags = (os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
             | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EMLINK):
            raise UnsafeDirectory(f"{path} is a symbolic link or a special file, not a file of ours",
                                  advice=f"Remove it (rm {path})") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafeDirectory(f"{path} is not a regular file", advice=f"Remove it (rm {path})")
        os.fchmod(fd, 0o600)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
