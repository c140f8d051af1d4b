"""One exception hierarchy for the whole package.

Every error a user can meet keeps the peer's own words (adb's FAIL text, the agent's code and
message, the controller's gRPC status) and, where there is one, says what to do next (`advice`).
A timeout is always `Timeout` (`is_timeout()` true), never a bare OSError.

The tree (tests/unit/test_errors.py holds it to the classes below; catch `MobileAgentError` for
anything the package raises, a leaf for one cause):

    MobileAgentError
    ├── Timeout
    │   └── WaitTimeout
    ├── ProtocolError
    ├── AdbError
    │   ├── ServerUnreachable
    │   ├── AdbFailure
    │   │   └── SyncFailure
    │   ├── OutputLimit
    │   ├── DeviceNotListed
    │   ├── Closed
    │   ├── InvalidArgument (also ValueError)
    │   └── PackageManagerError
    ├── AgentError
    ├── Unauthorized
    ├── VersionMismatch
    ├── Disconnected
    ├── Conflict
    ├── JarMissing
    ├── InvalidJar
    ├── StaleJar
    ├── RecordsUnwritable
    ├── DeployError
    ├── AgentBuildError
    ├── InvalidApk
    ├── UnsafeDirectory
    ├── Unavailable
    ├── ControllerError
    ├── NoMatch (also LookupError)
    ├── InvalidSelector (also ValueError, TypeError)
    ├── StaleElement
    ├── WatcherFailed (also AssertionError)
    │   └── WatcherLoop
    ├── DeviceDisturbed
    ├── StateRefused
    └── NotSupported

`AdbError` and its subclasses come from the adb client, `AgentError` to `AgentBuildError` from the
agent layer, `Unavailable` and `ControllerError` from the emulator client, `NoMatch` to
`WatcherLoop` from the screen, `DeviceDisturbed` from the plugin's disturbance policy, `StateRefused`
and `NotSupported` from the device state a test sets (control/).
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Sequence
from typing import Any

_WOULD_BLOCK = {errno.EAGAIN, errno.EWOULDBLOCK, 35}  # 35: macOS's EAGAIN ("os error 35")


class MobileAgentError(Exception):
    """Base of every error the package raises."""

    advice: str | None = None

    def __init__(self, message: str, *, advice: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if advice is not None:
            self.advice = advice

    def __str__(self) -> str:
        if self.advice and self.advice not in self.message:
            return f"{self.message}. {self.advice}"
        return self.message

    def is_timeout(self) -> bool:
        return False


def hide_our_frames(excinfo: Any) -> bool:
    """pytest's `__tracebackhide__` for the modules a test calls into (the screen, its elements, the
    app handle): our own failure (a MobileAgentError, whose message says what happened and what to
    do) is reported at the test's line, without the library's frames; any other exception, a bug,
    keeps them. `excinfo` is pytest's ExceptionInfo (or None)."""
    return excinfo is not None and isinstance(getattr(excinfo, "value", None), MobileAgentError)


class Timeout(MobileAgentError):
    """An operation passed its deadline. The message names the operation and the deadline."""

    def __init__(self, operation: str, deadline_s: float | None = None, *, detail: str = "") -> None:
        self.operation = operation
        self.deadline_s = deadline_s
        text = f"{operation} timed out"
        if deadline_s is not None:
            text += f" after its deadline of {_format_seconds(deadline_s)}"
        if detail:
            text += f" ({detail})"
        super().__init__(text)

    def is_timeout(self) -> bool:
        return True


class ProtocolError(MobileAgentError):
    """A peer sent bytes that do not follow its protocol (truncated, garbage, over a limit)."""


# --- adb -----------------------------------------------------------------------------------------


class AdbError(MobileAgentError):
    """An error talking to the adb server or to adbd through it."""


class ServerUnreachable(AdbError):
    """Nothing accepts connections at the adb server's address."""

    def __init__(self, address: str, reason: str) -> None:
        self.address = address
        super().__init__(
            f"cannot reach the adb server at {address}: {reason}",
            advice="Run `adb start-server` (or point ANDROID_ADB_SERVER_PORT / "
            "ADB_SERVER_SOCKET at a running server)",
        )


class AdbFailure(AdbError):
    """The adb server or adbd answered FAIL; `reason` is its own text, verbatim."""

    def __init__(self, request: str, reason: str, *, advice: str | None = None) -> None:
        self.request = request
        self.reason = reason
        super().__init__(f"{request}: {reason}", advice=advice)


class SyncFailure(AdbFailure):
    """adbd refused a sync request (push, stat, ...); `reason` is adbd's message."""


class OutputLimit(AdbError):
    """A command's output past the `max_output` a call buffers; stream it instead."""


class DeviceNotListed(AdbError):
    """A serial the adb server does not list, refused before a `host-serial:` request names it."""


class Closed(AdbError):
    """The stream was closed by the other side (for a service: nothing listens there)."""


class InvalidArgument(AdbError, ValueError):
    """An argument that cannot cross the wire as given (a NUL byte in a shell argument or a path)."""


# --- agent ---------------------------------------------------------------------------------------


class AgentError(MobileAgentError):
    """The agent answered a request with an error; `code` and `message` are the agent's."""

    def __init__(self, code: str, message: str, *, retryable: bool = False, method: str = "") -> None:
        self.code = code
        self.agent_message = message
        self.retryable = retryable
        self.method = method
        prefix = f"{method}: " if method else ""
        super().__init__(f"{prefix}agent error {code}: {message}")

    def is_timeout(self) -> bool:
        return self.code == "deadline_exceeded"


class Unauthorized(MobileAgentError):
    """The agent refused the token (it says nothing else, by design)."""


class VersionMismatch(MobileAgentError):
    """Host and agent share no protocol version."""


class Disconnected(MobileAgentError):
    """The agent connection ended. `reconnect_hint` says what a caller can do about it."""

    def __init__(self, message: str, *, reconnect_hint: str = "attach again to relaunch or reuse the agent") -> None:
        self.reconnect_hint = reconnect_hint
        super().__init__(message, advice=reconnect_hint)


class Conflict(MobileAgentError):
    """Another client holds UI automation (or another host's agent runs). Never taken over unasked."""

    def __init__(self, message: str, *, holder: str = "") -> None:
        self.holder = holder
        super().__init__(
            message,
            advice="Stop that client, or pass the force option (--agent-force / DeployOptions(force=True)) "
                   "to take over",
        )


class JarMissing(MobileAgentError):
    """The agent jar is not where it was expected."""


class InvalidJar(MobileAgentError):
    """The file named as the agent jar is not a jar (a zip) or a dex."""


class StaleJar(MobileAgentError):
    """The agent started from the jar reports another build than the jar's bytes."""


class RecordsUnwritable(MobileAgentError):
    """The agent record cannot be written where the records live; the message names the path."""


class DeployError(MobileAgentError):
    """The agent could not be launched or stopped."""


class AgentBuildError(MobileAgentError):
    """The agent jar cannot be built here: no SDK, no JDK, or the build itself failed."""


class InvalidApk(MobileAgentError):
    """A file named as an APK is not one a package manager would read (no zip, no manifest)."""


class PackageManagerError(AdbError):
    """The package manager refused an install, uninstall, clear or grant; `code` is its own code
    (`INSTALL_FAILED_VERSION_DOWNGRADE`, `DELETE_FAILED_INTERNAL_ERROR`, `SecurityException`, ...)."""

    def __init__(self, operation: str, code: str, detail: str = "", *, advice: str | None = None) -> None:
        self.operation = operation
        self.code = code
        self.detail = detail
        super().__init__(f"{operation}: {code}" + (f": {detail}" if detail else ""), advice=advice)


# --- the host's own files ------------------------------------------------------------------------


class UnsafeDirectory(MobileAgentError):
    """A directory the plugin keeps private files in is a symlink, not a directory, or someone
    else's: using it would let another user read our tokens or plant a jar."""


# --- emulator ------------------------------------------------------------------------------------


class Unavailable(MobileAgentError):
    """The emulator's controller cannot be used; `warning()` is the status report's line."""

    def __init__(self, serial: str, reason: str, *, console_port: int | None = None) -> None:
        self.serial = serial
        self.reason = reason
        if console_port is None and serial.startswith("emulator-") and serial[9:].isascii() and serial[9:].isdigit():
            console_port = int(serial[9:])  # the console port is the number in the serial
        self.console_port = console_port
        super().__init__(self.warning())

    def warning(self) -> str:
        port = (self.console_port or 5554) + 3000
        return (
            f"emulator control endpoint unavailable for {self.serial} ({self.reason}): taps and frames "
            f"fall back to the agent. Start the emulator with `-grpc {port} -grpc-use-token` to use the "
            f"fast path, or enable it without a restart through the emulator console command "
            f"`grpc {port}`, for example `adb -s {self.serial} emu grpc {port}`."
        )


class ControllerError(MobileAgentError):
    """A controller call failed; the message keeps the gRPC status code and details."""

    def __init__(self, message: str, *, code: str = "") -> None:
        self.code = code
        super().__init__(message)

    def is_timeout(self) -> bool:
        return self.code == "DEADLINE_EXCEEDED"


# --- mirror --------------------------------------------------------------------------------------


class NoMatch(MobileAgentError, LookupError):
    """No element of the mirror's replica matches a selector; the message shows the nearest
    candidates and the current tree."""

    def __init__(self, message: str, *, candidates: list[str] | None = None, tree: str = "") -> None:
        self.candidates = list(candidates or [])
        self.tree = tree
        super().__init__(_with_context(message, self.candidates, tree))


class WaitTimeout(Timeout):
    """A mirror wait (wait_for, wait_gone, scroll_until) passed its timeout; the message shows the
    nearest candidates and the current tree."""

    def __init__(
        self, operation: str, timeout_s: float, *, candidates: list[str] | None = None, tree: str = "",
        context: Sequence[str] = (),
    ) -> None:
        super().__init__(operation, timeout_s)
        self.candidates = list(candidates or [])
        self.tree = tree
        self.context = list(context)
        """Lines on what stood in the way: the window that took the front, the watchers that never matched."""
        self.message = _with_context("\n".join([self.message, *self.context]), self.candidates, tree)
        self.args = (self.message,)


class InvalidSelector(MobileAgentError, ValueError, TypeError):
    """A mirror call that cannot mean anything: an unknown criterion, a bad pattern, an unknown key
    or direction. A ValueError and a TypeError too, as Python's own would be."""


class StaleElement(MobileAgentError):
    """The element is no longer in the mirror's replica (its window or node went away)."""


class WatcherFailed(MobileAgentError, AssertionError):
    """A screen watcher failed the test: its reaction raised, or it was told to fail (`.fail(message)`);
    the message names the watcher. An AssertionError too, as a test's own failed check is."""

    def __init__(self, message: str, *, watcher: str = "", advice: str | None = None) -> None:
        super().__init__(message, advice=advice)
        self.watcher = watcher


class WatcherLoop(WatcherFailed):
    """A watcher kept firing: its reaction did not take away what it matches."""


def _with_context(message: str, candidates: list[str], tree: str) -> str:
    parts = [message]
    if candidates:
        parts.append("nearest candidates:\n" + "\n".join(f"  {c}" for c in candidates))
    if tree:
        parts.append("current tree:\n" + tree)
    return "\n".join(parts)


# --- pytest surface ------------------------------------------------------------------------------


class DeviceDisturbed(MobileAgentError):
    """Another user of the device got in the way of a test (foreign agent, UI automation taken,
    the fixture app moved out of the front). The plugin runs the test again once the device is quiet."""


# --- helpers -------------------------------------------------------------------------------------


# --- device state --------------------------------------------------------------------------------


class StateRefused(MobileAgentError):
    """The device refused a state change, or did not take it (read back, the state is not what was
    set): the message keeps the device's own words, the advice says what may allow it. Whatever
    else the change had set is undone first."""


class NotSupported(MobileAgentError):
    """The target cannot do this at all: a fingerprint touch or a posture on a device, the emulated
    network's speed without the emulator's console."""


def is_timeout(exc: BaseException) -> bool:
    """True for our Timeout, socket timeouts, and reads that report EAGAIN/EWOULDBLOCK."""
    if isinstance(exc, MobileAgentError):
        return exc.is_timeout()
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return True
    return isinstance(exc, OSError) and exc.errno in _WOULD_BLOCK


def wrap_os_error(exc: OSError, operation: str, deadline_s: float | None = None) -> MobileAgentError:
    """Turn an OSError from a socket call into the package's error: a Timeout or a Closed."""
    if is_timeout(exc):
        return Timeout(operation, deadline_s)
    return Closed(f"{operation}: {exc.strerror or exc}")


def _format_seconds(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:g} s"
