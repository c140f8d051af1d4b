"""toybox's tools that run other commands: find (toys/posix/find.c) and xargs (toys/posix/xargs.c),
0.8.x. They run device programs in child processes, as the real ones fork and exec, so they are
written against the device's files and process table; a host tool could only run host commands.

* `find [-HL] [PATH...] [EXPRESSION]`: PATH defaults to `.`, the action to `-print`. Tests:
  -name, -iname, -path, -ipath, -type [fdlcbps], -maxdepth, -mindepth, -newer FILE,
  -mtime/-mmin [+-]N, -size [+-]N[ckMG], -perm [-/]MODE, -user, -empty, -true, -false; actions
  -print, -print0, -exec CMD {} ; and {} +, -delete, -prune; operators `!`/-not, -a/-and,
  -o/-or, `( )`. Entries come in name order (the device's readdir order is the directory's),
  a directory before its contents. "find: 'PATH': No such file or directory",
  "find: 'DIR': Permission denied" (status 1), "find: bad arg 'X'".
* `xargs [-0rt] [-n N] [-E STR] [COMMAND...]`: arguments split at whitespace (no quote
  processing, as toybox's), or at NULs with -0, appended to COMMAND (`echo` by default), run with
  /dev/null as stdin; without -r the command runs once even for empty input. Status 123 when a
  run exited 1..125, 124 when one exited 255 (and no more are started), 125 for a signal,
  126/127 when the command cannot run.
"""

from __future__ import annotations

import errno
import fnmatch
import posixpath
import stat as stat_module
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.creds import cred_of
from pytest_mobile_agent.virtual.kernel.fs import StatResult
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.streams import NullFile
from pytest_mobile_agent.virtual.kernel.system import System, SystemProgram

NAMES = {"root": 0, "system": 1000, "shell": 2000}


def run_child(system: System, proc: pm.Process, argv: list[str], *, stdin_null: bool = True) -> int:
    """fork + exec + waitpid of a device program; 127 (with the message) when there is none."""
    program = system.programs.get(argv[0].rsplit("/", 1)[-1]) if argv else None
    if program is None:
        proc.stderr.write(f"{proc.comm}: exec {argv[0] if argv else ''}: No such file or directory\n")
        return 127
    child = system.processes.fork(proc, argv=argv)
    if stdin_null:
        child.set_fd(0, NullFile())
    child.exec_image(argv)
    with proc.kernel.lock:
        child.start(program)
        status = proc.wait_for(child)
    return status if status is not None else 0


# --- find ---------------------------------------------------------------------------------------


class FindError(Exception):
    pass


@dataclass
class Entry:
    path: str  # the device path
    shown: str  # as find prints it
    info: StatResult
    depth: int


@dataclass
class Context:
    system: System
    proc: pm.Process
    batches: dict[int, list[str]] = field(default_factory=dict)  # -exec ... + : collected names
    status: int = 0
    pruned: bool = False


Test = Callable[[Entry, Context], bool]


@dataclass
class Query:
    test: Test
    has_action: bool
    maxdepth: int | None = None
    mindepth: int = 0
    batched: list[tuple[int, list[str]]] = field(default_factory=list)  # (id, command) of -exec +


def _number_test(text: str, value: float) -> bool:
    """`+N` more than N, `-N` less than N, `N` exactly N (find.c compare_numsign)."""
    if text[:1] in "+-":
        number = float(text[1:])
        return value > number if text[0] == "+" else value < number
    return value == float(text)


def _size_test(text: str, info: StatResult) -> bool:
    units = {"c": 1, "k": 1024, "M": 1 << 20, "G": 1 << 30, "b": 512}
    unit = units.get(text[-1:], 512)
    number = text[:-1] if text[-1:] in units else text
    blocks = -(-info.size // unit)
    return _number_test(number, blocks)


def _perm_test(text: str, mode: int) -> bool:
    bits = mode & 0o7777
    if text.startswith("-"):
        want = int(text[1:], 8)
        return bits & want == want
    if text.startswith("/"):
        want = int(text[1:], 8)
        return bool(bits & want) or want == 0
    return bits == int(text, 8)


TYPES = {"f": stat_module.S_ISREG, "d": stat_module.S_ISDIR, "l": stat_module.S_ISLNK, "c": stat_module.S_ISCHR,
         "b": stat_module.S_ISBLK, "p": stat_module.S_ISFIFO, "s": stat_module.S_ISSOCK}


class Parser:
    """The expression, by precedence: -o over -a (implicit between tests) over ! over primaries."""

    def __init__(self, words: list[str], system: System, proc: pm.Process) -> None:
        self.words = words
        self.at = 0
        self.system = system
        self.proc = proc
        self.query = Query(lambda e, c: True, has_action=False)

    def parse(self) -> Query:
        if self.words:
            self.query.test = self._or()
            if self.at < len(self.words):
                raise FindError(f"bad arg '{self.words[self.at]}'")
        return self.query

    def _peek(self) -> str | None:
        return self.words[self.at] if self.at < len(self.words) else None

    def _or(self) -> Test:
        left = self._and()
        while self._peek() in ("-o", "-or"):
            self.at += 1
            right = self._and()
            left = (lambda a, b: lambda e, c: a(e, c) or b(e, c))(left, right)
        return left

    def _and(self) -> Test:
        left = self._not()
        while self._peek() not in (None, ")", "-o", "-or"):
            if self._peek() in ("-a", "-and"):
                self.at += 1
            right = self._not()
            left = (lambda a, b: lambda e, c: a(e, c) and b(e, c))(left, right)
        return left

    def _not(self) -> Test:
        if self._peek() in ("!", "-not"):
            self.at += 1
            inner = self._not()
            return lambda e, c: not inner(e, c)
        return self._primary()

    def _argument(self, name: str) -> str:
        if self.at >= len(self.words):
            raise FindError(f"'{name}' needs 1 arg")
        value = self.words[self.at]
        self.at += 1
        return value

    def _primary(self) -> Test:
        word = self.words[self.at]
        self.at += 1
        if word == "(":
            inner = self._or()
            if self._peek() != ")":
                raise FindError("bad arg '('")
            self.at += 1
            return inner
        if word in ("-name", "-iname", "-path", "-ipath"):
            return self._name_test(word)
        return self._action(word) or self._test(word)

    def _name_test(self, word: str) -> Test:
        """-name, -iname (the base name), -path, -ipath (the whole path shown): a glob."""
        pattern = self._argument(word)
        fold = word.startswith("-i")
        whole = word.endswith("path")

        def matches(e: Entry, c: Context) -> bool:
            subject = e.shown if whole else posixpath.basename(e.shown.rstrip("/")) or e.shown
            if fold:
                return fnmatch.fnmatchcase(subject.lower(), pattern.lower())
            return fnmatch.fnmatchcase(subject, pattern)

        return matches

    def _test(self, word: str) -> Test:  # noqa: C901 - one branch per test, as find.c's table
        if word == "-type":
            kinds = self._argument(word)
            tests = []
            for kind in kinds.split(","):
                if kind not in TYPES:
                    raise FindError(f"bad -type '{kind}'")
                tests.append(TYPES[kind])
            return lambda e, c: any(t(e.info.mode) for t in tests)
        if word in ("-maxdepth", "-mindepth"):
            value = int(self._argument(word))
            if word == "-maxdepth":
                self.query.maxdepth = value
            else:
                self.query.mindepth = value
            return lambda e, c: True
        if word == "-newer":
            other = self._argument(word)
            reference = self.system.fs.stat(self.system.fs.normalize(other, self.proc.cwd), cred_of(self.proc)).mtime
            return lambda e, c: e.info.mtime > reference
        if word in ("-mtime", "-mmin"):
            text = self._argument(word)
            unit = 86400 if word == "-mtime" else 60
            return lambda e, c: _number_test(text, int((time.time() - e.info.mtime) // unit))
        if word == "-size":
            text = self._argument(word)
            return lambda e, c: _size_test(text, e.info)
        if word == "-perm":
            text = self._argument(word)
            return lambda e, c: _perm_test(text, e.info.mode)
        if word in ("-user", "-group"):
            who = self._argument(word)
            uid = int(who) if is_decimal(who) else NAMES.get(who, -1)
            return (lambda e, c: e.info.uid == uid) if word == "-user" else (lambda e, c: e.info.gid == uid)
        if word == "-empty":
            return lambda e, c: (e.info.size == 0 if e.info.is_file else
                                 e.info.is_dir and not c.system.fs.listdir(e.path, cred_of(c.proc)))
        if word in ("-true", "-false"):
            return lambda e, c: word == "-true"
        raise FindError(f"bad arg '{word}'")

    def _action(self, word: str) -> Test | None:
        """-print, -print0, -prune, -delete, -exec and its kin; None for a word that is no action."""
        if word in ("-print", "-print0"):
            self.query.has_action = True
            end = "\0" if word == "-print0" else "\n"

            def show(e: Entry, c: Context) -> bool:
                c.proc.stdout.write(e.shown + end)
                return True

            return show
        if word == "-prune":
            def prune(e: Entry, c: Context) -> bool:
                c.pruned = True
                return True
            return prune
        if word == "-delete":
            self.query.has_action = True
            return self._delete
        if word in ("-exec", "-ok", "-execdir"):
            return self._exec(word)
        return None

    def _delete(self, e: Entry, c: Context) -> bool:
        fs = c.system.fs
        try:
            if e.info.is_dir:
                fs.rmdir(e.path, cred_of(c.proc))
            else:
                fs.unlink(e.path, cred_of(c.proc))
        except OSError as exc:
            c.proc.stderr.write(f"find: '{e.shown}': {exc.strerror}\n")
            c.status = 1
            return False
        return True

    def _exec(self, word: str) -> Test:
        self.query.has_action = True
        command: list[str] = []
        while True:
            if self.at >= len(self.words):
                raise FindError(f"-exec without {';'}")
            item = self.words[self.at]
            self.at += 1
            if item == ";" or (item == "+" and command and command[-1] == "{}"):
                break
            command.append(item)
        if not command:
            raise FindError(f"'{word}' needs 1 arg")
        if item == "+":
            batch_id = len(self.query.batched)
            self.query.batched.append((batch_id, command[:-1]))

            def collect(e: Entry, c: Context) -> bool:
                c.batches.setdefault(batch_id, []).append(e.shown)
                return True

            return collect

        def run(e: Entry, c: Context) -> bool:
            argv = [e.shown if part == "{}" else part.replace("{}", e.shown) for part in command]
            return run_child(c.system, c.proc, argv) == 0

        return run


def find(system: System, proc: pm.Process) -> int:
    fs = system.fs
    args = proc.argv[1:]
    follow = False
    while args and args[0] in ("-H", "-L"):
        follow = follow or args.pop(0) == "-L"
    starts: list[str] = []
    while args and not args[0].startswith("-") and args[0] not in ("!", "("):
        starts.append(args.pop(0))
    try:
        query = Parser(args, system, proc).parse()
    except (FindError, ValueError, OSError) as exc:
        proc.stderr.write(f"find: {exc}\n")
        return 1
    context = Context(system, proc)
    cred = cred_of(proc)

    def visit(path: str, shown: str, depth: int) -> None:
        try:
            info = fs.stat(path, cred, follow=follow)
        except OSError as exc:
            proc.stderr.write(f"find: '{shown}': {exc.strerror}\n")
            context.status = 1
            return
        entry = Entry(path, shown, info, depth)
        context.pruned = False
        if depth >= query.mindepth and query.test(entry, context) and not query.has_action:
            proc.stdout.write(shown + "\n")
        if not info.is_dir or context.pruned or (query.maxdepth is not None and depth >= query.maxdepth):
            return
        try:
            names = fs.listdir(path, cred)
        except OSError as exc:
            proc.stderr.write(f"find: '{shown}': {exc.strerror or errno.errorcode.get(exc.errno or 0)}\n")
            context.status = 1
            return
        for name in names:
            visit(f"{path.rstrip('/')}/{name}", f"{shown.rstrip('/')}/{name}", depth + 1)

    for start in starts or ["."]:
        visit(fs.normalize(start, proc.cwd), start, 0)
    for batch_id, command in query.batched:
        names = context.batches.get(batch_id, [])
        if names and run_child(system, proc, [*command, *names]) != 0:
            context.status = 1
    return context.status


# --- xargs ----------------------------------------------------------------------------------------


def xargs(system: System, proc: pm.Process) -> int:
    args = proc.argv[1:]
    flags: set[str] = set()
    per_run: int | None = None
    eof: str | None = None
    while args and args[0].startswith("-") and len(args[0]) > 1:
        option = args.pop(0)
        if option == "--":
            break
        if option in ("-n", "-E", "-s", "-P") and args:
            value = args.pop(0)
            if option == "-n":
                per_run = int(value)
            elif option == "-E":
                eof = value
            continue
        if option[:2] in ("-n", "-E", "-s", "-P") and len(option) > 2:
            if option[:2] == "-n":
                per_run = int(option[2:])
            elif option[:2] == "-E":
                eof = option[2:]
            continue
        if option in ("--null", "--no-run-if-empty"):
            flags.add("0" if option == "--null" else "r")
            continue
        flags.update(option[1:])
    command = args or ["echo"]
    data = proc.stdin.read_all().decode("utf-8", "surrogateescape")
    items = [item for item in data.split("\0") if item] if "0" in flags else data.split()
    if eof is not None and eof in items:
        items = items[: items.index(eof)]
    if not items and "r" in flags:
        return 0
    groups = [items[i : i + per_run] for i in range(0, len(items), per_run)] if per_run else [items]
    status = 0
    for group in groups or [[]]:
        argv = [*command, *group]
        if "t" in flags:
            proc.stderr.write(" ".join(argv) + "\n")
        result = run_child(system, proc, argv)
        if result == 255:
            proc.stderr.write(f"xargs: {command[0]}: exited with status 255; aborting\n")
            return 124
        if result in (126, 127):
            status = result
        elif result > 128:
            status = 125
        elif result:
            status = 123
    return status


PROGRAMS: dict[str, SystemProgram] = {"find": find, "xargs": xargs}
