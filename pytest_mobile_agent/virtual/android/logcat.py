"""logcat's buffers on the virtual device (logd's `main` and `crash`), in threadtime format.

`log(tag, message, priority, pid, buffer)` adds a line (`MM-DD HH:MM:SS.mmm  PID  TID P TAG: MSG`);
with buffer "crash" it goes to the crash buffer too (`logcat -b crash`). The main buffer keeps the
last 2000 lines; `count` is every line ever logged, so a follower (`logcat` without `-d`) asks for
`since(count)` and waits on `cond` (a condition over the device's one lock) for the count to move.
"""

from __future__ import annotations

import collections
import threading
import time

from pytest_mobile_agent.virtual.kernel.streams import Kernel

BUFFER_LINES = 2000


class Logcat:
    def __init__(self, kernel: Kernel, *, default_pid: int) -> None:
        self.kernel = kernel
        self.default_pid = default_pid  # the pid a line without one is logged under
        self.cond = kernel.condition()  # notified at every line
        self.count = 0  # lines ever logged (the ring buffer keeps the last BUFFER_LINES)
        self._main: collections.deque[str] = collections.deque(maxlen=BUFFER_LINES)
        self._crash: collections.deque[str] = collections.deque(maxlen=BUFFER_LINES)
        self._lock = threading.Lock()

    def log(self, tag: str, message: str, priority: str = "I", pid: int = 0, buffer: str = "main") -> None:
        """A line in logcat's ring buffer (`logcat -d` prints it in threadtime format); with buffer
        "crash" it is in the crash buffer too (`logcat -b crash`)."""
        now = time.time()
        stamp = time.strftime("%m-%d %H:%M:%S", time.localtime(now)) + f".{int(now * 1000) % 1000:03d}"
        shown_pid = pid or self.default_pid
        line = f"{stamp} {shown_pid:5} {shown_pid:5} {priority} {tag}: {message}"
        with self._lock:
            self._main.append(line)
            if buffer == "crash":
                self._crash.append(line)
            self.count += 1
        with self.kernel.lock:
            self.cond.notify_all()

    def log_uncaught(self, pid: int, process_name: str | None, throwable: str, thread: str = "main") -> None:
        """What RuntimeInit.logUncaught (frameworks/base/core/java/com/android/internal/os/
        RuntimeInit.java) logs for an uncaught exception: "FATAL EXCEPTION: <thread>", then
        "Process: <name>, PID: <pid>" (the name only when ActivityThread has one: an app, not an
        app_process tool), then the throwable's stack (`throwable`: Log.getStackTraceString's text),
        through Clog_e into the crash buffer, tag AndroidRuntime, priority E; Log.printlns writes
        one entry per line, so logcat prints one header per line."""
        head = f"FATAL EXCEPTION: {thread}\n" + (f"Process: {process_name}, " if process_name else "") + f"PID: {pid}"
        for line in f"{head}\n{throwable}".rstrip("\n").split("\n"):
            self.log("AndroidRuntime", line, "E", pid, buffer="crash")

    def lines(self) -> list[str]:
        with self._lock:
            return list(self._main)

    def crash_lines(self) -> list[str]:
        """The crash buffer's lines (`logcat -b crash`)."""
        with self._lock:
            return list(self._crash)

    def since(self, count: int) -> tuple[list[str], int]:
        """The lines logged after the first `count` (those still in the buffer), and the new count."""
        with self._lock:
            fresh = min(self.count - count, len(self._main))
            return (list(self._main)[len(self._main) - fresh :] if fresh > 0 else []), self.count

    def clear(self) -> None:
        with self._lock:
            self._main.clear()
            self._crash.clear()
