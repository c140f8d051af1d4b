"""Finding the program for a command name: a program of /system/bin (with or without its
directory), or a file named by its path that is an executable shell script; otherwise the shell's
error line (`inaccessible or not found`, 127; `can't execute`, 126)."""

from __future__ import annotations

import posixpath

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.binaries import Program
from pytest_mobile_agent.virtual.kernel.creds import Cred, cred_of
from pytest_mobile_agent.virtual.kernel.fs import StatResult
from pytest_mobile_agent.virtual.kernel.system import System
from pytest_mobile_agent.virtual.shell.state import SHELL_PATH


def _may_execute(info: StatResult, cred: Cred) -> bool:
    mode = info.mode
    if cred.root:
        return bool(mode & 0o111)
    if info.uid == cred.uid:
        return bool(mode & 0o100)
    if info.gid in cred.groups:
        return bool(mode & 0o010)
    return bool(mode & 0o001)


def lookup(system: System, proc: pm.Process, shell_name: str, name: str) -> Program | str:
    """The program for a command name, or the shell's error line (see `not_found_status`)."""
    programs = system.programs
    if "/" in name:
        path = posixpath.normpath(posixpath.join(proc.cwd, name))
        base = posixpath.basename(path)
        directory = posixpath.dirname(path)
        program = programs.get(base)
        if directory in programs.search_path and program is not None:
            return program
        return _script(system, proc, shell_name, name, path)
    program = programs.get(name)
    if program is None:
        return f"{shell_name}: {name}: inaccessible or not found\n"
    return program


def _script(system: System, proc: pm.Process, shell_name: str, name: str, path: str) -> Program | str:
    """A file named by path: a shell script (with or without `#!/system/bin/sh`) runs if it
    has an execute bit the caller may use; anything else cannot be executed here."""
    fs = system.fs
    cred = cred_of(proc)
    try:
        info = fs.stat(path, cred)
    except OSError:
        return f"{shell_name}: {name}: inaccessible or not found\n"
    if info.is_dir or not _may_execute(info, cred):
        return f"{shell_name}: {name}: can't execute: Permission denied\n"
    try:
        head = fs.read_file(path, cred)[:128]
    except OSError as exc:
        return f"{shell_name}: {name}: can't execute: {exc.strerror}\n"
    if head.startswith(b"\x7fELF"):
        return f"{shell_name}: {name}: can't execute: Exec format error\n"
    if head.startswith(b"#!"):
        interpreter = head[2:].split(b"\n", 1)[0].strip().split(b" ", 1)[0].decode(errors="replace")
        if posixpath.basename(interpreter) not in ("sh", "mksh"):
            return f"{shell_name}: {name}: inaccessible or not found\n"
    shell = system.programs.get("sh")
    assert shell is not None

    def run_script(script_proc: pm.Process) -> int:
        script_proc.exec_image([SHELL_PATH, name, *script_proc.argv[1:]], script_proc.env)
        return shell(script_proc)

    return run_script


def not_found_status(message: str) -> int:
    """127 for a command that is not there, 126 for one that cannot be executed."""
    return 126 if ": can't execute: " in message else 127
