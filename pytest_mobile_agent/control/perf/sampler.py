"""The `perf` fixture's object: the app's frames, memory and CPU time, read from the device.

Each reading is one shell command on the device, parsed by its module: `frames()` is `dumpsys
gfxinfo PKG framestats` (gfxinfo.py), `memory()` is `dumpsys meminfo PKG` (meminfo.py), `cpu()` is
`/proc/PID/stat` of the app's process (procstat.py). `reset()` starts a new span: `dumpsys gfxinfo
PKG reset` (JankTracker::reset: the counters and the frames kept go) and the CPU time now.
`sample()` reads all three in one command, for the per-step figures (step_sampling.py).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.control.perf.gfxinfo import FrameStats, parse_gfxinfo
from pytest_mobile_agent.control.perf.meminfo import Memory, parse_meminfo
from pytest_mobile_agent.control.perf.procstat import cpu_ms

SECTION = "---MOBILE-AGENT-PERF---"


@dataclass(frozen=True)
class Sample:
    """One reading of every counter (None: the app had no process then)."""

    frames: FrameStats | None
    memory: Memory | None
    cpu_ms: float | None
    pid: int | None


class Perf:
    """The app under test's own counters on one device."""

    def __init__(self, device: Device, package: str) -> None:
        self.device = device
        self.package = package
        self._cpu_since: tuple[int, float] | None = None  # (pid, CPU ms) at the span's start

    def __repr__(self) -> str:
        return f"Perf({self.package!r})"

    def _command(self, service: str, *extra: str) -> str:
        return " ".join(["dumpsys", service, shlex.quote(self.package), *extra])

    def reset(self) -> None:
        """Start a new span: the renderer's counters cleared, the CPU time counted from now."""
        self.device.shell(self._command("gfxinfo", "reset"))
        self._cpu_since = self._pid_and_cpu()

    def frames(self, *, per_frame: bool = True) -> FrameStats:
        """The frames the app rendered since the last reset (or its process's start): total, janky,
        percentiles; with `per_frame` each recent frame's time too (errors.NotSupported when the
        device prints no per-frame data)."""
        command = self._command("gfxinfo", "framestats") if per_frame else self._command("gfxinfo")
        return parse_gfxinfo(self.device.shell(command).text(), command, framestats=per_frame)

    def memory(self) -> Memory:
        """The app's memory now: total PSS and its parts."""
        command = self._command("meminfo")
        return parse_meminfo(self.device.shell(command).text(), command)

    def cpu(self) -> float:
        """The app's CPU time (user + system, ms) since the last reset, or since its process started
        when that came later."""
        pid, now = self._pid_and_cpu()
        since = self._cpu_since
        return now - since[1] if since is not None and since[0] == pid else now

    def _pid_and_cpu(self) -> tuple[int, float]:
        pid = self.pid()
        if pid is None:
            raise errors.MobileAgentError(f"{self.package} is not running: no process for its CPU time",
                                          advice="Start it first (app.start())")
        path = f"/proc/{pid}/stat"
        return pid, cpu_ms(self.device.shell(f"cat {path}").text(), path)

    def pid(self) -> int | None:
        """The app's main process (pidof names it by package), None when it has none."""
        printed = self.device.shell(f"pidof {shlex.quote(self.package)}").text().split()
        return int(printed[0]) if printed and printed[0].isdigit() else None

    def sample(self) -> Sample:
        """Frames, memory and CPU time in one shell command (the per-step reading)."""
        quoted = shlex.quote(self.package)
        command = (f"dumpsys gfxinfo {quoted}; echo {SECTION}; dumpsys meminfo {quoted}; echo {SECTION}; "
                   f"for p in $(pidof {quoted}); do echo $p; cat /proc/$p/stat; break; done")
        printed = self.device.shell(command).text()
        parts = re.split(rf"{SECTION}\r?\n", printed)  # a shell without v2 may end its lines in \r\n
        if len(parts) != 3:
            raise errors.ProtocolError(f"the perf sample's three parts did not come back: {printed[:300]!r}")
        pid_line, _, stat = parts[2].partition("\n")
        if not pid_line.strip().isdigit():
            return Sample(None, None, None, None)
        frames = parse_gfxinfo(parts[0], self._command("gfxinfo"))
        memory = parse_meminfo(parts[1], self._command("meminfo"))
        return Sample(frames, memory, cpu_ms(stat, f"/proc/{pid_line.strip()}/stat"), int(pid_line.strip()))
