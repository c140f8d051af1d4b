"""toybox's `ls` over the device's files (toys/posix/ls.c, 0.8.x).

Flags: -a -A -d -l -n -g -o -1 -R -s -i. Off a terminal the output is one name a line (toybox
implies -1 when stdout is not a tty; on a pty this model keeps -1 too, where toybox would use
columns). The long format is toybox's: the mode, the link count right-aligned to the widest,
owner and group left-aligned to the widest names, the size right-aligned, the time as
`%F %H:%M`, the name and ` -> target` for a link. A directory's listing under -l, -s or -n starts
with `total N`, its entries' 512-byte blocks halved (1 KiB units), as toybox prints it; arguments
that are not directories come first, then each directory under a `NAME:` title when more than one
thing was listed. A missing argument prints `ls: NAME: No such file or directory` and the status
is 1.
"""

from __future__ import annotations

import contextlib
import stat as stat_module
import time
from dataclasses import dataclass

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.creds import Cred, cred_of
from pytest_mobile_agent.virtual.kernel.fs import FileSystem, StatResult
from pytest_mobile_agent.virtual.kernel.system import System
from pytest_mobile_agent.virtual.programs.users import user_name

LONG_FLAGS = frozenset("lngo")
TOTAL_FLAGS = frozenset("lngos")


@dataclass(frozen=True)
class Entry:
    path: str  # the device path, to stat and read links
    shown: str  # the name as ls prints it
    info: StatResult | None  # None when it could not be stat'ed


def _entry(fs: FileSystem, path: str, shown: str, cred: Cred, follow: bool) -> Entry:
    try:
        return Entry(path, shown, fs.stat(path, cred, follow=follow))
    except OSError:
        return Entry(path, shown, None)


def _children(fs: FileSystem, path: str, cred: Cred, flags: set[str]) -> list[Entry]:
    names = fs.listdir(path, cred)
    if "a" in flags:
        names = [".", "..", *names]
    elif "A" not in flags:
        names = [name for name in names if not name.startswith(".")]
    base = path.rstrip("/")
    out = []
    for name in names:
        target = base if name == "." else (base.rsplit("/", 1)[0] or "/") if name == ".." else f"{base}/{name}"
        out.append(_entry(fs, target or "/", name, cred, False))
    return out


def _owner(uid: int, flags: set[str]) -> str:
    return str(uid) if "n" in flags else user_name(uid)


def _render(fs: FileSystem, entries: list[Entry], cred: Cred, flags: set[str]) -> list[str]:
    if not LONG_FLAGS & flags:
        return [_short(e, flags) for e in entries]
    known = [e.info for e in entries if e.info is not None]
    links = max((len(str(i.nlink)) for i in known), default=1)
    users = max((len(_owner(i.uid, flags)) for i in known), default=0)
    groups = max((len(_owner(i.gid, flags)) for i in known), default=0)
    sizes = max((len(str(i.size)) for i in known), default=1)
    lines = []
    for e in entries:
        info = e.info
        if info is None:
            lines.append(e.shown)
            continue
        head = _prefix(e, flags)
        line = f"{head}{stat_module.filemode(info.mode)}{info.nlink:>{links + 1}}"
        if "g" not in flags:
            line += f" {_owner(info.uid, flags):<{users}}"
        if "o" not in flags:
            line += f" {_owner(info.gid, flags):<{groups}}"
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.mtime))
        line += f"{info.size:>{sizes + 1}} {when} {e.shown}"
        if stat_module.S_ISLNK(info.mode):
            with contextlib.suppress(OSError):
                line += " -> " + fs.readlink(e.path, cred)
        lines.append(line)
    return lines


def _listing(fs: FileSystem, path: str, title: str | None, cred: Cred, flags: set[str], out: list[str]) -> None:
    entries = _children(fs, path, cred, flags)
    if title is not None:
        if out:
            out.append("")
        out.append(f"{title}:")
    if TOTAL_FLAGS & flags:
        blocks = sum(e.info.blocks for e in entries if e.info is not None)
        out.append(f"total {blocks // 2}")
    out.extend(_render(fs, entries, cred, flags))
    if "R" in flags:
        for e in entries:
            if e.info is not None and e.info.is_dir and e.shown not in (".", ".."):
                shown = f"{title or '.'}/{e.shown}" if title != "/" else f"/{e.shown}"
                with contextlib.suppress(OSError):
                    _listing(fs, e.path, shown, cred, flags, out)


def ls(system: System, proc: pm.Process) -> int:
    fs = system.fs
    flags: set[str] = set()
    targets: list[str] = []
    for arg in proc.argv[1:]:
        if arg.startswith("-") and len(arg) > 1 and arg != "--":
            flags.update(arg[1:])
        elif arg != "--":
            targets.append(arg)
    cred = cred_of(proc)
    status = 0
    files: list[Entry] = []
    dirs: list[tuple[str, str]] = []
    follow_args = not LONG_FLAGS & flags or "L" in flags
    for arg in targets or ["."]:
        path = fs.normalize(arg, proc.cwd)
        try:
            info = fs.stat(path, cred, follow=follow_args or arg.endswith("/"))
        except OSError as exc:
            proc.stderr.write(f"ls: {arg}: {exc.strerror or exc}\n")
            status = 1
            continue
        if info.is_dir and "d" not in flags:
            dirs.append((path, arg))
        else:
            files.append(Entry(path, arg, info))
    if "f" not in flags:  # toybox sorts what it was given too (strcmp order)
        files.sort(key=lambda e: e.shown)
        dirs.sort(key=lambda d: d[1])
    out = _render(fs, files, cred, flags)
    titled = len(targets) > 1 or "R" in flags
    for path, arg in dirs:
        try:
            _listing(fs, path, arg if titled else None, cred, flags, out)
        except OSError as exc:
            proc.stderr.write(f"ls: {arg}: {exc.strerror or exc}\n")
            status = 1
    if out:
        proc.stdout.write("\n".join(out) + "\n")
    return status


def _prefix(e: Entry, flags: set[str]) -> str:
    info = e.info
    head = ""
    if info is not None and "i" in flags:
        head += f"{info.ino} "
    if info is not None and "s" in flags:
        head += f"{info.blocks // 2} "
    return head


def _short(e: Entry, flags: set[str]) -> str:
    return _prefix(e, flags) + e.shown
