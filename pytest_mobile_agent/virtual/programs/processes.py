"""toybox's process tools over the device's process table: id, whoami, kill (the shell's own kill),
pidof, pgrep (-f -l), nohup (SIGHUP ignored, nohup.out for a terminal), setsid (a new session
without a terminal), timeout [-s SIG] [-k S] S CMD (124 when it ran out), and AOSP's su: `su [WHO
[COMMAND...]]`, WHO a uid or name (`0`, `root`, `2000,2000`), the command (default /system/bin/sh)
exec'd in the same process with the new uid, PATH reset, USER and LOGNAME set; "su: invalid
uid/gid 'X'", "su: failed to exec X: No such file or directory", and "su: not allowed" for callers
other than root and the shell user. ps is programs/ps.py.
"""

from __future__ import annotations

import re
import time

from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.binaries import SEARCH_PATH
from pytest_mobile_agent.virtual.kernel.creds import cred_of
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.system import System
from pytest_mobile_agent.virtual.programs.common import device_path, fail
from pytest_mobile_agent.virtual.programs.users import SHELL_GROUP_ORDER, user_name
from pytest_mobile_agent.virtual.shell.builtins import b_kill
from pytest_mobile_agent.virtual.shell.context import ShellContext
from pytest_mobile_agent.virtual.shell.state import ShellState


def id_(system: System, proc: pm.Process) -> int:
    uid = proc.uid
    if "-u" in proc.argv:
        proc.stdout.write(f"{uid}\n")
        return 0
    if "-g" in proc.argv:
        proc.stdout.write(f"{proc.gid}\n")
        return 0
    if "-un" in proc.argv or ("-u" in proc.argv and "-n" in proc.argv):
        proc.stdout.write(user_name(uid) + "\n")
        return 0
    groups = (0,) if uid == 0 else SHELL_GROUP_ORDER if uid == 2000 else (uid,)
    listed = ",".join(f"{g}({user_name(g)})" for g in groups)
    context = "u:r:su:s0" if uid == 0 else "u:r:shell:s0"
    proc.stdout.write(f"uid={uid}({user_name(uid)}) gid={proc.gid}({user_name(proc.gid)}) groups={listed} "
                      f"context={context}\n")
    return 0


def whoami(system: System, proc: pm.Process) -> int:
    proc.stdout.write(user_name(proc.uid) + "\n")
    return 0


def kill(system: System, proc: pm.Process) -> int:
    """The shell's kill, as a program of its own."""
    return b_kill(ShellContext(system, proc, ShellState(name="kill", shell_pid=proc.pid)), proc.argv)


def pidof(system: System, proc: pm.Process) -> int:
    names = [a for a in proc.argv[1:] if not a.startswith("-")]
    found = [str(p.pid) for p in reversed(system.processes.processes())
             if p.args_line().split(" ", 1)[0] in names or p.args_line().split(" ", 1)[0].rsplit("/", 1)[-1] in names]
    if found:
        proc.stdout.write(" ".join(found) + "\n")
    return 0 if found else 1


def pgrep(system: System, proc: pm.Process) -> int:
    args = proc.argv[1:]
    full = "-f" in args
    listing = "-l" in args
    patterns = [a for a in args if not a.startswith("-")]
    if not patterns:
        proc.stderr.write("pgrep: Needs 1 argument\n")
        return 2
    try:
        regex = re.compile(patterns[0])
    except re.error:
        proc.stderr.write(f"pgrep: bad regex '{patterns[0]}'\n")
        return 2
    lines = []
    for entry in system.processes.processes():
        if entry.pid == proc.pid:
            continue
        subject = entry.args_line() if full else entry.comm
        if regex.search(subject):
            lines.append(f"{entry.pid} {entry.comm}" if listing else str(entry.pid))
    proc.stdout.write("".join(line + "\n" for line in lines))
    return 0 if lines else 1


def _run_command(system: System, proc: pm.Process, argv: list[str], tool: str) -> int:
    """exec argv in this process (what nohup, setsid and su do after their setup)."""
    program = system.programs.get(argv[0].rsplit("/", 1)[-1]) if argv else None
    if program is None:
        proc.stderr.write(f"{tool}: exec {argv[0] if argv else ''}: No such file or directory\n" if argv
                          else f"{tool}: Needs 1 argument\n")
        return 127 if argv else 1
    proc.exec_image(argv)
    return program(proc)


def nohup(system: System, proc: pm.Process) -> int:
    """toybox nohup: SIGHUP ignored; a terminal stdout goes to nohup.out (appended)."""
    proc.signals.ignore(pm.SIGHUP)
    if proc.stdout.isatty():
        try:
            file = system.fs.open(device_path(proc, "nohup.out"), cred_of(proc), read=False, write=True, create=True,
                                  append=True, mode=0o600)
        except OSError as exc:
            fail(proc, "nohup", "nohup.out", exc)
            return 125
        proc.set_fd(1, file)
    return _run_command(system, proc, proc.argv[1:], "nohup")


def setsid(system: System, proc: pm.Process) -> int:
    """A new session and process group, no controlling terminal, then the command."""
    with proc.kernel.lock:
        proc.sid = proc.pgid = proc.pid
        proc.tty = None
    args = proc.argv[1:]
    while args and args[0] in ("-c", "-d", "-w"):
        args = args[1:]
    return _run_command(system, proc, args, "setsid")


def timeout(system: System, proc: pm.Process) -> int:
    """toybox timeout [-s SIG] [-k KILL] SECONDS COMMAND...: 124 when the time ran out."""
    args = proc.argv[1:]
    sig, kill_after = pm.SIGTERM, 0.0
    while args and args[0].startswith("-") and len(args) > 1:
        option = args.pop(0)
        if option == "-s":
            parsed = pm.parse_signal(args.pop(0))
            if parsed is None:
                proc.stderr.write("timeout: bad signal\n")
                return 125
            sig = parsed
        elif option == "-k":
            kill_after = float(args.pop(0))
    if len(args) < 2:
        proc.stderr.write("timeout: Needs 2 arguments\n")
        return 125
    try:
        limit = float(args[0])
    except ValueError:
        proc.stderr.write(f"timeout: Not a number '{args[0]}'\n")
        return 125
    program = system.programs.get(args[1].rsplit("/", 1)[-1])
    if program is None:
        proc.stderr.write(f"timeout: exec {args[1]}: No such file or directory\n")
        return 127
    child = system.processes.fork(proc, argv=args[1:])
    child.exec_image(args[1:])
    with proc.kernel.lock:
        child.start(program)
        status = proc.wait_for(child, time.monotonic() + limit)
    if status is not None:
        return status
    child.deliver(sig)
    if kill_after and proc.wait_for(child, time.monotonic() + kill_after) is None:
        child.deliver(pm.SIGKILL)
    proc.wait_for(child)
    return 124


def su(framework: Framework, proc: pm.Process) -> int:
    """AOSP's su: `su [WHO [COMMAND...]]`, WHO a uid or name (with `,gid`), root by default;
    the command is exec'd in the same process with PATH reset and USER/LOGNAME set."""
    if proc.uid not in (0, 2000):
        proc.stderr.write("su: not allowed\n")
        return 1
    args = proc.argv[1:]
    if args and args[0] in ("-h", "--help"):
        proc.stderr.write("usage: su [WHO [COMMAND...]]\n\n"
                          "Switch to WHO (default 'root') and run the given COMMAND (default sh).\n\n"
                          "WHO is a comma-separated list of user, group, and supplementary groups\nin that order.\n\n")
        return 0
    uid = gid = 0
    if args:
        who = args.pop(0).split(",")
        ids: list[int] = []
        for token in who:
            named = {"root": 0, "shell": 2000, "system": 1000}
            if token in named:
                ids.append(named[token])
            elif is_decimal(token):
                ids.append(int(token))
            else:
                proc.stderr.write(f"su: invalid uid/gid '{token}'\n")
                return 1
        uid = ids[0]
        gid = ids[1] if len(ids) > 1 else uid
    if not args:
        args = ["/system/bin/sh"]
    program = framework.system.programs.get(args[0].rsplit("/", 1)[-1])
    if program is None:
        proc.stderr.write(f"su: failed to exec {args[0]}: No such file or directory\n")
        return 1
    env = dict(proc.env)
    env["PATH"] = ":".join(SEARCH_PATH)
    env.pop("IFS", None)
    user = {0: "root", 2000: "shell", 1000: "system"}.get(uid)
    if user is not None:
        env["USER"] = env["LOGNAME"] = user
    proc.uid, proc.gid = uid, gid
    proc.exec_image(args, env)
    return program(proc)
