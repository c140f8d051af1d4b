"""The programs the device's shell can run (toybox, the Android tools, the shell itself: see
virtual/programs/), by name, and where they appear in /system/bin.

`ProgramRegistry.register(name, fn)` adds one: `fn(proc) -> int` runs on the process's own thread
(see virtual/kernel/process.py for what `proc` offers). A name resolves the same with or without
one of the directories of `search_path` (`sleep`, `/system/bin/sleep`). Each registered name also
appears in /system/bin, as the image lays it out: toybox's applets as links to `toybox`
(`ls -> toybox`), `sh` as a link to `mksh`, the other tools as executables of their own.
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_mobile_agent.virtual.kernel.fs import FileSystem
from pytest_mobile_agent.virtual.kernel.process import Process

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


# The commands toybox provides on Android 16 that this device has (the rest of /system/bin are
# programs of their own: mksh, iproute2's ip, one-true-awk's awk, the framework tools).
TOYBOX_APPLETS = frozenset({
    "base64", "basename", "cat", "chmod", "cmp", "cp", "cut", "date", "dd", "df", "dirname", "du",
    "echo", "env", "false", "find", "getprop", "grep", "head", "id", "ifconfig", "kill", "ln", "ls",
    "md5sum", "mkdir", "mount", "mv", "nc", "netcat", "nohup", "od", "pgrep", "pidof", "ps", "rm",
    "sed", "seq", "setprop", "setsid", "sha1sum", "sha256sum", "sleep", "sort", "stat", "tail",
    "tee", "timeout", "touch", "tr", "true", "tty", "uname", "uniq", "wc", "which", "whoami",
    "xargs",
})

OnRegister = Callable[[str], None]


class ProgramRegistry:
    """Name -> program; `register` replaces an existing one (the last registration wins)."""

    search_path = frozenset(SEARCH_PATH)

    def __init__(self) -> None:
        self._programs: dict[str, Program] = {}
        self.on_register: list[OnRegister] = []  # the device lays each new name out in /system/bin

    def register(self, name: str, fn: Program) -> None:
        if not name or "/" in name:
            raise ValueError(f"a program name is a plain file name, got {name!r}")
        fresh = name not in self._programs
        self._programs[name] = fn
        if fresh:
            for hook in self.on_register:
                hook(name)

    def unregister(self, name: str) -> None:
        self._programs.pop(name, None)

    def get(self, name: str) -> Program | None:
        return self._programs.get(name)

    def names(self) -> list[str]:
        return sorted(self._programs)

    def __contains__(self, name: object) -> bool:
        return name in self._programs


ELF_STUB = b"\x7fELF\x02\x01\x01" + bytes(57)  # an x86_64 ELF header's first bytes: `sh` refuses to read it as a script
SHELL_GID = 2000


def lay_out_in_system_bin(fs: FileSystem, name: str) -> None:
    """/system/bin/NAME as the image has it: a link to toybox for its applets, else an executable
    owned by root:shell, mode 0755 (what `ls -l /system/bin` shows on the emulator)."""
    path = f"/system/bin/{name}"
    if fs.exists(path) or fs.lexists(path):
        return
    if name in TOYBOX_APPLETS:
        fs.add_symlink(path, "toybox", 0, SHELL_GID)
    else:
        fs.add_file(path, ELF_STUB, 0o755, 0, SHELL_GID)

