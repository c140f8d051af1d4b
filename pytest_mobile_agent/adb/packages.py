"""Apps on a device through its package manager: install (streamed, as `adb install` does),
uninstall, is_installed, version, clear, grant, force-stop. `Device` offers each as a method.

An install streams the APK into `cmd package install -S <size>` over `exec:` (a raw stream: no
push to a temp file, no shell protocol), the way adb's install_app_streamed does on devices
with `cmd`; the package manager answers "Success" or "Failure [CODE: message]"
(PackageManagerShellCommand.doCommitSession), which becomes `errors.PackageManagerError` naming
the code. The other commands run through the shell and read the same words.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from pytest_mobile_agent.adb import wire
from pytest_mobile_agent.adb.connection import AdbConnection
from pytest_mobile_agent.adb.shell import ShellOutput, join
from pytest_mobile_agent.errors import InvalidArgument, PackageManagerError, ProtocolError

INSTALL_TIMEOUT = 300.0  # an install dex-optimizes the app on the device: minutes for a big one
_PACKAGE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$")
_FAILURE_RE = re.compile(r"Failure \[([A-Z0-9_]+)(?::\s*(.*?))?\]\s*$", re.S)
_EXCEPTION_RE = re.compile(r"^(?:[a-z]+\.)+([A-Za-z]*Exception): (.*)$", re.M)
_MAX_REPLY = 1 << 20


class DeviceShell(Protocol):
    """What the package manager's calls need of a device (`adb.Device` is one)."""

    def shell(self, cmd: str | Iterable[str]) -> ShellOutput: ...

    def transport(self, service: str, *, deadline: float | None = None,
                  total: float | None = None) -> AdbConnection: ...


@dataclass(frozen=True)
class PackageVersion:
    code: int
    name: str | None


def check_package(package: str) -> str:
    if not _PACKAGE_RE.match(package):
        raise InvalidArgument(f"{package!r} is not a package name")
    return package


def install(device: DeviceShell, data: bytes, *, replace: bool = True, grant: bool = False, downgrade: bool = False,
            test: bool = True, timeout: float = INSTALL_TIMEOUT) -> None:
    """Stream `data` (an APK) into the package manager; PackageManagerError with its code."""
    flags = ["-r"] + (["-g"] if grant else []) + (["-d"] if downgrade else []) + (["-t"] if test else [])
    command = join(["cmd", "package", "install", *flags, "-S", str(len(data))])
    deadline = time.monotonic() + timeout
    conn = device.transport(f"exec:{command}", deadline=deadline, total=timeout)
    with conn:
        view = memoryview(data)
        for start in range(0, len(view), wire.SYNC_MAX_CHUNK):
            conn.sendall(view[start : start + wire.SYNC_MAX_CHUNK], "install", deadline=deadline, total=timeout)
        reply = bytearray()
        while len(reply) < _MAX_REPLY:
            chunk = conn.recv(65536, "install", deadline=deadline, total=timeout)
            if not chunk:
                break
            reply += chunk
    text = reply.decode("utf-8", "replace").strip()
    if text.splitlines()[-1:] == ["Success"]:
        return
    raise _failure("install", text)


def _failure(operation: str, text: str) -> PackageManagerError:
    match = _FAILURE_RE.search(text)
    if match:
        return PackageManagerError(operation, match[1], (match[2] or "").strip())
    exception = _EXCEPTION_RE.search(text)
    if exception:
        return PackageManagerError(operation, exception[1], exception[2].strip())
    if not text:
        raise ProtocolError(f"{operation}: the package manager said nothing")
    return PackageManagerError(operation, text.splitlines()[-1].strip())


def uninstall(device: DeviceShell, package: str, *, keep_data: bool = False) -> None:
    output = device.shell(["pm", "uninstall", *(["-k"] if keep_data else []), check_package(package)]).text().strip()
    if output.splitlines()[-1:] != ["Success"]:
        raise _failure(f"uninstall {package}", output)


def is_installed(device: DeviceShell, package: str) -> bool:
    output = device.shell(["pm", "path", check_package(package)])
    return output.exit_code == 0 and output.text().startswith("package:")


def apk_path(device: DeviceShell, package: str) -> str | None:
    """The installed base APK's path (`pm path`), or None."""
    output = device.shell(["pm", "path", check_package(package)])
    for line in output.text().splitlines():
        if line.startswith("package:") and line.endswith("base.apk"):
            return line.removeprefix("package:").strip()
    return None


def package_version(device: DeviceShell, package: str) -> PackageVersion | None:
    """versionCode and versionName of an installed package (`dumpsys package`), else None."""
    text = device.shell(["dumpsys", "package", check_package(package)]).text()
    block = text.split(f"Package [{package}]", 1)
    if len(block) < 2:
        return None
    code = re.search(r"\bversionCode=(\d+)", block[1])
    name = re.search(r"\bversionName=(\S*)", block[1])
    if code is None:
        return None
    return PackageVersion(int(code[1]), None if name is None or name[1] == "null" else name[1])


def apk_sha256(device: DeviceShell, package: str) -> str | None:
    """The SHA-256 of the installed base APK (toybox's sha256sum on the device), or None."""
    path = apk_path(device, package)
    if path is None:
        return None
    output = device.shell(["sha256sum", path])
    digest = output.text().split(" ", 1)[0]
    return digest if output.exit_code == 0 and re.fullmatch(r"[0-9a-f]{64}", digest) else None


def clear(device: DeviceShell, package: str) -> None:
    output = device.shell(["pm", "clear", check_package(package)])
    if output.text().strip() != "Success":
        raise PackageManagerError(
            f"clear {package}", (output.text() or output.stderr.decode(errors="replace")).strip() or "Failed"
        )


def grant(device: DeviceShell, package: str, permission: str, *, revoke: bool = False) -> None:
    verb = "revoke" if revoke else "grant"
    output = device.shell(["pm", verb, check_package(package), permission])
    if output.exit_code != 0:
        raise _failure(f"{verb} {permission} to {package}", output.text() + output.stderr.decode("utf-8", "replace"))


def force_stop(device: DeviceShell, package: str) -> None:
    device.shell(["am", "force-stop", check_package(package)])
