"""The toybox commands of the device written against its model: cat, sleep, tty, id, whoami, rm,
mkdir, chmod, stat, touch, env, kill, true, false, echo, uname, grep (-v -i -F -q -c -e), head
(-n -c -q -v, reading no further than it needs), wc (toybox's columns), pidof, pgrep (-f -l),
date (+FORMAT), nohup (SIGHUP ignored, nohup.out for a terminal), setsid (a new session without a
terminal), timeout [-s SIG] [-k S] S CMD (124 when it ran out), which, basename, dirname, seq, tr
(programs/tr.py), ls (programs/ls.py), ps (programs/ps.py), and `toybox` itself (the multiplexer,
`--version`, the applet list). The data tools run the real toybox (programs/hosttools.py), the
file and process tools are programs/files.py and programs/commands.py.

Messages follow toybox (`cat: /x: No such file or directory`, `mkdir: '/x': File exists`, status
1).
"""

from __future__ import annotations

import errno
import os
import stat as stat_module
import time
from typing import TYPE_CHECKING

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.binaries import TOYBOX_APPLETS
from pytest_mobile_agent.virtual.kernel.creds import Cred, cred_of
from pytest_mobile_agent.virtual.kernel.fs import StatResult
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal, is_decimal_time
from pytest_mobile_agent.virtual.kernel.streams import OpenFile
from pytest_mobile_agent.virtual.programs.ls import ls_program
from pytest_mobile_agent.virtual.programs.ps import ps_program
from pytest_mobile_agent.virtual.programs.tr import tr_program
from pytest_mobile_agent.virtual.shell.builtins import b_kill
from pytest_mobile_agent.virtual.shell.context import ShellContext
from pytest_mobile_agent.virtual.shell.formatting import backslash_escapes
from pytest_mobile_agent.virtual.shell.state import ShellState

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.device import VirtualDevice

TOYBOX_VERSION = "0.8.11-android"  # what `toybox --version` prints on the emulator's image
USERS = {0: "root", 1000: "system", 2000: "shell", 9997: "everybody", 1004: "input", 1007: "log",
         1011: "adb", 1015: "sdcard_rw", 1028: "sdcard_r", 3001: "net_bt_admin", 3002: "net_bt",
         3003: "inet", 3006: "net_bw_stats", 3009: "readproc", 3011: "uhid", 1041: "audioserver"}
SHELL_GROUP_ORDER = (2000, 1004, 1007, 1011, 1015, 1028, 3001, 3002, 3003, 3006, 3009, 3011, 9997)


def _name(uid: int) -> str:
    return USERS.get(uid, f"u0_a{uid - 10000}" if uid >= 10000 else str(uid))


def _path(proc: pm.Process, device: VirtualDevice, arg: str) -> str:
    return device.fs.normalize(arg, proc.cwd)


def _fail(proc: pm.Process, tool: str, what: str, exc: OSError) -> None:
    proc.stderr.write(f"{tool}: {what}: {exc.strerror or exc}\n")


def install(device: VirtualDevice) -> None:
    fs = device.fs
    reg = device.programs.register

    def cat(proc: pm.Process) -> int:
        args = [a for a in proc.argv[1:] if a != "-u"] or ["-"]
        status = 0
        for arg in args:
            if arg == "-":
                while True:
                    data = proc.stdin.read()
                    if not data:
                        break
                    proc.stdout.write(data)
                continue
            try:
                file = fs.open(_path(proc, device, arg), cred_of(proc))
            except OSError as exc:
                _fail(proc, "cat", arg, exc)
                status = 1
                continue
            try:
                while True:
                    data = file.read(65536, proc, None) or b""
                    if not data:
                        break
                    proc.stdout.write(data)
            finally:
                with proc.kernel.lock:
                    file.release()
        return status

    def sleep(proc: pm.Process) -> int:
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

    def tty(proc: pm.Process) -> int:
        file = proc.fd(0)
        if file.isatty():
            proc.stdout.write(getattr(file, "path", "/dev/pts/0") + "\n")
            return 0
        if "-s" not in proc.argv:
            proc.stdout.write("not a tty\n")
        return 1

    def id_(proc: pm.Process) -> int:
        uid = proc.uid
        if "-u" in proc.argv:
            proc.stdout.write(f"{uid}\n")
            return 0
        if "-g" in proc.argv:
            proc.stdout.write(f"{proc.gid}\n")
            return 0
        if "-un" in proc.argv or ("-u" in proc.argv and "-n" in proc.argv):
            proc.stdout.write(_name(uid) + "\n")
            return 0
        groups = (0,) if uid == 0 else SHELL_GROUP_ORDER if uid == 2000 else (uid,)
        listed = ",".join(f"{g}({_name(g)})" for g in groups)
        context = "u:r:su:s0" if uid == 0 else "u:r:shell:s0"
        proc.stdout.write(f"uid={uid}({_name(uid)}) gid={proc.gid}({_name(proc.gid)}) groups={listed} context={context}\n")
        return 0

    def whoami(proc: pm.Process) -> int:
        proc.stdout.write(_name(proc.uid) + "\n")
        return 0

    def rm(proc: pm.Process) -> int:
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
            path = _path(proc, device, arg)
            try:
                _remove(path, cred, recursive)
            except OSError as exc:
                if force and exc.errno == errno.ENOENT:
                    continue
                _fail(proc, "rm", arg, exc)
                status = 1
        return status

    def _remove(path: str, cred: Cred, recursive: bool) -> None:
        info = fs.stat(path, cred, follow=False)
        if info.is_dir:
            if not recursive:
                raise OSError(errno.EISDIR, os.strerror(errno.EISDIR))
            for name in fs.listdir(path, cred):
                _remove(path.rstrip("/") + "/" + name, cred, True)
            fs.rmdir(path, cred)
        else:
            fs.unlink(path, cred)

    def mkdir(proc: pm.Process) -> int:
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
                fs.mkdir(_path(proc, device, arg), cred_of(proc), mode, parents=parents)
            except OSError as exc:
                proc.stderr.write(f"mkdir: '{arg}': {exc.strerror}\n")
                status = 1
        return status

    def chmod(proc: pm.Process) -> int:
        args = [a for a in proc.argv[1:] if a not in ("-R", "-f")]
        if len(args) < 2:
            proc.stderr.write("chmod: Needs 2 arguments\n")
            return 1
        mode_text, targets = args[0], args[1:]
        status = 0
        cred = cred_of(proc)
        for arg in targets:
            path = _path(proc, device, arg)
            try:
                current = fs.stat(path, cred).mode & 0o7777
                fs.chmod(path, _parse_mode(mode_text, current), cred)
            except ValueError:
                proc.stderr.write(f"chmod: bad mode '{mode_text}'\n")
                return 1
            except OSError as exc:
                _fail(proc, "chmod", arg, exc)
                status = 1
        return status

    def stat(proc: pm.Process) -> int:
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
                info = fs.stat(_path(proc, device, arg), cred, follow=follow)
            except OSError as exc:
                _fail(proc, "stat", f"'{arg}'", exc)
                status = 1
                continue
            proc.stdout.write((_stat_format(fmt, arg, info) if fmt is not None else _stat_default(arg, info)) + "\n")
        return status

    def touch(proc: pm.Process) -> int:
        status = 0
        for arg in [a for a in proc.argv[1:] if not a.startswith("-")]:
            path = _path(proc, device, arg)
            cred = cred_of(proc)
            try:
                if fs.exists(path, cred):
                    fs.set_mtime(path, time.time(), cred)
                else:
                    file = fs.open(path, cred, read=False, write=True, create=True)
                    with proc.kernel.lock:
                        file.release()
            except OSError as exc:
                _fail(proc, "touch", f"'{arg}'", exc)
                status = 1
        return status

    def env(proc: pm.Process) -> int:
        proc.stdout.write("".join(f"{k}={v}\n" for k, v in sorted(proc.env.items())))
        return 0

    def kill(proc: pm.Process) -> int:
        sh = ShellContext(device.system, proc, ShellState(name="kill", shell_pid=proc.pid))
        return b_kill(sh, proc.argv)

    def true(proc: pm.Process) -> int:
        return 0

    def false(proc: pm.Process) -> int:
        return 1

    def echo(proc: pm.Process) -> int:
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

    def uname(proc: pm.Process) -> int:
        release = device.kernel_release
        if "-a" in proc.argv:
            proc.stdout.write(f"Linux localhost {release} {device.kernel_build} x86_64 Toybox\n")
        elif "-r" in proc.argv:
            proc.stdout.write(release + "\n")
        elif "-m" in proc.argv:
            proc.stdout.write("x86_64\n")
        else:
            proc.stdout.write("Linux\n")
        return 0

    def pidof(proc: pm.Process) -> int:
        names = [a for a in proc.argv[1:] if not a.startswith("-")]
        found = [str(p.pid) for p in reversed(device.processes.processes())
                 if p.args_line().split(" ", 1)[0] in names or p.args_line().split(" ", 1)[0].rsplit("/", 1)[-1] in names]
        if found:
            proc.stdout.write(" ".join(found) + "\n")
        return 0 if found else 1

    def pgrep(proc: pm.Process) -> int:
        import re

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
        for entry in device.processes.processes():
            if entry.pid == proc.pid:
                continue
            subject = entry.args_line() if full else entry.comm
            if regex.search(subject):
                lines.append(f"{entry.pid} {entry.comm}" if listing else str(entry.pid))
        proc.stdout.write("".join(line + "\n" for line in lines))
        return 0 if lines else 1

    def date(proc: pm.Process) -> int:
        formats = [a for a in proc.argv[1:] if a.startswith("+")]
        now = time.time()
        text = time.strftime(formats[0][1:], time.localtime(now)) if formats else time.strftime("%a %b %e %H:%M:%S %Z %Y", time.localtime(now))
        proc.stdout.write(text + "\n")
        return 0

    def _run_command(proc: pm.Process, argv: list[str], tool: str) -> int:
        """exec argv in this process (what nohup, setsid and su do after their setup)."""
        program = device.programs.get(argv[0].rsplit("/", 1)[-1]) if argv else None
        if program is None:
            proc.stderr.write(f"{tool}: exec {argv[0] if argv else ''}: No such file or directory\n" if argv else f"{tool}: Needs 1 argument\n")
            return 127 if argv else 1
        proc.exec_image(argv)
        return program(proc)

    def nohup(proc: pm.Process) -> int:
        """toybox nohup: SIGHUP ignored; a terminal stdout goes to nohup.out (appended)."""
        proc.signals.ignore(pm.SIGHUP)
        if proc.stdout.isatty():
            try:
                file = fs.open(_path(proc, device, "nohup.out"), cred_of(proc), read=False, write=True, create=True, append=True, mode=0o600)
            except OSError as exc:
                _fail(proc, "nohup", "nohup.out", exc)
                return 125
            proc.set_fd(1, file)
        return _run_command(proc, proc.argv[1:], "nohup")

    def setsid(proc: pm.Process) -> int:
        """A new session and process group, no controlling terminal, then the command."""
        with proc.kernel.lock:
            proc.sid = proc.pgid = proc.pid
            proc.tty = None
        args = proc.argv[1:]
        while args and args[0] in ("-c", "-d", "-w"):
            args = args[1:]
        return _run_command(proc, args, "setsid")

    def timeout(proc: pm.Process) -> int:
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
        program = device.programs.get(args[1].rsplit("/", 1)[-1])
        if program is None:
            proc.stderr.write(f"timeout: exec {args[1]}: No such file or directory\n")
            return 127
        child = device.processes.fork(proc, argv=args[1:])
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

    def which(proc: pm.Process) -> int:
        status = 0
        for name in proc.argv[1:]:
            if device.programs.get(name) is not None:
                proc.stdout.write(f"/system/bin/{name}\n")
            else:
                status = 1
        return status

    def basename(proc: pm.Process) -> int:
        if len(proc.argv) < 2:
            proc.stderr.write("basename: Needs 1 argument\n")
            return 1
        name = proc.argv[1].rstrip("/").rsplit("/", 1)[-1] or "/"
        if len(proc.argv) > 2 and name.endswith(proc.argv[2]) and name != proc.argv[2]:
            name = name[: -len(proc.argv[2])]
        proc.stdout.write(name + "\n")
        return 0

    def dirname(proc: pm.Process) -> int:
        if len(proc.argv) < 2:
            proc.stderr.write("dirname: Needs 1 argument\n")
            return 1
        path = proc.argv[1].rstrip("/") or "/"
        head = path.rsplit("/", 1)[0] if "/" in path else "."
        proc.stdout.write((head or "/") + "\n")
        return 0

    def seq(proc: pm.Process) -> int:
        numbers = [a for a in proc.argv[1:]]
        try:
            values = [int(n) for n in numbers]
        except ValueError:
            proc.stderr.write("seq: Not a number\n")
            return 1
        first, step, last = (1, 1, values[0]) if len(values) == 1 else (values[0], 1, values[1]) if len(values) == 2 else tuple(values[:3])
        if step == 0:
            proc.stderr.write("seq: increment 0\n")
            return 1
        out = [str(n) for n in range(first, last + (1 if step > 0 else -1), step)]
        proc.stdout.write("".join(n + "\n" for n in out))
        return 0

    def _inputs(proc: pm.Process, files: list[str], tool: str) -> list[tuple[str, bytes]] | None:
        if not files:
            return [("(standard input)", proc.stdin.read_all())]
        out = []
        for arg in files:
            try:
                out.append((arg, fs.read_file(_path(proc, device, arg), cred_of(proc))))
            except OSError as exc:
                _fail(proc, tool, arg, exc)
                return None
        return out

    def grep(proc: pm.Process) -> int:
        import re

        args = proc.argv[1:]
        flags: set[str] = set()
        patterns: list[str] = []
        files: list[str] = []
        while args:
            arg = args.pop(0)
            if arg == "-e" and args:
                patterns.append(args.pop(0))
            elif arg.startswith("-") and len(arg) > 1 and not files and arg != "--":
                flags.update(arg[1:])
            elif not patterns and "e" not in flags:
                patterns.append(arg)
            else:
                files.append(arg)
        if not patterns:
            proc.stderr.write("grep: no pattern\n")
            return 2
        options = re.IGNORECASE if "i" in flags else 0
        try:
            regexes = [re.compile(re.escape(p) if "F" in flags else p, options) for p in patterns]
        except re.error as exc:
            proc.stderr.write(f"grep: bad regex '{patterns[0]}': {exc}\n")
            return 2
        sources = _inputs(proc, files, "grep")
        if sources is None:
            return 2
        count = 0
        out: list[str] = []
        for name, data in sources:
            for line in data.decode(errors="replace").splitlines():
                hit = any(r.search(line) for r in regexes)
                if hit != ("v" in flags):
                    count += 1
                    out.append(f"{name}:{line}" if len(sources) > 1 else line)
        if "q" not in flags:
            proc.stdout.write(f"{count}\n" if "c" in flags else "".join(line + "\n" for line in out))
        return 0 if count else 1

    def head(proc: pm.Process) -> int:
        """toybox head [-cNqv] [-n N] [-N]: the first lines (or bytes, -c) of each input, read only
        as far as needed; `==> NAME <==` before each of several files (-q none, -v always)."""
        args = proc.argv[1:]
        count, in_bytes, quiet, verbose = 10, False, False, False
        files: list[str] = []
        while args:
            arg = args.pop(0)
            option = arg[:2]
            if option in ("-n", "-c"):
                text = arg[2:] or (args.pop(0) if args else "")
                if not is_decimal(text):
                    proc.stderr.write(f"head: not integer: {text}\n" if text else f"head: Missing argument to {option}\n")
                    return 1
                count, in_bytes = int(text), option == "-c"
            elif arg.startswith("-") and is_decimal(arg[1:]):
                count, in_bytes = int(arg[1:]), False
            elif arg in ("-q", "-v"):
                quiet, verbose = arg == "-q", arg == "-v"
            elif arg == "-" or not arg.startswith("-"):
                files.append(arg)
            else:
                proc.stderr.write(f"head: Unknown option '{arg.lstrip('-')[:1]}' (see \"head --help\")\n")
                return 1
        status = 0
        titled = verbose or (len(files) > 1 and not quiet)
        for index, name in enumerate(files or ["-"]):
            source: pm.FdStream | _FileReader
            if name == "-":
                source = proc.stdin
            else:
                try:
                    source = _open_read(proc, name)
                except OSError as exc:
                    _fail(proc, "head", name, exc)
                    status = 1
                    continue
            if titled:
                proc.stdout.write(("\n" if index else "") + f"==> {'standard input' if name == '-' else name} <==\n")
            try:
                _copy_head(source, proc.stdout, count, in_bytes)
            finally:
                if isinstance(source, _FileReader):
                    with proc.kernel.lock:
                        source.file.release()
        return status

    def _open_read(proc: pm.Process, name: str) -> _FileReader:
        return _FileReader(proc, fs.open(_path(proc, device, name), cred_of(proc)))

    def wc(proc: pm.Process) -> int:
        """toybox wc [-lwcm]: lines, words, bytes (or characters), in that order; 7-wide columns
        unless one input is counted with one flag (wc.c show_lengths), a `total` line for several."""
        flags = "".join(a[1:] for a in proc.argv[1:] if a.startswith("-") and len(a) > 1)
        names = [a for a in proc.argv[1:] if a == "-" or not a.startswith("-")]
        if bad := set(flags) - set("lwcm"):
            proc.stderr.write(f"wc: Unknown option '{sorted(bad)[0]}' (see \"wc --help\")\n")
            return 1
        shown = [kind for kind in "lwcm" if kind in flags] or ["l", "w", "c"]
        width = 0 if (not names and len(shown) == 1) or len(names) == 1 else 7
        totals = dict.fromkeys(shown, 0)
        status = 0
        for name in names or ["-"]:
            try:
                data = proc.stdin.read_all() if name == "-" else fs.read_file(_path(proc, device, name), cred_of(proc))
            except OSError as exc:
                _fail(proc, "wc", name, exc)
                status = 1
                continue
            counts = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data),
                      "m": len(data.decode("utf-8", "replace"))}
            for kind in shown:
                totals[kind] += counts[kind]
            proc.stdout.write(" ".join(f"{counts[k]:>{width}}" for k in shown) + (f" {name}" if names else "") + "\n")
        if len(names) > 1:
            proc.stdout.write(" ".join(f"{totals[k]:>{width}}" for k in shown) + " total\n")
        return status

    def toybox(proc: pm.Process) -> int:
        """The multiplexer: `toybox NAME ARGS` runs the applet NAME, `toybox` lists the applets
        this device has (wrapped as main.c's toybox_main does: a newline once a line passes 65
        columns), `--version` names Android's build (main.c: "toybox 0.8.11-android")."""
        args = proc.argv[1:]
        if args and args[0] == "--version":
            proc.stdout.write(f"toybox {TOYBOX_VERSION}\n")
            return 0
        if args:
            name = args[0].rsplit("/", 1)[-1]
            program = device.programs.get(name) if name in TOYBOX_APPLETS else None
            if program is None:
                proc.stderr.write(f'toybox: Unknown command {args[0]} (see "toybox --help")\n')
                return 127
            proc.exec_image(args)
            return program(proc)
        names = sorted(n for n in device.programs.names() if n in TOYBOX_APPLETS)
        out, width = [], 0
        for name in names:
            width += len(name) + 1
            out.append(name + ("\n" if width > 65 else " "))
            if width > 65:
                width = 0
        proc.stdout.write("".join(out) + "\n")
        return 0

    ls = ls_program(device, _name)
    ps = ps_program(device)

    for name, fn in {
        "cat": cat, "sleep": sleep, "tty": tty, "id": id_, "whoami": whoami, "rm": rm, "ls": ls,
        "mkdir": mkdir, "chmod": chmod, "stat": stat, "touch": touch, "env": env, "kill": kill,
        "true": true, "false": false, "echo": echo, "uname": uname, "ps": ps, "grep": grep,
        "head": head, "wc": wc, "pidof": pidof, "pgrep": pgrep, "date": date, "nohup": nohup,
        "setsid": setsid, "timeout": timeout, "which": which, "basename": basename,
        "dirname": dirname, "seq": seq, "toybox": toybox, "tr": tr_program(device),
    }.items():
        reg(name, fn)


class _FileReader:
    """An open device file read in chunks, with the FdStream read signature."""

    def __init__(self, proc: pm.Process, file: OpenFile) -> None:
        self.proc = proc
        self.file = file

    def read(self, n: int = 65536) -> bytes:
        return self.file.read(n, self.proc, None) or b""


def _copy_head(source: pm.FdStream | _FileReader, out: pm.FdStream, count: int, in_bytes: bool) -> None:
    """Copy the first `count` lines (or bytes) of source to out, reading no further than that."""
    left = count
    while left > 0:
        chunk = source.read(min(65536, left) if in_bytes else 65536)
        if not chunk:
            return
        if in_bytes:
            out.write(chunk[:left])
            left -= len(chunk[:left])
            continue
        end = 0
        while left and (cut := chunk.find(b"\n", end)) >= 0:
            end = cut + 1
            left -= 1
        out.write(chunk[:end] if not left else chunk)
        if not left:
            return


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
            "U": _name(info.uid),
            "g": str(info.gid),
            "G": _name(info.gid),
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
        f"Uid: ({info.uid:5}/{_name(info.uid):>8})\tGid: ({info.gid:5}/{_name(info.gid):>8})\n"
        f"Access: {when}\nModify: {when}\nChange: {when}"
    )
