"""The small toybox utilities scripts lean on: true, false, echo (escapes only with -e), seq,
basename, dirname, which, env, tty, date (+FORMAT), uname and sleep."""

from __future__ import annotations

import time

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal_time
from pytest_mobile_agent.virtual.kernel.procfs import KERNEL_BUILD, KERNEL_RELEASE
from pytest_mobile_agent.virtual.kernel.system import System
from pytest_mobile_agent.virtual.shell.formatting import backslash_escapes


def true(system: System, proc: pm.Process) -> int:
    return 0


def false(system: System, proc: pm.Process) -> int:
    return 1


def echo(system: System, proc: pm.Process) -> int:
    """toybox echo: escapes only with -e (the shell's builtin echo interprets them always)."""
    args = proc.argv[1:]
    newline, escapes = True, False
    while args and len(args[0]) > 1 and args[0][0] == "-" and set(args[0][1:]) <= set("neE"):
        newline = newline and "n" not in args[0]
        escapes = ("e" in args[0]) or (escapes and "E" not in args[0])
        args = args[1:]
    text = " ".join(args)
    stop = False
    if escapes:
        text, stop = backslash_escapes(text)
    proc.stdout.write(text + ("\n" if newline and not stop else ""))
    return 0


def seq(system: System, proc: pm.Process) -> int:
    numbers = [a for a in proc.argv[1:]]
    try:
        values = [int(n) for n in numbers]
    except ValueError:
        proc.stderr.write("seq: Not a number\n")
        return 1
    if len(values) == 1:
        first, step, last = 1, 1, values[0]
    elif len(values) == 2:
        first, step, last = values[0], 1, values[1]
    else:
        first, step, last = values[:3]
    if step == 0:
        proc.stderr.write("seq: increment 0\n")
        return 1
    out = [str(n) for n in range(first, last + (1 if step > 0 else -1), step)]
    proc.stdout.write("".join(n + "\n" for n in out))
    return 0


def basename(system: System, proc: pm.Process) -> int:
    if len(proc.argv) < 2:
        proc.stderr.write("basename: Needs 1 argument\n")
        return 1
    name = proc.argv[1].rstrip("/").rsplit("/", 1)[-1] or "/"
    if len(proc.argv) > 2 and name.endswith(proc.argv[2]) and name != proc.argv[2]:
        name = name[: -len(proc.argv[2])]
    proc.stdout.write(name + "\n")
    return 0


def dirname(system: System, proc: pm.Process) -> int:
    if len(proc.argv) < 2:
        proc.stderr.write("dirname: Needs 1 argument\n")
        return 1
    path = proc.argv[1].rstrip("/") or "/"
    head = path.rsplit("/", 1)[0] if "/" in path else "."
    proc.stdout.write((head or "/") + "\n")
    return 0


def which(system: System, proc: pm.Process) -> int:
    status = 0
    for name in proc.argv[1:]:
        if system.programs.get(name) is not None:
            proc.stdout.write(f"/system/bin/{name}\n")
        else:
            status = 1
    return status


def env(system: System, proc: pm.Process) -> int:
    proc.stdout.write("".join(f"{k}={v}\n" for k, v in sorted(proc.env.items())))
    return 0


def tty(system: System, proc: pm.Process) -> int:
    file = proc.fd(0)
    if file.isatty():
        proc.stdout.write(getattr(file, "path", "/dev/pts/0") + "\n")
        return 0
    if "-s" not in proc.argv:
        proc.stdout.write("not a tty\n")
    return 1


def date(system: System, proc: pm.Process) -> int:
    formats = [a for a in proc.argv[1:] if a.startswith("+")]
    now = time.time()
    layout = formats[0][1:] if formats else "%a %b %e %H:%M:%S %Z %Y"
    text = time.strftime(layout, time.localtime(now))
    proc.stdout.write(text + "\n")
    return 0


def uname(system: System, proc: pm.Process) -> int:
    release = KERNEL_RELEASE
    if "-a" in proc.argv:
        proc.stdout.write(f"Linux localhost {release} {KERNEL_BUILD} x86_64 Toybox\n")
    elif "-r" in proc.argv:
        proc.stdout.write(release + "\n")
    elif "-m" in proc.argv:
        proc.stdout.write("x86_64\n")
    else:
        proc.stdout.write("Linux\n")
    return 0


def sleep(system: System, proc: pm.Process) -> int:
    total = 0.0
    for arg in proc.argv[1:]:
        scale = {"s": 1, "m": 60, "h": 3600, "d": 86400}.get(arg[-1:], 0)
        text = arg[:-1] if scale else arg
        if not is_decimal_time(text):
            proc.stderr.write(f"sleep: Not a number '{arg}'\n")
            return 1
        total += float(text) * (scale or 1)
    if len(proc.argv) < 2:
        proc.stderr.write("sleep: Needs 1 argument\n")
        return 1
    proc.sleep(total)
    return 0
