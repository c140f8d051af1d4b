"""The emulator's discovery files: where they are, what they say, and which one is an emulator's.

A running emulator advertises itself in `pid_<pid>.ini` (one `key=value` per line, no section, key
order undefined), named after its engine process, in a per-user directory that depends on the OS.
Files of emulators that died without removing them are ignored: a file counts only while its
process runs.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pytest_mobile_agent.userfiles import read_small_file

log = logging.getLogger("pytest_mobile_agent.emulator")

DISCOVERY_DIR_ENV = "MOBILE_AGENT_AVD_DISCOVERY_DIR"
FILE_PATTERN = re.compile(r"pid_(\d+)\.ini")
MAX_FILE_BYTES = 1 << 20  # a discovery file is a few hundred bytes; refuse to read a huge one


def candidate_dirs(
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
    uid: int | None = None,
    run_user_root: Path = Path("/run/user"),
) -> list[Path]:
    """Directories where emulators write discovery files, most likely first.

    `MOBILE_AGENT_AVD_DISCOVERY_DIR` replaces them all (tests and the virtual device use it).
    Otherwise: the emulator's own directory for the OS (ConfigDirs::getDiscoveryDirectory), then the
    per-user `.android` directories the emulator's Python client also scans.
    """
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    override = env.get(DISCOVERY_DIR_ENV, "").strip()
    if override:
        return [Path(override)]
    if platform.startswith("win"):
        dirs = _windows_dirs(env)
    elif platform == "darwin":
        dirs = _macos_dirs(env)
    else:
        dirs = _linux_dirs(env, uid, run_user_root)
    return _unique([*dirs, *(d / "avd" / "running" for d in _user_dirs(env))])


def _linux_dirs(env: Mapping[str, str], uid: int | None, run_user_root: Path) -> list[Path]:
    runtime = env.get("XDG_RUNTIME_DIR", "").strip()
    if runtime:
        return [Path(runtime) / "avd" / "running"]
    if uid is None:
        uid = os.getuid() if hasattr(os, "getuid") else 0
    run_user = run_user_root / str(uid)
    if run_user.is_dir():
        return [run_user / "avd" / "running"]
    return []  # the emulator falls back to <user dir>/avd/running, listed by the caller


def _macos_dirs(env: Mapping[str, str]) -> list[Path]:
    home = _home(env)
    return [home / "Library" / "Caches" / "TemporaryItems" / "avd" / "running"] if home else []


def _windows_dirs(env: Mapping[str, str]) -> list[Path]:
    local = env.get("LOCALAPPDATA", "").strip()
    dirs = [Path(local) / "Temp" / "avd" / "running"] if local else []
    profile = env.get("USERPROFILE", "").strip()
    if profile:
        dirs.append(Path(profile) / ".android" / "avd" / "running")
    return dirs


def _user_dirs(env: Mapping[str, str]) -> list[Path]:
    """ConfigDirs::getUserDirectory's candidates, in its order, then $ANDROID_AVD_HOME's parent."""
    dirs: list[Path] = []
    emulator_home = env.get("ANDROID_EMULATOR_HOME", "").strip()
    if emulator_home:
        dirs.append(Path(emulator_home))
    for name in ("ANDROID_PREFS_ROOT", "ANDROID_SDK_HOME"):
        value = env.get(name, "").strip()
        if value:
            root = Path(value)
            dirs.append(root / ".android" if (root / ".android").is_dir() else root)
    avd_home = env.get("ANDROID_AVD_HOME", "").strip()
    if avd_home:
        dirs.append(Path(avd_home))
    home = _home(env)
    if home:
        dirs.append(home / ".android")
    return dirs


def _home(env: Mapping[str, str]) -> Path | None:
    value = env.get("HOME", "").strip() or env.get("USERPROFILE", "").strip()
    return Path(value) if value else None


def _unique(paths: Iterable[Path]) -> list[Path]:
    seen: set[Path] = set()
    out = []
    for path in paths:
        if path not in seen:
            seen.add(path)
            out.append(path)
    return out


def parse_ini(data: bytes | str) -> dict[str, str]:
    """`key=value` lines, split at the first `=`; lines without one and empty keys are skipped.

    Values are kept verbatim (the command line holds quotes, spaces and `=`). Never raises.
    """
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    props: dict[str, str] = {}
    for line in text.split("\n"):  # only \n ends a line: a value may hold any other character
        key, sep, value = line.partition("=")
        key = key.strip()
        if sep and key:
            props[key] = value.removesuffix("\r")
    return props


@dataclass(frozen=True)
class DiscoveryFile:
    """One emulator's advertisement, as its `pid_<pid>.ini` says."""

    path: Path
    pid: int
    props: Mapping[str, str] = field(repr=False)
    mtime: float = 0.0

    @property
    def console_port(self) -> int | None:
        return _port(self.props.get("port.serial"))

    @property
    def adb_port(self) -> int | None:
        return _port(self.props.get("port.adb"))

    @property
    def grpc_port(self) -> int | None:
        return _port(self.props.get("grpc.port"))

    @property
    def grpc_token(self) -> str | None:
        return self.props.get("grpc.token", "").strip() or None

    @property
    def uses_jwt(self) -> bool:
        """The emulator wants signed JWTs (no `-grpc-use-token`), which this driver does not make."""
        return bool(self.props.get("grpc.jwks") or self.props.get("grpc.jwk_active"))

    @property
    def avd_name(self) -> str:
        return self.props.get("avd.name", "")

    @property
    def emulator_version(self) -> str:
        return self.props.get("emulator.version", "")


def _port(value: str | None) -> int | None:
    if value is None:
        return None
    value = value.strip()
    if not value.isdigit() or not value.isascii():
        return None
    port = int(value)
    return port if 0 < port < 65536 else None


def pid_alive(pid: int) -> bool:
    """True while a process with this pid runs (signal 0 on POSIX, OpenProcess on Windows)."""
    if pid <= 0:
        return False
    if sys.platform.startswith("win"):
        return _windows_pid_alive(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it runs, as another user
    except (OSError, OverflowError):  # OverflowError: a pid past pid_t in a file's name
        return False
    return True


def _windows_pid_alive(pid: int) -> bool:  # pragma: no cover - exercised on Windows only
    import ctypes

    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return False
    try:
        code = ctypes.c_ulong()
        kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def read_file(path: Path) -> DiscoveryFile | None:
    """The discovery file at `path`, or None when its name is not `pid_<pid>.ini` or it cannot be read."""
    match = FILE_PATTERN.fullmatch(path.name)
    if match is None:
        return None
    try:
        data = read_small_file(path, MAX_FILE_BYTES)  # a FIFO, a symlink or a huge file is refused
        mtime = path.stat().st_mtime
    except OSError as exc:
        log.debug("ignoring %s: %s", path, exc.strerror or exc)
        return None
    return DiscoveryFile(path=path, pid=int(match.group(1)), props=parse_ini(data), mtime=mtime)


def scan(dirs: Iterable[Path] | None = None, *, live_only: bool = True) -> list[DiscoveryFile]:
    """Every readable discovery file in `dirs` (default `candidate_dirs()`), newest first.

    With `live_only`, files whose process no longer runs are left out.
    """
    files: list[DiscoveryFile] = []
    for directory in candidate_dirs() if dirs is None else dirs:
        try:
            entries = sorted(directory.iterdir())
        except OSError:
            continue
        for path in entries:
            found = read_file(path)
            if found is None:
                continue
            if live_only and not pid_alive(found.pid):
                log.debug("ignoring %s: process %d no longer runs", path, found.pid)
                continue
            files.append(found)
    files.sort(key=lambda f: f.mtime, reverse=True)
    return files


def find(console_port: int, dirs: Iterable[Path] | None = None) -> DiscoveryFile | None:
    """The newest live discovery file whose `port.serial` is `console_port`, or None."""
    matching = find_all(console_port, dirs)
    return matching[0] if matching else None


def find_all(console_port: int, dirs: Iterable[Path] | None = None) -> list[DiscoveryFile]:
    """Every live discovery file whose `port.serial` is `console_port`, newest first: on one host
    an emulator's console port is its own, but a served virtual device, or an emulator of another
    adb server's, may claim the same one."""
    return [found for found in scan(dirs) if found.console_port == console_port]
