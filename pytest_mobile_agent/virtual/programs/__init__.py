"""The programs the device's shell can run: toybox, the Android tools, and what other parts register.

`device.programs.register(name, fn)` adds one: `fn(proc) -> int` runs on the process's own
thread (see virtual/process.py for what `proc` offers). A name resolves the same with or without
one of the directories of `search_path` (`sleep`, `/system/bin/sleep`).
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_mobile_agent.virtual.process import Process

Program = Callable[[Process], int]

SEARCH_PATH = (
    "/product/bin",
    "/apex/com.android.runtime/bin",
    "/apex/com.android.art/bin",
    "/system_ext/bin",
    "/system/bin",
    "/system/xbin",
    "/odm/bin",
    "/vendor/bin",
    "/vendor/xbin",
)


class ProgramRegistry:
    """Name -> program; `register` replaces an existing one (the last registration wins)."""

    search_path = frozenset(SEARCH_PATH)

    def __init__(self) -> None:
        self._programs: dict[str, Program] = {}

    def register(self, name: str, fn: Program) -> None:
        if not name or "/" in name:
            raise ValueError(f"a program name is a plain file name, got {name!r}")
        self._programs[name] = fn

    def unregister(self, name: str) -> None:
        self._programs.pop(name, None)

    def get(self, name: str) -> Program | None:
        return self._programs.get(name)

    def names(self) -> list[str]:
        return sorted(self._programs)

    def __contains__(self, name: object) -> bool:
        return name in self._programs
