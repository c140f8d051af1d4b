"""The text tools the device runs with the real implementations Android ships: Debian's toybox
(0.8.x, as API 36 has) for sed, cut, tail, sort, uniq, md5sum, sha1sum, sha256sum, base64, od,
cmp, tac, rev, paste, comm and nl, and the one true awk (Debian's original-awk, the BWK awk
Android's /system/bin/awk is built from) for awk.

A tool never sees a host path. Each run gets a private staging directory whose `root/` stands for
the device's `/`:

* the file arguments (and the files a sed script reads with `r`, an `md5sum -c` list names)
  are copied there from the device's file system, with the caller's permissions: a file the
  caller may not read is staged unreadable (mode 0, and the tool runs as an unprivileged uid
  when the host runs us as root), a missing one is not staged, so the tool's own error messages
  come out; a relative argument is passed as it was (the tool runs in the staged copy of the
  caller's working directory), an absolute one, or a relative one that climbs above `/`, as its
  staged path;
* what the tool writes (`sed -i`, sed's `w` files, `sort -o`, uniq's OUTPUT) is copied back to
  the device's file system afterwards, again with the caller's permissions;
* the staging path is taken out of everything the tool prints, so its messages name device paths;
* standard input is streamed from the caller's stdin only when the tool reads it (no file
  operand, or `-`), so a tool given files leaves a loop's input alone.

awk runs only under Landlock (virtual/kernel/confine.py), since its programs can run commands and open
files; the toybox tools are confined the same way when the kernel has Landlock. Where a binary is
missing (macOS, say), the tool prints which package provides it and exits 127, never answering
wrongly. What is not modelled is refused with a message and status 1: `tail -f` of a device file
(the staged copy would never grow).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import logging
import os
import posixpath
import re
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

from pytest_mobile_agent.virtual.kernel import confine, spawn
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.creds import Cred, cred_of
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.system import System, SystemProgram
from pytest_mobile_agent.virtual.programs import sedscript

log = logging.getLogger("pytest_mobile_agent.virtual")

NOBODY = 65534
CHUNK = 65536
# How long one look at the caller's stdin or the tool's outputs waits: short while data flows,
# doubling up to the longest while nothing comes (a tool behind `logcat |` then costs no CPU).
SHORTEST_POLL = 0.0005
LONGEST_POLL = 0.05

Child = spawn.SpawnedTool | subprocess.Popen[bytes]


@dataclass(frozen=True)
class Binary:
    executable: str  # the command searched on PATH
    package: str  # the Debian package that provides it
    confined_only: bool = False  # refuse to run it without Landlock


TOYBOX = Binary("toybox", "toybox")
AWK = Binary("original-awk", "original-awk", confined_only=True)


@functools.cache
def locate(binary: Binary) -> str | None:
    found = shutil.which(binary.executable)
    return os.path.realpath(found) if found else None


class Refused(Exception):  # noqa: N818 - a tool's refusal: message and status
    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


# --- the command line ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Syntax:
    """How a tool's options read (toybox's optstrings, BWK awk's getopt loop)."""

    with_argument: str = ""  # short options taking an argument, attached or the next word
    optional_attached: str = ""  # short options whose argument, if any, is attached (sed -i)
    long_with_argument: frozenset[str] = frozenset()
    options_first: bool = False  # options end at the first operand (awk)
    numeric_options: bool = False  # -NUM is an option (tail -5)


@dataclass
class Option:
    letter: str  # a short letter, or the long name
    value: str | None
    word: int  # the index in argv of the word holding the value
    attached: bool  # the value is the end of that word (after the letter, or after `=`)


@dataclass
class Parsed:
    argv: list[str]
    options: list[Option]
    operands: list[int]  # indices in argv

    def has(self, letter: str) -> bool:
        return any(o.letter == letter for o in self.options)

    def values(self, letter: str) -> list[Option]:
        return [o for o in self.options if o.letter == letter and o.value is not None]


def parse(argv: list[str], syntax: Syntax) -> Parsed:
    options: list[Option] = []
    operands: list[int] = []
    index = 1
    only_operands = False
    while index < len(argv):
        word = argv[index]
        if only_operands or word == "-" or not word.startswith("-"):
            operands.append(index)
            only_operands = only_operands or syntax.options_first
        elif word == "--":
            only_operands = True
        elif word.startswith("--"):
            name, equals, value = word[2:].partition("=")
            if name in syntax.long_with_argument and not equals and index + 1 < len(argv):
                index += 1
                options.append(Option(name, argv[index], index, False))
            else:
                options.append(Option(name, value if equals else None, index, bool(equals)))
        elif syntax.numeric_options and is_decimal(word[1:]):
            options.append(Option("#", word[1:], index, True))
        else:
            index = _short_options(argv, index, syntax, options)
        index += 1
    return Parsed(list(argv), options, operands)


def _short_options(argv: list[str], index: int, syntax: Syntax, options: list[Option]) -> int:
    word = argv[index]
    for at in range(1, len(word)):
        letter = word[at]
        rest = word[at + 1 :]
        if letter in syntax.with_argument:
            if rest:
                options.append(Option(letter, rest, index, True))
            elif index + 1 < len(argv):
                index += 1
                options.append(Option(letter, argv[index], index, False))
            else:
                options.append(Option(letter, None, index, True))
            return index
        if letter in syntax.optional_attached:
            options.append(Option(letter, rest, index, True))
            return index
        options.append(Option(letter, None, index, True))
    return index


# --- staging ----------------------------------------------------------------------------------------


class Staging:
    """A private directory whose root/ stands for the device's /, for one run of one tool."""

    def __init__(self, system: System, cred: Cred, cwd: str) -> None:
        self.fs = system.fs
        self.cred = cred
        self.cwd = cwd
        self.base = tempfile.mkdtemp(prefix="mobile-agent-tool-")
        self.root = os.path.join(self.base, "root")
        os.mkdir(self.root, 0o700)
        self.outputs: dict[str, bytes | None] = {}  # device path -> what was staged there
        self._made_cwd = self._host_dirs(cwd)

    # --- paths ---

    def device_path(self, arg: str) -> str:
        return self.fs.normalize(arg, self.cwd)

    def host(self, device_path: str) -> str:
        return self.root + device_path if device_path != "/" else self.root

    def host_cwd(self) -> str:
        return self.host(self.cwd)

    def argument(self, arg: str) -> str:
        """How the tool is handed a device path: relative as it was when it stays under /, else
        the staged path."""
        if arg.startswith("/") or _climbs_above_root(self.cwd, arg):
            return self.host(self.device_path(arg)) + ("/" if arg.endswith("/") and len(arg) > 1 else "")
        return arg

    def _host_dirs(self, device_dir: str) -> str:
        host = self.host(device_dir)
        os.makedirs(host, mode=0o700, exist_ok=True)
        return host

    # --- content ---

    def stage_input(self, arg: str) -> str:
        """Copy a device file (or directory, empty) to its staged place; the argument to pass."""
        path = self.device_path(arg)
        self._stage(path)
        return self.argument(arg)

    def _stage(self, path: str) -> bytes | None:
        host = self.host(path)
        if os.path.lexists(host):
            return self.outputs.get(path)
        self._host_dirs(posixpath.dirname(path))
        try:
            data = self.fs.read_file(path, self.cred)
        except OSError as exc:
            if exc.errno == errno.EISDIR:
                os.makedirs(host, mode=0o700, exist_ok=True)
            elif exc.errno == errno.EACCES:
                _make_file(host, b"", 0)
            return None
        _make_file(host, data, 0o600)
        return data

    def stage_output(self, arg: str) -> str:
        """A file the tool may write: its current content staged when it has one, read-only
        when the caller may not write it; copied back after the run."""
        path = self.device_path(arg)
        before = self._stage(path)
        refusal = self.fs.write_error(path, self.cred)
        host = self.host(path)
        if refusal is not None:  # the tool meets EACCES where the device says EACCES or EROFS
            if os.path.isfile(host):
                os.chmod(host, 0o400)
            os.chmod(os.path.dirname(host), 0o500)
        else:
            self.outputs[path] = before
        return self.argument(arg)

    def stage_text(self, name: str, data: bytes) -> str:
        """A file of the run's own (a rewritten script or check list), outside the device tree."""
        host = os.path.join(self.base, name)
        _make_file(host, data, 0o600)
        return host

    def write_back(self, proc: pm.Process, tool: str) -> int:
        """Copy what the tool wrote to the device; 1 when the device refused some of it."""
        status = 0
        for path, before in self.outputs.items():
            host = self.host(path)
            if not os.path.isfile(host) or os.path.islink(host):
                continue
            with open(host, "rb") as file:
                data = file.read()
            if data == before:
                continue
            try:
                self.fs.write_file(path, data, self.cred)
            except OSError as exc:
                proc.stderr.write(f"{tool}: {path}: {exc.strerror or exc}\n")
                status = 1
        return status

    def hand_to(self, uid: int) -> None:
        """Give the staged tree to the uid the tool runs as (when we are root)."""
        for directory, dirs, files in os.walk(self.base):
            os.chown(directory, uid, uid)
            for name in (*dirs, *files):
                os.chown(os.path.join(directory, name), uid, uid, follow_symlinks=False)

    def remove(self) -> None:
        def unlock(func: Callable[..., object], path: str, _: object) -> None:
            with contextlib.suppress(OSError):
                os.chmod(os.path.dirname(path), 0o700)
                os.chmod(path, 0o700)
                func(path)

        shutil.rmtree(self.base, onerror=unlock)


def _make_file(path: str, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as file:
        file.write(data)
    os.chmod(path, mode)


def _climbs_above_root(cwd: str, arg: str) -> bool:
    depth = len([part for part in cwd.split("/") if part])
    for part in arg.split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


# --- what each tool's arguments are --------------------------------------------------------------


@dataclass
class Plan:
    argv: list[str]
    reads_stdin: bool


def _replace(parsed: Parsed, option: Option, value: str) -> None:
    word = parsed.argv[option.word]
    parsed.argv[option.word] = word[: len(word) - len(option.value or "")] + value if option.attached else value


def _files_plan(parsed: Parsed, staging: Staging, operands: list[int] | None = None) -> Plan:
    """Every operand (or the given ones) a file to read; stdin when none is given, or for `-`."""
    chosen = parsed.operands if operands is None else operands
    for index in chosen:
        if parsed.argv[index] != "-":
            parsed.argv[index] = staging.stage_input(parsed.argv[index])
    return Plan(parsed.argv, not chosen or any(parsed.argv[i] == "-" for i in chosen))


PlanFn = Callable[[list[str], Staging], Plan]


def plain(syntax: Syntax) -> PlanFn:
    def plan(argv: list[str], staging: Staging) -> Plan:
        return _files_plan(parse(argv, syntax), staging)

    return plan


def plan_tail(argv: list[str], staging: Staging) -> Plan:
    parsed = parse(argv, Syntax(with_argument="scn", long_with_argument=frozenset({"bytes", "lines"}),
                                numeric_options=True))
    if (parsed.has("f") or parsed.has("F")) and any(argv[i] != "-" for i in parsed.operands):
        raise Refused("tail: -f of a file on the virtual device is not modelled (its staged copy never grows)")
    return _files_plan(parsed, staging)


def plan_sort(argv: list[str], staging: Staging) -> Plan:
    parsed = parse(argv, Syntax(with_argument="STokt"))
    plan = _files_plan(parsed, staging)
    for option in parsed.values("o"):
        _replace(parsed, option, staging.stage_output(option.value or ""))
    for option in parsed.values("T"):
        _replace(parsed, option, staging.stage_input(option.value or ""))
    return plan


def plan_uniq(argv: list[str], staging: Staging) -> Plan:
    parsed = parse(argv, Syntax(with_argument="fsw"))
    plan = _files_plan(parsed, staging, parsed.operands[:1])
    for index in parsed.operands[1:2]:
        if argv[index] != "-":
            parsed.argv[index] = staging.stage_output(argv[index])
    return plan


def plan_cmp(argv: list[str], staging: Staging) -> Plan:
    parsed = parse(argv, Syntax(with_argument="n"))
    return _files_plan(parsed, staging, parsed.operands[:2])


CHECK_LINE = re.compile(rb"^(\S+)( [ *])(.*)$")


def plan_hash(argv: list[str], staging: Staging) -> Plan:
    """md5sum/sha1sum/sha256sum; with -c the files each check list names are staged too, its
    absolute names pointed at their staged copies."""
    parsed = parse(argv, Syntax())
    if not (parsed.has("c") or parsed.has("check")):
        return _files_plan(parsed, staging)
    for number, index in enumerate(parsed.operands):
        if argv[index] == "-":
            continue
        try:
            listing = staging.fs.read_file(staging.device_path(argv[index]), staging.cred)
        except OSError:
            parsed.argv[index] = staging.stage_input(argv[index])
            continue
        parsed.argv[index] = staging.stage_text(f"check-{number}", _point_check_list(listing, staging))
    return Plan(parsed.argv, not parsed.operands or any(argv[i] == "-" for i in parsed.operands))


def _point_check_list(listing: bytes, staging: Staging) -> bytes:
    lines = []
    for line in listing.split(b"\n"):
        match = CHECK_LINE.match(line)
        if match is None:
            lines.append(line)
            continue
        pointed = staging.stage_input(match[3].decode("utf-8", "surrogateescape"))
        lines.append(match[1] + match[2] + pointed.encode("utf-8", "surrogateescape"))
    return b"\n".join(lines)


def plan_sed(argv: list[str], staging: Staging) -> Plan:
    parsed = parse(argv, Syntax(with_argument="ef", optional_attached="i"))
    scripts = parsed.values("e")
    files = parsed.values("f")
    operands = list(parsed.operands)
    for option in scripts:
        _replace(parsed, option, _point_script(option.value or "", staging))
    for number, option in enumerate(files):
        try:
            text = staging.fs.read_file(staging.device_path(option.value or ""), staging.cred)
        except OSError:
            _replace(parsed, option, staging.stage_input(option.value or ""))
            continue
        script = _point_script(text.decode("utf-8", "surrogateescape"), staging)
        _replace(parsed, option, staging.stage_text(f"script-{number}", script.encode("utf-8", "surrogateescape")))
    if not scripts and not files and operands:
        first = operands.pop(0)
        parsed.argv[first] = _point_script(argv[first], staging)
    in_place = parsed.has("i")
    for index in operands:
        if argv[index] != "-":
            parsed.argv[index] = staging.stage_output(argv[index]) if in_place else staging.stage_input(argv[index])
    return Plan(parsed.argv, not operands or any(argv[i] == "-" for i in operands))


def _point_script(script: str, staging: Staging) -> str:
    """The script with each r/w file name replaced by its staged path (w files copied back)."""
    try:
        names = sedscript.file_names(script)
    except ValueError:
        return script  # toybox's sed will reject it with its own message
    out = []
    at = 0
    for name in names:
        text = script[name.start : name.end]
        staged = staging.stage_output(text) if name.command == "w" else staging.stage_input(text)
        out += [script[at : name.start], staged]
        at = name.end
    return "".join(out) + script[at:]


ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def plan_awk(argv: list[str], staging: Staging) -> Plan:
    """BWK awk: options before the program (-F FS, -v VAR=VAL, -f PROGFILE); then the program
    (unless -f), then files and VAR=VAL assignments."""
    parsed = parse(argv, Syntax(with_argument="Fvf", options_first=True))
    operands = list(parsed.operands)
    for option in parsed.values("f"):
        _replace(parsed, option, staging.stage_input(option.value or ""))
    if not parsed.values("f") and operands:
        operands.pop(0)
    files = [i for i in operands if not ASSIGNMENT.match(argv[i])]
    return _files_plan(parsed, staging, files)


@dataclass(frozen=True)
class Tool:
    binary: Binary
    plan: PlanFn


TOOLS: dict[str, Tool] = {
    "sed": Tool(TOYBOX, plan_sed),
    "cut": Tool(TOYBOX, plain(Syntax(with_argument="bcfFCOd", long_with_argument=frozenset({"output-delimiter"})))),
    "tail": Tool(TOYBOX, plan_tail),
    "sort": Tool(TOYBOX, plan_sort),
    "uniq": Tool(TOYBOX, plan_uniq),
    "md5sum": Tool(TOYBOX, plan_hash),
    "sha1sum": Tool(TOYBOX, plan_hash),
    "sha256sum": Tool(TOYBOX, plan_hash),
    "base64": Tool(TOYBOX, plain(Syntax(with_argument="w"))),
    "od": Tool(TOYBOX, plain(Syntax(with_argument="jwNAt"))),
    "cmp": Tool(TOYBOX, plan_cmp),
    "tac": Tool(TOYBOX, plain(Syntax())),
    "rev": Tool(TOYBOX, plain(Syntax())),
    "paste": Tool(TOYBOX, plain(Syntax(with_argument="d"))),
    "comm": Tool(TOYBOX, plain(Syntax())),
    "nl": Tool(TOYBOX, plain(Syntax(with_argument="vlwbns"))),
    "awk": Tool(AWK, plan_awk),
}


# --- running ----------------------------------------------------------------------------------------


def missing_message(name: str, binary: Binary) -> str:
    return (f"{name}: the virtual device runs the real {binary.executable} for {name}, and this host has none "
            f"(Debian: apt-get install {binary.package}; .ci/system-deps installs it)\n")


def run_tool(name: str, system: System, proc: pm.Process) -> int:
    """`name` (a key of TOOLS) run with the real binary on staged copies of its device files."""
    tool = TOOLS[name]
    executable = locate(tool.binary)
    if executable is None:
        proc.stderr.write(missing_message(name, tool.binary))
        return 127
    if tool.binary.confined_only and confine.available() is None:
        proc.stderr.write(f"{name}: the virtual device runs {name} only confined by Landlock (Linux 5.13 and later), "
                          "which this host lacks\n")
        return 127
    staging = Staging(system, cred_of(proc), proc.cwd)
    try:
        return _run(proc, name, tool, executable, staging)
    except Refused as refused:
        proc.stderr.write(refused.message + "\n")
        return refused.status
    finally:
        staging.remove()


def _run(proc: pm.Process, name: str, tool: Tool, executable: str, staging: Staging) -> int:
    plan = tool.plan([name, *proc.argv[1:]], staging)
    as_nobody = hasattr(os, "geteuid") and os.geteuid() == 0
    if as_nobody:
        staging.hand_to(NOBODY)
    env = dict(proc.env)
    env.setdefault("LC_ALL", "C.UTF-8")
    child = _spawn(plan.argv, executable, staging, env, as_nobody=as_nobody, confined_only=tool.binary.confined_only)
    try:
        status = _pump(proc, child, plan.reads_stdin, staging.root.encode())
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        for stream in (child.stdin, child.stdout, child.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
    written = staging.write_back(proc, name)
    return status or written


def _spawn(argv: list[str], executable: str, staging: Staging, env: dict[str, str], *, as_nobody: bool,
           confined_only: bool) -> spawn.SpawnedTool | subprocess.Popen[bytes]:
    """Start the tool with posix_spawn (virtual/kernel/spawn.py: no fork handler runs, grpc's
    included), from a thread that Landlock confines first when it can; where the host cannot spawn
    that way (not Linux: no Landlock either), with subprocess."""
    identity = NOBODY if as_nobody else None
    if not spawn.available():
        return subprocess.Popen(
            argv, executable=executable, cwd=staging.host_cwd(), env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, close_fds=True, start_new_session=True,
            user=identity, group=identity, extra_groups=[] if as_nobody else None,
        )
    interpreter = confine.elf_interpreter(executable)

    def confine_thread() -> None:
        if confine.available() is None:
            return
        try:
            confine.restrict_thread(writable=staging.base,
                                    executables=[executable, *([interpreter] if interpreter else [])])
        except OSError:
            if confined_only:
                raise
            log.debug("running %s unconfined: Landlock refused", argv[0], exc_info=True)

    return spawn.spawn(argv, executable, cwd=staging.host_cwd(), env=env, identity=identity, prepare=confine_thread)


class _Unstage:
    """Takes the staging root out of a byte stream, across chunk boundaries."""

    def __init__(self, prefix: bytes) -> None:
        self.prefix = prefix
        self.held = b""

    def feed(self, data: bytes) -> bytes:
        data = (self.held + data).replace(self.prefix, b"")
        keep = 0
        for size in range(min(len(self.prefix) - 1, len(data)), 0, -1):
            if self.prefix.startswith(data[-size:]):
                keep = size
                break
        self.held = data[len(data) - keep :] if keep else b""
        return data[: len(data) - keep] if keep else data

    def flush(self) -> bytes:
        held, self.held = self.held, b""
        return held


def _pump(proc: pm.Process, child: Child, reads_stdin: bool, prefix: bytes) -> int:
    """Stream the caller's stdin to the tool and its stdout/stderr back, until it is done."""
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    outputs = {child.stdout.fileno(): (proc.stdout, _Unstage(prefix)),
               child.stderr.fileno(): (proc.stderr, _Unstage(prefix))}
    source = proc.fd(0) if reads_stdin else None
    pending = bytearray()
    stdin_fd: int | None = None
    if source is None:
        child.stdin.close()
    else:
        stdin_fd = child.stdin.fileno()
        os.set_blocking(stdin_fd, False)
    poll = SHORTEST_POLL
    while outputs:
        busy = False
        if source is not None and len(pending) < CHUNK:
            data = source.read(CHUNK, proc, time.monotonic() + (0 if pending else poll))
            if data == b"":
                source = None
                busy = True
            elif data:
                pending += data
                busy = True
        if stdin_fd is not None:
            pending, stdin_fd = _feed(child, stdin_fd, pending, done=source is None)
            if stdin_fd is None:
                source = None  # the tool took all it wants: the rest of stdin stays for others
        writable = [stdin_fd] if stdin_fd is not None and pending else []
        ready, _, _ = select.select(list(outputs), writable, [], poll if source is not None else LONGEST_POLL)
        for fd in ready:
            busy = True
            stream, unstage = outputs[fd]
            chunk = os.read(fd, CHUNK)
            if not chunk:
                stream.write(unstage.flush())
                del outputs[fd]
                continue
            stream.write(unstage.feed(chunk))
        poll = SHORTEST_POLL if busy else min(poll * 2, LONGEST_POLL)
        proc.checkpoint()
    status = child.wait()
    return 128 - status if status < 0 else status


def _feed(child: Child, fd: int, pending: bytearray, *, done: bool) -> tuple[bytearray, int | None]:
    try:
        if pending:
            del pending[: os.write(fd, pending)]
    except BlockingIOError:
        return pending, fd
    except BrokenPipeError:  # the tool closed its stdin (head -n 1, cmp): stop feeding it
        pending.clear()
        done = True
    if done and not pending:
        assert child.stdin is not None
        with contextlib.suppress(OSError):
            child.stdin.close()
        return pending, None
    return pending, fd


#: every tool above as a program of the device, in the image's order
PROGRAMS: dict[str, SystemProgram] = {name: functools.partial(run_tool, name) for name in TOOLS}
