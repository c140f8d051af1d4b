"""toybox's text tools written against the device's files: cat, grep (-v -i -F -q -c -e), head
(-n -c -q -v, reading no further than it needs) and wc (toybox's columns). Messages follow toybox
(`cat: /x: No such file or directory`, status 1). The other text tools run the real toybox
(programs/hosttools.py); tr is programs/tr.py.
"""

from __future__ import annotations

import re

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.creds import cred_of
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.streams import OpenFile
from pytest_mobile_agent.virtual.kernel.system import System
from pytest_mobile_agent.virtual.programs.common import device_path, fail


def cat(system: System, proc: pm.Process) -> int:
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
            file = system.fs.open(device_path(proc, arg), cred_of(proc))
        except OSError as exc:
            fail(proc, "cat", arg, exc)
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


def _inputs(system: System, proc: pm.Process, files: list[str], tool: str) -> list[tuple[str, bytes]] | None:
    if not files:
        return [("(standard input)", proc.stdin.read_all())]
    out = []
    for arg in files:
        try:
            out.append((arg, system.fs.read_file(device_path(proc, arg), cred_of(proc))))
        except OSError as exc:
            fail(proc, tool, arg, exc)
            return None
    return out


def grep(system: System, proc: pm.Process) -> int:
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
    sources = _inputs(system, proc, files, "grep")
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


def head(system: System, proc: pm.Process) -> int:
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
                source = _open_read(system, proc, name)
            except OSError as exc:
                fail(proc, "head", name, exc)
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


def _open_read(system: System, proc: pm.Process, name: str) -> _FileReader:
    return _FileReader(proc, system.fs.open(device_path(proc, name), cred_of(proc)))


def wc(system: System, proc: pm.Process) -> int:
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
            data = proc.stdin.read_all() if name == "-" else system.fs.read_file(device_path(proc, name), cred_of(proc))
        except OSError as exc:
            fail(proc, "wc", name, exc)
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
