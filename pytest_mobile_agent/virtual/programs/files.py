"""toybox's file tools that change the device's files or report on its file systems: cp, mv, ln,
tee, dd, du, df and mount. They are written against the device's file system (permissions,
read-only mounts, links), which a host copy could not reproduce, with toybox's messages (toys/posix
cp.c, ln.c, tee.c, du.c, df.c, dd.c; toys/lsb/mount.c; 0.8.x):

* `cp [-rRapPdfnv] SRC... DEST`: "cp: bad 'SRC': <strerror>" for a source that is not there,
  "cp: Needs 2 arguments", "cp: Skipped dir 'DEST'" for a directory without -r,
  "cp: DEST: <strerror>" when the target cannot be written; a new file gets the source's mode (-p
  keeps the time as well); several sources need a directory ("cp: 'DEST' not directory").
* `mv [-fnv] SRC... DEST`: rename(2) on the device; "mv: bad 'SRC': <strerror>".
* `ln [-sfnTv] [-t DIR] TARGET... LINK`: "ln: cannot create symbolic link from 'T' to 'L':
  <strerror>" (hard link likewise); -f replaces.
* `tee [-a] FILE...`: stdout and every file, as it arrives; "tee: FILE: <strerror>", status 1.
* `dd if= of= bs= ibs= obs= count= skip= seek= conv=notrunc status=none|noxfer`: the
  `N+M records in`/`N+M records out` and `BYTES bytes (H) copied, S s, RATE/s` summary on
  stderr, as toybox's status() writes it.
* `du [-askhd N]`: 1 KiB units (st_blocks * 512, rounded up), a tab, the path; directories after
  their contents.
* `df [-hka] [FILE...]`: the mount table's sizes in toybox's columns (widths measured, the first
  at least 14 wide); synthetic file systems only with -a.
* `mount` (no arguments): `DEVICE on DIR type TYPE (OPTIONS)` per mount; mounting anything is
  refused as for the shell user ("mount: permission denied (are you root?)").
"""

from __future__ import annotations

import contextlib
import posixpath
import stat as stat_module
import time

from pytest_mobile_agent.virtual.kernel import mounts
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.creds import cred_of
from pytest_mobile_agent.virtual.kernel.fs import FileSystem
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.streams import OpenFile
from pytest_mobile_agent.virtual.kernel.system import System, SystemProgram
from pytest_mobile_agent.virtual.programs.common import split_flags, strerror

# --- cp, mv, ln ---------------------------------------------------------------------------------


class _Copier:
    def __init__(self, fs: FileSystem, proc: pm.Process, flags: set[str], tool: str) -> None:
        self.fs = fs
        self.proc = proc
        self.cred = cred_of(proc)
        self.flags = flags
        self.tool = tool
        self.recursive = bool(flags & set("rRa"))
        self.keep = bool(flags & set("pa"))
        self.no_deref = bool(flags & set("Pda"))
        self.status = 0

    def fail(self, text: str) -> None:
        self.proc.stderr.write(f"{self.tool}: {text}\n")
        self.status = 1

    def copy(self, source: str, target: str, shown_target: str) -> None:
        try:
            info = self.fs.stat(source, self.cred, follow=not self.no_deref)
        except OSError as exc:
            self.fail(f"bad '{source}': {strerror(exc)}")
            return
        if stat_module.S_ISLNK(info.mode):
            self._copy_link(source, target, shown_target)
        elif info.is_dir:
            self._copy_dir(source, target, shown_target, info.mode)
        else:
            self._copy_file(source, target, shown_target, info.mode, info.mtime)

    def _copy_file(self, source: str, target: str, shown: str, mode: int, mtime: int) -> None:
        try:
            data = self.fs.read_file(source, self.cred)
        except OSError as exc:
            self.fail(f"{source}: {strerror(exc)}")
            return
        existed = self.fs.lexists(target, self.cred)
        if existed and "n" in self.flags:
            return
        try:
            self.fs.write_file(target, data, self.cred, mode=mode & 0o777)
        except OSError as exc:
            if "f" in self.flags and existed:
                try:
                    self.fs.unlink(target, self.cred)
                    self.fs.write_file(target, data, self.cred, mode=mode & 0o777)
                except OSError as again:
                    self.fail(f"{shown}: {strerror(again)}")
                    return
            else:
                self.fail(f"{shown}: {strerror(exc)}")
                return
        if self.keep or not existed:
            self._chmod(target, mode & 0o7777)
        if self.keep:
            self.fs.set_mtime(target, float(mtime), self.cred)
        if "v" in self.flags:
            self.proc.stdout.write(f"{self.tool} '{shown}'\n")

    def _chmod(self, target: str, mode: int) -> None:
        with contextlib.suppress(OSError):  # not the owner: the mode stays what creation gave
            self.fs.chmod(target, mode, self.cred)

    def _copy_link(self, source: str, target: str, shown: str) -> None:
        try:
            self.fs.symlink(self.fs.readlink(source, self.cred), target, self.cred)
        except OSError as exc:
            self.fail(f"{shown}: {strerror(exc)}")

    def _copy_dir(self, source: str, target: str, shown: str, mode: int) -> None:
        if not self.recursive:
            missing = "" if self.fs.exists(target, self.cred) else ": No such file or directory"
            self.fail(f"Skipped dir '{shown}'{missing}")
            return
        if not self.fs.exists(target, self.cred):
            try:
                self.fs.mkdir(target, self.cred, 0o777)
            except OSError as exc:
                self.fail(f"{shown}: {strerror(exc)}")
                return
        try:
            names = self.fs.listdir(source, self.cred)
        except OSError as exc:
            self.fail(f"{source}: {strerror(exc)}")
            return
        for name in names:
            self.copy(f"{source.rstrip('/')}/{name}", f"{target.rstrip('/')}/{name}", f"{shown.rstrip('/')}/{name}")
        self._chmod(target, mode & 0o7777)


Move = tuple[str, str, str, str]  # (source path, target path, target as shown, source as given)


def _sources_and_targets(fs: FileSystem, proc: pm.Process, tool: str) -> tuple[set[str], list[Move]] | None:
    """cp's and mv's command line: the flags and, for each source, where it goes (into DEST when
    DEST is a directory); None after the tool's message when the line cannot work."""
    flags, operands = split_flags(proc.argv)
    if len(operands) < 2:
        proc.stderr.write(f"{tool}: Needs 2 arguments\n")
        return None
    plan = _targets(fs, proc, operands, tool)
    if plan is None:
        return None
    return flags, [(*move, given) for move, given in zip(plan, operands, strict=False)]


def _targets(fs: FileSystem, proc: pm.Process, operands: list[str], tool: str) -> list[tuple[str, str, str]] | None:
    """(source, target, shown target) for each source: into DEST when it is a directory."""
    cred = cred_of(proc)
    *sources, dest = operands
    dest_path = fs.normalize(dest, proc.cwd)
    into = fs.exists(dest_path, cred) and fs.stat(dest_path, cred).is_dir
    if len(sources) > 1 and not into:
        proc.stderr.write(f"{tool}: '{dest}' not directory\n")
        return None
    out = []
    for source in sources:
        name = posixpath.basename(source.rstrip("/")) or source
        target = posixpath.join(dest_path, name) if into else dest_path
        shown = posixpath.join(dest, name) if into else dest
        out.append((fs.normalize(source, proc.cwd), target, shown))
    return out


def cp(system: System, proc: pm.Process) -> int:
    line = _sources_and_targets(system.fs, proc, "cp")
    if line is None:
        return 1
    flags, moves = line
    copier = _Copier(system.fs, proc, flags, "cp")
    for source, target, shown, given in moves:
        if not system.fs.lexists(source, copier.cred):
            copier.fail(f"bad '{given}': No such file or directory")
            continue
        copier.copy(source, target, shown)
    return copier.status


def mv(system: System, proc: pm.Process) -> int:
    line = _sources_and_targets(system.fs, proc, "mv")
    if line is None:
        return 1
    flags, moves = line
    cred = cred_of(proc)
    status = 0
    for source, target, shown, given in moves:
        if "n" in flags and system.fs.lexists(target, cred):
            continue
        try:
            system.fs.rename(source, target, cred)
        except OSError as exc:
            proc.stderr.write(f"mv: bad '{given}': {strerror(exc)}\n")
            status = 1
            continue
        if "v" in flags:
            proc.stdout.write(f"mv '{shown}'\n")
    return status


def ln(system: System, proc: pm.Process) -> int:
    fs = system.fs
    args = proc.argv[1:]
    flags: set[str] = set()
    into: str | None = None
    operands: list[str] = []
    while args:
        arg = args.pop(0)
        if arg == "-t" and args:
            into = args.pop(0)
        elif arg.startswith("-") and len(arg) > 1:
            flags.update(arg[1:])
        else:
            operands.append(arg)
    if not operands:
        proc.stderr.write("ln: Needs 1 argument\n")
        return 1
    cred = cred_of(proc)
    dest = into if into is not None else (operands.pop() if len(operands) > 1 else ".")
    dest_path = fs.normalize(dest, proc.cwd)
    is_dir = (fs.exists(dest_path, cred) and fs.stat(dest_path, cred, follow="n" not in flags).is_dir
              and "T" not in flags)
    if len(operands) > 1 and not is_dir:
        proc.stderr.write(f"ln: '{dest}' not a directory\n")
        return 1
    kind = "symbolic" if "s" in flags else "hard"
    status = 0
    for target in operands:
        new = posixpath.join(dest, posixpath.basename(target.rstrip("/"))) if is_dir else dest
        new_path = fs.normalize(new, proc.cwd)
        try:
            if "f" in flags and fs.lexists(new_path, cred) and not fs.stat(new_path, cred, follow=False).is_dir:
                fs.unlink(new_path, cred)
            if "s" in flags:
                fs.symlink(target, new_path, cred)
            else:
                fs.link(fs.normalize(target, proc.cwd), new_path, cred)
        except OSError as exc:
            proc.stderr.write(f"ln: cannot create {kind} link from '{target}' to '{new}': {strerror(exc)}\n")
            status = 1
            continue
        if "v" in flags:
            proc.stderr.write(f"'{new}' -> '{target}'\n")
    return status


# --- tee, dd -----------------------------------------------------------------------------------


def tee(system: System, proc: pm.Process) -> int:
    flags, operands = split_flags(proc.argv)
    if "i" in flags:
        proc.signals.ignore(pm.SIGINT)
    cred = cred_of(proc)
    status = 0
    files = []
    for name in operands:
        try:
            files.append(system.fs.open(system.fs.normalize(name, proc.cwd), cred, read=False, write=True,
                                        create=True, truncate="a" not in flags, append="a" in flags))
        except OSError as exc:
            proc.stderr.write(f"tee: {name}: {strerror(exc)}\n")
            status = 1
    try:
        while data := proc.stdin.read():
            for file in files:
                file.write(data, proc)
            proc.stdout.write(data)
    finally:
        with proc.kernel.lock:
            for file in files:
                file.release()
    return status


SUFFIXES = {"c": 1, "w": 2, "b": 512, "k": 1024, "K": 1024, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30}


def _number(text: str) -> int:
    """toybox's atolx: digits with a c/w/b/k/m/g suffix (and xN products)."""
    total = 1
    for part in text.split("x"):
        scale = SUFFIXES.get(part[-1:], 0)
        digits = part[:-1] if scale else part
        if not is_decimal(digits):
            raise ValueError(text)
        total *= int(digits) * (scale or 1)
    return total


def human(value: int, *, spaced: bool = False, bytes_unit: bool = False) -> str:
    """toybox's human_readable: three digits at most, 1024 steps, `1.2K` below 10."""
    unit = 0
    snap = value
    while len(str(value)) > 3:
        snap = value
        value = (value + 512) // 1024
        unit += 1
    text = str(value)
    if unit and len(text) == 1:
        whole, rest = divmod(snap, 1024)
        text = f"{whole}.{((rest * 100) + 50) // 1024 // 10}"
    if spaced:
        text += " "
    if unit:
        text += " KMGTPEZY"[unit]
    elif bytes_unit:
        text += "B"
    return text


DD_OPERANDS = ("if", "of", "bs", "ibs", "obs", "count", "skip", "seek", "conv", "status", "iflag", "oflag")


def dd(system: System, proc: pm.Process) -> int:
    fs = system.fs
    settings: dict[str, str] = {}
    for arg in proc.argv[1:]:
        key, sep, value = arg.partition("=")
        if not sep or key not in DD_OPERANDS:
            proc.stderr.write(f"dd: unknown argument '{arg}'\n")
            return 1
        settings[key] = value
    try:
        ibs = _number(settings.get("ibs", settings.get("bs", "512")))
        obs = _number(settings.get("obs", settings.get("bs", "512")))
        count = _number(settings["count"]) if "count" in settings else None
        skip = _number(settings.get("skip", "0"))
        seek = _number(settings.get("seek", "0"))
    except ValueError as exc:
        proc.stderr.write(f"dd: bad number '{exc}'\n")
        return 1
    cred = cred_of(proc)
    conv = set(filter(None, settings.get("conv", "").split(",")))
    try:
        source = fs.open(fs.normalize(settings["if"], proc.cwd), cred) if "if" in settings else proc.fd(0).dup()
    except OSError as exc:
        proc.stderr.write(f"dd: {settings['if']}: {strerror(exc)}\n")
        return 1
    started = time.monotonic()
    try:
        data, full_in, part_in = _read_blocks(proc, source, ibs, count, skip)
    finally:
        with proc.kernel.lock:
            source.release()
    full_out, part_out = divmod(len(data), obs)
    if "of" in settings:
        path = fs.normalize(settings["of"], proc.cwd)
        try:
            old = fs.read_file(path, cred) if "notrunc" in conv and fs.exists(path, cred) else b""
            offset = seek * obs
            merged = old[:offset].ljust(offset, b"\0") + data
            if "notrunc" in conv:
                merged += old[len(merged):]
            fs.write_file(path, merged, cred)
        except OSError as exc:
            proc.stderr.write(f"dd: {settings['of']}: {strerror(exc)}\n")
            return 1
    else:
        proc.stdout.write(data)
    _dd_status(proc, settings.get("status", ""), full_in, part_in, full_out, 1 if part_out else 0, len(data), started)
    return 0


def _read_blocks(proc: pm.Process, source: OpenFile, ibs: int, count: int | None, skip: int) -> tuple[bytes, int, int]:
    """The input blocks after `skip`, at most `count` of them: (data, full reads, partial reads).
    Each block is one read(2) of up to ibs bytes, as dd's; a short read is a partial record."""
    out = bytearray()
    full = part = 0
    for _ in range(skip):  # skip reads and drops, on a pipe as on a file
        if not source.read(ibs, proc, None):
            break
    while count is None or full + part < count:
        block = source.read(ibs, proc, None) or b""
        if not block:
            break
        out += block
        if len(block) == ibs:
            full += 1
        else:
            part += 1
    return bytes(out), full, part


def _dd_status(proc: pm.Process, status: str, full_in: int, part_in: int, full_out: int, part_out: int,
               size: int, started: float) -> None:
    if status == "none":
        return
    text = f"{full_in}+{part_in} records in\n{full_out}+{part_out} records out\n"
    if status != "noxfer":
        elapsed_ms = max(1, int((time.monotonic() - started) * 1000))
        rate = size * 1000 // elapsed_ms if size * 1000 > size else size // ((elapsed_ms + 999) // 1000)
        text += (f"{size} bytes ({human(size, spaced=True, bytes_unit=True)}) copied, "
                 f"{elapsed_ms // 1000}.{elapsed_ms % 1000:03d} s, {human(rate, spaced=True, bytes_unit=True)}/s\n")
    proc.stderr.write(text)


# --- du, df, mount -----------------------------------------------------------------------------


def du(system: System, proc: pm.Process) -> int:
    fs = system.fs
    args = proc.argv[1:]
    flags: set[str] = set()
    depth_limit: int | None = None
    names: list[str] = []
    while args:
        arg = args.pop(0)
        if arg == "-d" and args:
            depth_limit = int(args.pop(0))
        elif arg.startswith("-") and len(arg) > 1:
            flags.update(arg[1:])
        else:
            names.append(arg)
    cred = cred_of(proc)
    status = 0
    lines: list[str] = []

    def show(blocks: int, path: str, depth: int) -> None:
        if depth_limit is not None and depth > depth_limit:
            return
        size = blocks * 512
        lines.append(f"{human(size) if 'h' in flags else (size >> 10) + (1 if size & 1023 else 0)}\t{path}")

    def walk(path: str, shown: str, depth: int) -> int:
        nonlocal status
        try:
            info = fs.stat(path, cred, follow=False)
        except OSError as exc:
            proc.stderr.write(f"du: {shown}: {strerror(exc)}\n")
            status = 1
            return 0
        total = info.blocks
        if info.is_dir:
            try:
                children = fs.listdir(path, cred)
            except OSError as exc:
                proc.stderr.write(f"du: {shown}: {strerror(exc)}\n")
                status = 1
                children = []
            for name in children:
                total += walk(f"{path.rstrip('/')}/{name}", f"{shown.rstrip('/')}/{name}", depth + 1)
        if depth == 0 or "a" in flags or (info.is_dir and "s" not in flags):
            show(total, shown, depth)
        return total

    for name in names or ["."]:
        walk(fs.normalize(name, proc.cwd), name, 0)
    if lines:
        proc.stdout.write("\n".join(lines) + "\n")
    return status


def df(system: System, proc: pm.Process) -> int:
    fs = system.fs
    flags, operands = split_flags(proc.argv)
    cred = cred_of(proc)
    status = 0
    chosen: list[mounts.Mount] = []
    if operands:
        for name in operands:
            path = fs.normalize(name, proc.cwd)
            try:
                fs.stat(path, cred)
                canonical = fs.realpath(path, cred)
            except OSError as exc:
                proc.stderr.write(f"df: '{name}': {strerror(exc)}\n")
                status = 1
                continue
            chosen.append(mounts.mount_of(canonical))
    else:
        chosen = [m for m in mounts.MOUNTS if m.blocks or "a" in flags]
    human_sizes = "h" in flags
    head = ["Filesystem", "Size" if human_sizes else "1K-blocks", "Used", "Avail" if human_sizes else "Available",
            "Use%", "Mounted on"]
    rows = []
    for mount in chosen:
        sizes = [mount.blocks, mount.used, mount.available]
        cells = [human(v * 1024) if human_sizes else str(v) for v in sizes]
        total = mount.used + mount.available
        percent = -(-mount.used * 100 // total) if total else 0
        rows.append([mount.device, *cells, f"{percent}%", mount.directory])
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(5)]
    widths[0] = max(widths[0], 14 + human_sizes)
    out = []
    for row in [head, *rows]:
        out.append(f"{row[0]:<{widths[0]}}" + "".join(f" {row[i]:>{widths[i]}}" for i in range(1, 5)) + f" {row[5]}")
    proc.stdout.write("\n".join(out) + "\n")
    return status


def mount(system: System, proc: pm.Process) -> int:
    flags, operands = split_flags(proc.argv)
    if operands or "a" in flags:
        proc.stderr.write("mount: permission denied (are you root?)\n" if proc.uid
                          else "mount: not modelled on the virtual device\n")
        return 1
    proc.stdout.write("".join(f"{m.device} on {m.directory} type {m.kind} ({m.options})\n" for m in mounts.MOUNTS))
    return 0


PROGRAMS: dict[str, SystemProgram] = {
    "cp": cp, "mv": mv, "ln": ln, "tee": tee, "dd": dd, "du": du, "df": df, "mount": mount,
}

