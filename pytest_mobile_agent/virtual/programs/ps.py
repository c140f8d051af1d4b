"""toybox's `ps` over the device's process table (toys/posix/ps.c, 0.8.x).

`ps -A -o PID,ARGS` prints the `  PID ARGS` header and one `%5d ARGS` row per process; without
`-o` the columns are Android's default, `USER,PID,PPID,VSIZE,RSS,WCHAN:10,ADDR:10,S,NAME`, for the
caller's own processes on its terminal (or, without one, in its session) unless `-A`/`-e`; `-p
PIDS` and bare pids pick processes. Layout follows show_ps and get_headers:

* a field's width comes from its type (PID and PPID as wide as pid_max's digits, 5 for the
  emulator's 32768; USER -12, VSZ 7, RSS 6, WCHAN -6, ADDR 12, NAME and ARGS -27...) or `:N`;
  a negative width is left-justified;
* the header is each title padded to its width (so a left-justified last title has trailing
  spaces); a row never pads its last left-justified field;
* off a terminal toybox sets -w: a value longer than its field widens it, and later fields with
  slack take the overflow back.

ARGS is the command line with NULs as spaces and the leading path of argv[0] removed (CMDLINE
keeps it), so `/system/bin/sleep 60` shows as `sleep 60`; VSZ, RSS and WCHAN are the process's
own (virtual/kernel/process.py). An unknown field fails as toybox does: `ps: bad -o 'LIST'` and a caret
under the field, status 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.system import System

PID_WIDTH = 5  # digits of /proc/sys/kernel/pid_max (32768 on the emulator)
ANDROID_DEFAULT = "USER,PID,PPID,VSIZE,RSS,WCHAN:10,ADDR:10,S,NAME"


def _name(proc: pm.Process) -> str:
    """NAME: argv[0] without its path."""
    return proc.args_line().split(" ", 1)[0].rsplit("/", 1)[-1]


def _args(proc: pm.Process) -> str:
    """ARGS: the command line, argv[0]'s leading path removed."""
    line = proc.args_line()
    head, sep, tail = line.partition(" ")
    return head.rsplit("/", 1)[-1] + sep + tail


def _tty(proc: pm.Process) -> str:
    return proc.tty.removeprefix("/dev/") if proc.tty else "?"


# type: (title, default width, value)
FIELDS: dict[str, tuple[str, int, Callable[[pm.Process], str]]] = {
    "PID": ("PID", PID_WIDTH, lambda p: str(p.pid)),
    "PPID": ("PPID", PID_WIDTH, lambda p: str(p.ppid)),
    "TID": ("TID", 5, lambda p: str(p.pid)),
    "PGID": ("PGID", 5, lambda p: str(p.pgid)),
    "UID": ("UID", 5, lambda p: str(p.uid)),
    "GID": ("GID", 8, lambda p: str(p.gid)),
    "USER": ("USER", -12, pm.Process.user_name),
    "S": ("S", -1, pm.Process.state_letter),
    "STAT": ("STAT", -5, pm.Process.state_letter),
    "TTY": ("TTY", -8, _tty),
    "NAME": ("NAME", -27, _name),
    "ARGS": ("ARGS", -27, _args),
    "CMDLINE": ("CMDLINE", -27, pm.Process.args_line),
    "CMD": ("CMD", -15, lambda p: p.comm),
    "COMM": ("COMM", -27, lambda p: p.comm),
    "VSZ": ("VSZ", 7, lambda p: str(p.memory[0])),
    "RSS": ("RSS", 6, lambda p: str(p.memory[1])),
    "WCHAN": ("WCHAN", -6, pm.Process.wchan),
    "ADDR": ("ADDR", 12, lambda p: "0"),
    "PRI": ("PRI", 3, lambda p: "19"),
    "NI": ("NI", 3, lambda p: "0"),
    "TIME": ("TIME", 8, lambda p: "00:00:00"),
}
ALIASES = {"VSIZE": "VSZ", "UNAME": "USER", "NICE": "NI"}


@dataclass(frozen=True)
class Field:
    kind: str
    title: str
    width: int  # negative: left-justified

    def value(self, proc: pm.Process) -> str:
        return FIELDS[self.kind][2](proc)


def parse_fields(spec: str) -> tuple[list[Field], int | None]:
    """A comma list of `TYPE[:WIDTH][=TITLE]`: the fields, and the offset of the first bad one."""
    fields: list[Field] = []
    offset = 0
    for part in spec.split(","):
        field = _parse_field(part)
        if field is None:
            return fields, offset
        fields.append(field)
        offset += len(part) + 1
    return fields, None


def _parse_field(part: str) -> Field | None:
    head, _, title = part.partition("=")
    kind, _, width_text = head.partition(":")
    kind = ALIASES.get(kind.upper(), kind.upper())
    if kind not in FIELDS or (width_text and not is_decimal(width_text)):
        return None
    default_title, default_width, _ = FIELDS[kind]
    width = int(width_text) * (-1 if default_width < 0 else 1) if width_text else default_width
    return Field(kind, title or default_title, width)


def header(fields: list[Field]) -> str:
    return " ".join(f"{f.title:>{f.width}}" if f.width > 0 else f"{f.title:<{-f.width}}" for f in fields)


def row(fields: list[Field], values: list[str]) -> str:
    """show_ps with -w: overflow widens a field, later slack takes it back."""
    cells, extra = [], 0
    for index, (field, value) in enumerate(zip(fields, values, strict=True)):
        width = abs(field.width)
        if len(value) > width:
            extra += len(value) - width
            width = len(value)
        elif extra and len(value) < width:
            unused = min(width - len(value), extra)
            width -= unused
            extra -= unused
        last = index == len(fields) - 1
        if field.width < 0:
            cells.append(value if last else value.ljust(width))
        else:
            cells.append(value.rjust(width))
    return " ".join(cells)


def ps(system: System, proc: pm.Process) -> int:
    args = proc.argv[1:]
    show_all = False
    specs: list[str] = []
    pids: set[int] | None = None
    while args:
        arg = args.pop(0)
        if arg in ("-A", "-e"):
            show_all = True
        elif arg == "-o" and args:
            specs.append(args.pop(0))
        elif arg.startswith("-o") and len(arg) > 2:
            specs.append(arg[2:])
        elif arg == "-p" and args:
            pids = (pids or set()) | {int(p) for p in args.pop(0).split(",") if is_decimal(p.strip())}
        elif is_decimal(arg):
            pids = (pids or set()) | {int(arg)}
        elif arg.startswith("-") and len(arg) > 1:
            show_all = show_all or "A" in arg or "e" in arg
        else:
            proc.stderr.write(f"ps: bad {arg}\n")
            return 1
    fields: list[Field] = []
    for spec in specs or [ANDROID_DEFAULT]:
        parsed, bad = parse_fields(spec)
        if bad is not None:
            prefix = "ps: bad -o '"
            proc.stderr.write(f"{prefix}{spec}'\n{' ' * (len(prefix) + bad)}^\n")
            return 1
        fields.extend(parsed)
    procs = system.processes.processes()
    if pids is not None:
        procs = [p for p in procs if p.pid in pids]
    elif not show_all:
        procs = [p for p in procs if p.uid == proc.uid and (p.tty == proc.tty if proc.tty else p.sid == proc.sid)]
    lines = [header(fields)] + [row(fields, [f.value(p) for f in fields]) for p in procs]
    proc.stdout.write("\n".join(lines) + "\n")
    return 0
