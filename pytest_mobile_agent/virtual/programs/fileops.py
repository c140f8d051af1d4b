"""toybox's tools for the entries of the file system and their attributes: rm, mkdir, chmod (octal
or symbolic modes), stat (toybox's default layout, or `-c FORMAT`) and touch. Copying, linking
and the file systems' space are programs/files.py; listing is programs/ls.py.
"""

from __future__ import annotations

import errno
import os
import stat as stat_module
import time

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.creds import Cred, cred_of
from pytest_mobile_agent.virtual.kernel.fs import StatResult
from pytest_mobile_agent.virtual.kernel.system import System
from pytest_mobile_agent.virtual.programs.common import device_path, fail
from pytest_mobile_agent.virtual.programs.users import user_name


def rm(system: System, proc: pm.Process) -> int:
    force = recursive = False
    targets: list[str] = []
    for arg in proc.argv[1:]:
        if arg.startswith("-") and len(arg) > 1 and not targets:
            force = force or "f" in arg
            recursive = recursive or "r" in arg or "R" in arg
        else:
            targets.append(arg)
    if not targets and not force:
        proc.stderr.write("rm: Needs 1 argument\n")
        return 1
    status = 0
    cred = cred_of(proc)
    for arg in targets:
        path = device_path(proc, arg)
        try:
            _remove(system, path, cred, recursive)
        except OSError as exc:
            if force and exc.errno == errno.ENOENT:
                continue
            fail(proc, "rm", arg, exc)
            status = 1
    return status


def _remove(system: System, path: str, cred: Cred, recursive: bool) -> None:
    info = system.fs.stat(path, cred, follow=False)
    if info.is_dir:
        if not recursive:
            raise OSError(errno.EISDIR, os.strerror(errno.EISDIR))
        for name in system.fs.listdir(path, cred):
            _remove(system, path.rstrip("/") + "/" + name, cred, True)
        system.fs.rmdir(path, cred)
    else:
        system.fs.unlink(path, cred)


def mkdir(system: System, proc: pm.Process) -> int:
    parents = False
    mode = 0o777
    targets: list[str] = []
    args = proc.argv[1:]
    while args:
        arg = args.pop(0)
        if arg == "-p":
            parents = True
        elif arg == "-m" and args:
            mode = int(args.pop(0), 8)
        elif arg.startswith("-m") and len(arg) > 2:
            mode = int(arg[2:], 8)
        else:
            targets.append(arg)
    if not targets:
        proc.stderr.write("mkdir: Needs 1 argument\n")
        return 1
    status = 0
    for arg in targets:
        try:
            system.fs.mkdir(device_path(proc, arg), cred_of(proc), mode, parents=parents)
        except OSError as exc:
            proc.stderr.write(f"mkdir: '{arg}': {exc.strerror}\n")
            status = 1
    return status


def chmod(system: System, proc: pm.Process) -> int:
    args = [a for a in proc.argv[1:] if a not in ("-R", "-f")]
    if len(args) < 2:
        proc.stderr.write("chmod: Needs 2 arguments\n")
        return 1
    mode_text, targets = args[0], args[1:]
    status = 0
    cred = cred_of(proc)
    for arg in targets:
        path = device_path(proc, arg)
        try:
            current = system.fs.stat(path, cred).mode & 0o7777
            system.fs.chmod(path, _parse_mode(mode_text, current), cred)
        except ValueError:
            proc.stderr.write(f"chmod: bad mode '{mode_text}'\n")
            return 1
        except OSError as exc:
            fail(proc, "chmod", arg, exc)
            status = 1
    return status


def stat(system: System, proc: pm.Process) -> int:
    args = proc.argv[1:]
    fmt: str | None = None
    follow = False
    targets: list[str] = []
    while args:
        arg = args.pop(0)
        if arg == "-c" and args:
            fmt = args.pop(0)
        elif arg.startswith("--format="):
            fmt = arg.split("=", 1)[1]
        elif arg == "-L":
            follow = True
        else:
            targets.append(arg)
    if not targets:
        proc.stderr.write("stat: Needs 1 argument\n")
        return 1
    status = 0
    cred = cred_of(proc)
    for arg in targets:
        try:
            info = system.fs.stat(device_path(proc, arg), cred, follow=follow)
        except OSError as exc:
            fail(proc, "stat", f"'{arg}'", exc)
            status = 1
            continue
        proc.stdout.write((_stat_format(fmt, arg, info) if fmt is not None else _stat_default(arg, info)) + "\n")
    return status


def touch(system: System, proc: pm.Process) -> int:
    status = 0
    for arg in [a for a in proc.argv[1:] if not a.startswith("-")]:
        path = device_path(proc, arg)
        cred = cred_of(proc)
        try:
            if system.fs.exists(path, cred):
                system.fs.set_mtime(path, time.time(), cred)
            else:
                file = system.fs.open(path, cred, read=False, write=True, create=True)
                with proc.kernel.lock:
                    file.release()
        except OSError as exc:
            fail(proc, "touch", f"'{arg}'", exc)
            status = 1
    return status


def _parse_mode(text: str, current: int) -> int:
    if text and all(c in "01234567" for c in text):
        return int(text, 8)
    mode = current
    for clause in text.split(","):
        who = ""
        i = 0
        while i < len(clause) and clause[i] in "ugoa":
            who += clause[i]
            i += 1
        if i >= len(clause) or clause[i] not in "+-=":
            raise ValueError(text)
        op, perms = clause[i], clause[i + 1 :]
        if any(c not in "rwxst" for c in perms):
            raise ValueError(text)
        who = who or "a"
        bits = 0
        for c in perms:
            for w in who:
                shift = {"u": 6, "g": 3, "o": 0, "a": -1}[w]
                shifts = (6, 3, 0) if shift < 0 else (shift,)
                for s in shifts:
                    bits |= {"r": 4, "w": 2, "x": 1}.get(c, 0) << s
        mask = 0
        for w in who:
            mask |= {"u": 0o700, "g": 0o070, "o": 0o007, "a": 0o777}[w]
        if op == "+":
            mode |= bits
        elif op == "-":
            mode &= ~bits
        else:
            mode = (mode & ~mask) | bits
    return mode


def _file_type(mode: int) -> str:
    if stat_module.S_ISDIR(mode):
        return "directory"
    if stat_module.S_ISLNK(mode):
        return "symbolic link"
    if stat_module.S_ISCHR(mode):
        return "character special file"
    return "regular file" if mode & 0o777777 and stat_module.S_ISREG(mode) else "regular empty file"


def _stat_format(fmt: str, name: str, info: StatResult) -> str:
    out: list[str] = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c != "%" or i + 1 >= len(fmt):
            out.append(c)
            i += 1
            continue
        code = fmt[i + 1]
        i += 2
        out.append({
            "a": f"{info.mode & 0o7777:o}",
            "A": stat_module.filemode(info.mode),
            "s": str(info.size),
            "n": name,
            "N": f"'{name}'",
            "u": str(info.uid),
            "U": user_name(info.uid),
            "g": str(info.gid),
            "G": user_name(info.gid),
            "Y": str(info.mtime),
            "X": str(info.mtime),
            "Z": str(info.mtime),
            "i": str(info.ino),
            "h": str(info.nlink),
            "f": f"{info.mode:x}",
            "F": _file_type(info.mode) if info.size or not info.is_file else "regular empty file",
            "%": "%",
        }.get(code, "?"))
    return "".join(out)


def _stat_default(name: str, info: StatResult) -> str:
    when = time.strftime("%Y-%m-%d %H:%M:%S.000000000 +0000", time.gmtime(info.mtime))
    kind = _file_type(info.mode) if info.size or not info.is_file else "regular empty file"
    return (
        f"  File: {name}\n"
        f"  Size: {info.size}\t Blocks: {(info.size + 511) // 512}\t IO Blocks: 4096\t{kind}\n"
        f"Device: fd05h/64773d\t Inode: {info.ino}\t Links: {info.nlink}\n"
        f"Access: ({info.mode & 0o7777:04o}/{stat_module.filemode(info.mode)})\t"
        f"Uid: ({info.uid:5}/{user_name(info.uid):>8})\tGid: ({info.gid:5}/{user_name(info.gid):>8})\n"
        f"Access: {when}\nModify: {when}\nChange: {when}"
    )
