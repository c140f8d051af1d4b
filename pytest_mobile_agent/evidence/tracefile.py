"""The step trace's file: one zip per test, `trace.json` and the images and trees it names
(docs/trace-format.md has the whole format, versioned).

The plugin writes it (evidence/trace.py) and the viewer reads it (cli/trace_viewer); both sit above
the stack, so the format is written once, here. `write_trace` writes a complete file or none: the
zip is built under a temporary name beside the final one and renamed over it, so a worker that
dies halfway leaves no half-written trace. `read_trace` checks everything the viewer draws before
it draws anything: a truncated, foreign or newer file is an `InvalidTrace` saying which.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_mobile_agent.errors import MobileAgentError
from pytest_mobile_agent.mirror.steps import Source

FORMAT = "pytest-mobile-agent-trace"
VERSION = 1
MANIFEST = "trace.json"
IMAGE_DIR = "images/"
TREE_DIR = "trees/"
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
MAX_MEMBERS = 20_000
OUTCOMES = ("passed", "failed", "skipped")
TRACE_NAME = re.compile(r"trace(-gw\d+)?\.zip")  # trace.zip, or trace-gwN.zip under xdist
MAX_LISTED = 20


class InvalidTrace(MobileAgentError):
    """The file is not a trace this version can show: truncated, foreign, or written by a newer one."""


@dataclass(frozen=True)
class LoadedTrace:
    """A checked trace: its document and the zip's member names (read on demand)."""

    path: Path
    document: dict[str, Any]
    members: frozenset[str]

    @property
    def steps(self) -> list[dict[str, Any]]:
        return list(self.document["steps"])

    def member(self, name: str) -> bytes:
        if name not in self.members:
            raise InvalidTrace(f"{self.path}: the trace has no member {name!r}")
        with zipfile.ZipFile(self.path) as archive:
            return archive.read(name)


def source_entry(source: Source | None, root: Path | None = None) -> dict[str, Any] | None:
    """A step's `source` as the format writes it (`{"file", "line"}`, the file relative to `root`,
    the rootdir, when it is under it), from the step's `mirror.steps.Source`; None without one."""
    if source is None:
        return None
    file = Path(source.file)
    if root is not None:
        with contextlib.suppress(ValueError):
            file = file.resolve().relative_to(root.resolve())
    return {"file": file.as_posix(), "line": source.line}


def traces_in(folder: Path) -> list[Path]:
    """The traces under `folder` (a test's artifacts folder, or the run's): every `trace.zip` and
    `trace-gwN.zip` at any depth, the newest first. A partial one being written is not a trace."""
    found = [path for path in folder.rglob("trace*.zip")
             if path.is_file() and TRACE_NAME.fullmatch(path.name)]
    return sorted(found, key=lambda path: (-path.stat().st_mtime, str(path)))


def locate_trace(path: str | os.PathLike[str]) -> Path:
    """The one trace `path` names: the file itself, or the only trace in a folder; InvalidTrace
    naming them (the newest first) when the folder holds several, or saying it holds none."""
    where = Path(path)
    if not where.is_dir():
        return where
    found = traces_in(where)
    if not found:
        raise InvalidTrace(f"{where} holds no trace (no trace.zip or trace-gwN.zip in it or below it)",
                           advice="a failed test's report names its trace.zip; --android-trace on keeps every "
                                  "test's")
    if len(found) > 1:
        shown = "\n".join(f"  {trace}" for trace in found[:MAX_LISTED])
        more = f"\n  ... and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else ""
        raise InvalidTrace(f"{where} holds {len(found)} traces, the newest first:\n{shown}{more}",
                           advice="pass the one to open")
    return found[0]


def write_trace(path: Path, document: Mapping[str, Any], files: Mapping[str, bytes]) -> None:
    """Write the zip (the manifest deflated, the images stored: they are compressed already) under
    a temporary name, then rename it to `path`: readers see a whole trace or none. Raises OSError."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.partial")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as raw, zipfile.ZipFile(raw, "w") as archive:
            archive.writestr(MANIFEST, json.dumps(document, ensure_ascii=False), zipfile.ZIP_DEFLATED)
            for name, data in files.items():
                archive.writestr(name, data, zipfile.ZIP_DEFLATED if name.endswith(".json") else zipfile.ZIP_STORED)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read_trace(path: str | os.PathLike[str]) -> LoadedTrace:
    """The trace at `path`, checked whole (every member's CRC, the manifest's shape, the members
    it names); InvalidTrace otherwise, with what is wrong."""
    where = Path(path)
    if not where.is_file():
        raise InvalidTrace(f"{where}: no such file", advice="pass the trace.zip a failed test's report names")
    try:
        with zipfile.ZipFile(where) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_MEMBERS:
                raise InvalidTrace(f"{where}: {len(infos)} members, more than a trace has ({MAX_MEMBERS})")
            names = frozenset(info.filename for info in infos)
            if MANIFEST not in names:
                raise InvalidTrace(f"{where} is a zip file but not a mobile-agent trace: it has no {MANIFEST}")
            if archive.getinfo(MANIFEST).file_size > MAX_MANIFEST_BYTES:
                raise InvalidTrace(f"{where}: its {MANIFEST} is larger than {MAX_MANIFEST_BYTES} bytes")
            broken = archive.testzip()
            if broken is not None:
                raise InvalidTrace(f"{where} is damaged: its member {broken} fails its checksum")
            raw = archive.read(MANIFEST)
    except zipfile.BadZipFile as exc:
        raise InvalidTrace(f"{where} is not a whole zip file ({exc}): truncated, or not a trace") from None
    except (OSError, EOFError, zipfile.LargeZipFile) as exc:
        raise InvalidTrace(f"{where} cannot be read: {exc}") from None
    try:
        document = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidTrace(f"{where}: its {MANIFEST} is not JSON ({exc})") from None
    check_document(document, names, str(where))
    return LoadedTrace(where, document, names)


def check_document(document: Any, members: frozenset[str], where: str) -> None:
    """Raise InvalidTrace unless `document` is a version-1 trace whose every named member exists."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise InvalidTrace(f"{where} is not a mobile-agent trace (its {MANIFEST} has no format {FORMAT!r})")
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise InvalidTrace(f"{where}: its format version is {version!r}, not a number")
    if version > VERSION:
        raise InvalidTrace(f"{where} was written in trace format {version}; this version reads format {VERSION}",
                           advice="open it with the pytest-mobile-agent release that wrote it, or a newer one")
    _require(isinstance(document.get("test"), dict), where, "test", "an object")
    _require(isinstance(document["test"].get("nodeid"), str), where, "test.nodeid", "a string")
    _require(document["test"].get("outcome") in OUTCOMES, where, "test.outcome", " or ".join(OUTCOMES))
    steps = document.get("steps")
    if not isinstance(steps, list):
        raise InvalidTrace(f"{where}: steps is not a list")
    for index, step in enumerate(steps):
        _check_step(step, index, members, where)
    for key in ("logcat", "status", "missing"):
        _require(isinstance(document.get(key, []), list), where, key, "a list")
    screen = document.get("screen")
    _require(screen is None or (isinstance(screen, dict) and all(_is_int(screen.get(k)) for k in ("width", "height"))),
             where, "screen", "null or {width, height}")


def _check_step(step: Any, index: int, members: frozenset[str], where: str) -> None:
    field = f"steps[{index}]"
    _require(isinstance(step, dict), where, field, "an object")
    _require(isinstance(step.get("name"), str), where, f"{field}.name", "a string")
    _require(_is_int(step.get("depth")), where, f"{field}.depth", "an integer")
    _require(_is_number(step.get("started")), where, f"{field}.started", "a number")
    _require(step.get("ended") is None or _is_number(step["ended"]), where, f"{field}.ended", "a number or null")
    _require(isinstance(step.get("arguments", {}), dict), where, f"{field}.arguments", "an object")
    target = step.get("target")
    _require(target is None or (isinstance(target, list) and len(target) == 4 and all(map(_is_int, target))),
             where, f"{field}.target", "null or [left, top, right, bottom]")
    source = step.get("source")
    _require(source is None or (isinstance(source, dict) and isinstance(source.get("file"), str)
                                and _is_int(source.get("line"))),
             where, f"{field}.source", "null or {file, line}")
    for key in ("before", "after", "tree"):
        name = step.get(key)
        if name is None:
            continue
        _require(isinstance(name, str), where, f"{field}.{key}", "a member name")
        if name not in members:
            raise InvalidTrace(f"{where}: {field}.{key} names {name!r}, which the zip does not hold (truncated?)")


def _require(condition: bool, where: str, field: str, wanted: str) -> None:
    if not condition:
        raise InvalidTrace(f"{where}: {field} is not {wanted}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
