"""What the tools share: a device path from an argument, toybox's error lines, its flags."""

from __future__ import annotations

import errno
import os

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.fs import FileSystem


def device_path(proc: pm.Process, arg: str) -> str:
    """An argument as a canonical device path, relative to the process's working directory."""
    return FileSystem.normalize(arg, proc.cwd)


def fail(proc: pm.Process, tool: str, what: str, exc: OSError) -> None:
    """toybox's `TOOL: WHAT: <strerror>` on standard error."""
    proc.stderr.write(f"{tool}: {what}: {exc.strerror or exc}\n")


def strerror(exc: OSError) -> str:
    return exc.strerror or os.strerror(exc.errno or errno.EIO)


def split_flags(argv: list[str]) -> tuple[set[str], list[str]]:
    """toybox's short flags anywhere on the line, `--` ending them."""
    flags: set[str] = set()
    operands: list[str] = []
    only = False
    for arg in argv[1:]:
        if only or arg == "-" or not arg.startswith("-"):
            operands.append(arg)
        elif arg == "--":
            only = True
        else:
            flags.update(arg[1:])
    return flags, operands
