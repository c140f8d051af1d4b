"""The shell's builtins, run in the shell's own process as mksh's are: `echo`, `printf`, `read`,
`trap`, `exit`, `kill`, `cd`, `pwd`, `export`, `unset`, `set`, `shift`, `wait`, `test`/`[`,
`command -v`, `umask`, `true`, `false`, `:`, `break`, `continue`, `return` (`exec` is the
interpreter's: it replaces the process)."""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Callable

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.creds import cred_of
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.shell.context import ShellContext
from pytest_mobile_agent.virtual.shell.formatting import backslash_escapes, printf_once
from pytest_mobile_agent.virtual.shell.state import ExitShell, FunctionReturn, LoopControl


def b_echo(sh: ShellContext, argv: list[str]) -> int:
    args = argv[1:]
    newline = True
    interpret = True
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for flag in args[0][1:]:
            if flag == "n":
                newline = False
            elif flag == "e":
                interpret = True
            else:
                interpret = False
        args = args[1:]
    text = " ".join(args)
    stop = False
    if interpret:
        text, stop = backslash_escapes(text)
    sh.out(text + ("\n" if newline and not stop else ""))
    return 0


def b_printf(sh: ShellContext, argv: list[str]) -> int:
    if len(argv) < 2:
        sh.err("printf: Needs 1 argument\n")
        return 1
    fmt, args = argv[1], list(argv[2:])
    chunks: list[str] = []
    failed = False
    while True:
        text, args, consumed, error = printf_once(fmt, args)
        chunks.append(text)
        failed = failed or error
        if not args or not consumed:
            break
    sh.out("".join(chunks))
    return 1 if failed else 0


def b_read(sh: ShellContext, argv: list[str]) -> int:
    args = argv[1:]
    raw = False
    while args and args[0].startswith("-") and len(args[0]) > 1:
        if args[0] == "-r":
            raw = True
        args = args[1:]
    names = args or ["REPLY"]
    line = sh.proc.stdin.readline()
    eof = not line.endswith(b"\n")
    text = line.decode(errors="replace").removesuffix("\n")
    if not raw:
        text = re.sub(r"\\(.)", r"\1", text.removesuffix("\\"))
    if names == ["REPLY"]:
        sh.state.vars["REPLY"] = text
    else:
        ifs = sh.state.vars.get("IFS", " \t\n")
        white = "".join(c for c in ifs if c in " \t\n")
        stripped = text.strip(white)
        separators = "[" + re.escape(ifs) + "]" + ("+" if ifs == white else "")
        pieces = re.split(separators, stripped, maxsplit=len(names) - 1) if ifs else [text]
        pieces = [p.strip(white) for p in pieces[:-1]] + pieces[-1:] if pieces else pieces
        for index, name in enumerate(names):
            sh.state.vars[name] = pieces[index] if index < len(pieces) else ""
    return 1 if eof else 0


def b_trap(sh: ShellContext, argv: list[str]) -> int:
    args = argv[1:]
    proc = sh.proc
    if not args:
        for sig, action in sorted(sh.state.traps.items()):
            name = "EXIT" if sig == 0 else pm.SIGNAL_NAMES.get(sig, str(sig))
            sh.out(f"trap -- {_quote(action)} {name}\n")
        for sig in sorted(proc.signals.ignored):
            sh.out(f"trap -- '' {pm.SIGNAL_NAMES.get(sig, str(sig))}\n")
        return 0
    if len(args) == 1 and parse_trap_signal(args[0]) is not None:
        action, names = "-", args
    else:
        action, names = args[0], args[1:]
    status = 0
    for name in names:
        parsed = parse_trap_signal(name)
        if parsed is None:
            sh.err(f"{sh.state.name}: trap: bad signal '{name}'\n")
            status = 1
            continue
        sig = parsed
        if action == "-":
            sh.state.traps.pop(sig, None)
            if sig:
                proc.signals.default(sig)
        elif action == "":
            sh.state.traps.pop(sig, None)
            if sig:
                proc.signals.ignore(sig)
        else:
            sh.state.traps[sig] = action
            if sig:
                proc.signals.catch(sig)
    return status


def parse_trap_signal(name: str) -> int | None:
    if name.upper() in ("EXIT", "0"):
        return 0
    sig = pm.parse_signal(name)
    return sig if sig else None


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def b_exit(sh: ShellContext, argv: list[str]) -> int:
    status = sh.state.last_status
    if len(argv) > 1:
        try:
            status = int(argv[1]) & 0xFF
        except ValueError:
            sh.err(f"{sh.state.name}: exit: {argv[1]}: bad number\n")
            status = 1
    raise ExitShell(status)


def b_true(sh: ShellContext, argv: list[str]) -> int:
    return 0


def b_false(sh: ShellContext, argv: list[str]) -> int:
    return 1


def b_cd(sh: ShellContext, argv: list[str]) -> int:
    target = argv[1] if len(argv) > 1 else sh.state.vars.get("HOME", "/")
    fs = sh.system.fs
    path = fs.normalize(target, sh.proc.cwd)
    try:
        info = fs.stat(path, cred_of(sh.proc))
        if not info.is_dir:
            raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
    except OSError as exc:
        sh.err(f"{sh.state.name}: cd: {target}: {exc.strerror}\n")
        return 2
    sh.proc.cwd = path
    sh.state.vars["PWD"] = path
    return 0


def b_pwd(sh: ShellContext, argv: list[str]) -> int:
    sh.out(sh.proc.cwd + "\n")
    return 0


def b_export(sh: ShellContext, argv: list[str]) -> int:
    for arg in argv[1:]:
        if arg == "-p":
            continue
        name, eq, value = arg.partition("=")
        if eq:
            sh.state.vars[name] = value
        sh.state.exported.add(name)
    if len(argv) == 1 or argv[1:] == ["-p"]:
        for name in sorted(sh.state.exported):
            if name in sh.state.vars:
                sh.out(f"export {name}={_quote(sh.state.vars[name])}\n")
    return 0


def b_unset(sh: ShellContext, argv: list[str]) -> int:
    for name in argv[1:]:
        if name in ("-v", "-f"):
            continue
        sh.state.vars.pop(name, None)
        sh.state.exported.discard(name)
    return 0


def b_shift(sh: ShellContext, argv: list[str]) -> int:
    count = int(argv[1]) if len(argv) > 1 and is_decimal(argv[1]) else 1
    if count > len(sh.state.positional):
        return 1
    sh.state.positional = sh.state.positional[count:]
    return 0


def b_set(sh: ShellContext, argv: list[str]) -> int:
    """`set [--] ARGS` sets the positional parameters; `set` alone lists the variables (mksh's
    `name=value`, quoted when needed). The shell options (-e, -u, -x...) are not modelled: refused
    with a message rather than ignored."""
    args = argv[1:]
    if not args:
        sh.out("".join(f"{name}={_quote(value) if value and not value.isalnum() else value}\n"
                       for name, value in sorted(sh.state.vars.items())))
        return 0
    if args[0] == "--":
        sh.state.positional = args[1:]
        return 0
    if args[0][:1] in ("-", "+") and len(args[0]) > 1:
        sh.err(f"{sh.state.name}: set: {args[0]}: the shell options are not modelled by the virtual device\n")
        return 1
    sh.state.positional = args
    return 0


def b_wait(sh: ShellContext, argv: list[str]) -> int:
    targets = sh.state.children
    if len(argv) > 1:
        wanted = {int(a) for a in argv[1:] if is_decimal(a)}
        targets = [c for c in targets if c.pid in wanted]
        if not targets:
            return 127
    status = 0
    for child in list(targets):
        status = sh.wait_child(child)
    return status


def b_kill(sh: ShellContext, argv: list[str]) -> int:
    args = argv[1:]
    sig = pm.SIGTERM
    if args and args[0] == "-l":
        sh.out(" ".join(pm.SIGNAL_NAMES[n] for n in sorted(pm.SIGNAL_NAMES)) + "\n")
        return 0
    if args and args[0] == "-s" and len(args) > 1:
        parsed = pm.parse_signal(args[1])
        if parsed is None:
            sh.err(f"{sh.state.name}: kill: bad signal '{args[1]}'\n")
            return 1
        sig, args = parsed, args[2:]
    elif args and args[0].startswith("-") and len(args[0]) > 1 and args[0] != "--":
        parsed = pm.parse_signal(args[0][1:])
        if parsed is None:
            sh.err(f"{sh.state.name}: kill: bad signal '{args[0][1:]}'\n")
            return 1
        sig, args = parsed, args[1:]
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        sh.err(f"{sh.state.name}: kill: usage: kill [-s signame | -signum | -signame] {{job | pid | pgrp}} ...\n")
        return 1
    status = 0
    for target in args:
        try:
            pid = int(target)
        except ValueError:
            sh.err(f"{sh.state.name}: kill: {target}: arguments must be jobs or process IDs\n")
            status = 1
            continue
        try:
            if pid < 0:
                sh.system.processes.kill_group(-pid, sig)
            else:
                sh.system.processes.kill(pid, sig, sh.proc.uid)
        except OSError as exc:
            sh.err(f"{sh.state.name}: kill: {target}: {exc.strerror}\n")
            status = 1
    if sh.proc.dead:
        sh.proc.checkpoint()
    return status


def b_test(sh: ShellContext, argv: list[str]) -> int:
    args = argv[1:]
    if argv[0] == "[":
        if not args or args[-1] != "]":
            sh.err(f"{sh.state.name}: [: missing ]\n")
            return 2
        args = args[:-1]
    try:
        return 0 if _test(sh, args) else 1
    except ValueError as exc:
        sh.err(f"{sh.state.name}: test: {exc}\n")
        return 2


def _test(sh: ShellContext, args: list[str]) -> bool:
    if not args:
        return False
    if args[0] == "!":
        return not _test(sh, args[1:])
    if len(args) == 1:
        return args[0] != ""
    fs = sh.system.fs
    cred = cred_of(sh.proc)
    if len(args) == 2:
        op, operand = args
        if op == "-z":
            return operand == ""
        if op == "-n":
            return operand != ""
        path = fs.normalize(operand, sh.proc.cwd)
        try:
            info = fs.stat(path, cred)
        except OSError:
            return False
        checks = {"-e": True, "-f": info.is_file, "-d": info.is_dir, "-s": info.size > 0,
                  "-r": True, "-w": True, "-x": bool(info.mode & 0o111)}
        if op not in checks:
            raise ValueError(f"{op}: unknown operand")
        return checks[op]
    if len(args) == 3:
        left, op, right = args
        if op in ("=", "=="):
            return left == right
        if op == "!=":
            return left != right
        numeric = {"-eq": int.__eq__, "-ne": int.__ne__, "-lt": int.__lt__, "-gt": int.__gt__,
                   "-le": int.__le__, "-ge": int.__ge__}
        if op in numeric:
            try:
                return bool(numeric[op](int(left), int(right)))
            except ValueError:
                raise ValueError(f"{left if not is_decimal(left.lstrip('-')) else right}: bad number") from None
    raise ValueError("syntax error")


def b_command(sh: ShellContext, argv: list[str]) -> int:
    args = argv[1:]
    if args and args[0] in ("-v", "-V"):
        status = 1
        for name in args[1:]:
            if name in BUILTINS or name == "exec":
                sh.out(name + "\n")
                status = 0
            elif sh.system.programs.get(name) is not None:
                sh.out(f"/system/bin/{name}\n")
                status = 0
        return status
    return 0


def b_umask(sh: ShellContext, argv: list[str]) -> int:
    sh.out("0000\n")
    return 0


def b_return(sh: ShellContext, argv: list[str]) -> int:
    status = sh.state.last_status
    if len(argv) > 1:
        try:
            status = int(argv[1]) & 0xFF
        except ValueError:
            sh.err(f"{sh.state.name}: return: {argv[1]}: bad number\n")
            status = 1
    raise FunctionReturn(status)


def b_break(sh: ShellContext, argv: list[str]) -> int:
    levels = int(argv[1]) if len(argv) > 1 and is_decimal(argv[1]) and int(argv[1]) > 0 else 1
    if sh.loop_depth == 0:
        return 0
    raise LoopControl("break" if argv[0] == "break" else "continue", min(levels, sh.loop_depth))


Builtin = Callable[[ShellContext, list[str]], int]


BUILTINS: dict[str, Builtin] = {
    "echo": b_echo,
    "printf": b_printf,
    "read": b_read,
    "trap": b_trap,
    "exit": b_exit,
    "true": b_true,
    "false": b_false,
    ":": b_true,
    "cd": b_cd,
    "pwd": b_pwd,
    "export": b_export,
    "unset": b_unset,
    "set": b_set,
    "shift": b_shift,
    "wait": b_wait,
    "kill": b_kill,
    "test": b_test,
    "[": b_test,
    "command": b_command,
    "umask": b_umask,
    "break": b_break,
    "continue": b_break,
    "return": b_return,
}
