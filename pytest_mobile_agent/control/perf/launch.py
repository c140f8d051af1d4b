"""`am start -W`'s timing block, as ActivityManagerShellCommand.runStartActivity prints it.

AOSP frameworks/base, services/core/java/com/android/server/am/ActivityManagerShellCommand.java
(Android 13 to 16): after the `Starting: Intent { ... }` line, with `-W` and a launched activity,

    Status: ok | timeout
    LaunchState: COLD | WARM | HOT | RELAUNCH | UNKNOWN (<n>)   (WaitResult.launchStateToString)
    Activity: <component>            (only when the result names one)
    TotalTime: <ms>                  (only when WaitResult.totalTime >= 0: the launch was timed)
    WaitTime: <ms>                   (always: the shell command's own wall time around the call)
    Complete

A start the activity manager did not time (a timeout, an intent delivered to the activity already
on top, a launch the metrics logger dropped) has no TotalTime line and an UNKNOWN launch state:
`Launch.timed` is False and `Launch.why_untimed` says which.
"""

from __future__ import annotations

from dataclasses import dataclass

LAUNCH_STATES = ("COLD", "WARM", "HOT", "RELAUNCH")


@dataclass(frozen=True)
class Launch:
    """One `am start -W`: how the app was started and how long it took, in milliseconds."""

    status: str
    """`ok`, or `timeout` when the activity did not report itself drawn in am's wait."""
    state: str
    """COLD, WARM, HOT, RELAUNCH, or UNKNOWN when the activity manager did not classify it."""
    activity: str | None
    total_ms: int | None
    """TotalTime: from the launch's start to the activity's first frame drawn; None when not timed."""
    wait_ms: int | None
    """WaitTime: the whole `startActivityAndWait` call as the shell command measured it."""

    @property
    def timed(self) -> bool:
        return self.total_ms is not None

    @property
    def why_untimed(self) -> str | None:
        """Why the activity manager gave no TotalTime (None when it did)."""
        if self.timed:
            return None
        if self.status == "timeout":
            return "am start -W timed out before the activity reported its first frame (Status: timeout)"
        if self.status == "none":
            return "am start printed no timing block (no Status line: started without -W, or only a warning)"
        return f"the activity manager did not time this start (LaunchState: {self.state}, no TotalTime line)"

    def figures(self) -> dict[str, float]:
        """The figures a report shows: startup_ms (TotalTime) and wait_ms, those am printed."""
        shown: dict[str, float] = {}
        if self.total_ms is not None:
            shown["startup_ms"] = float(self.total_ms)
        if self.wait_ms is not None:
            shown["wait_ms"] = float(self.wait_ms)
        return shown


def parse_am_start(printed: str) -> Launch:
    """The timing block of `am start -W`'s output. Output without one (a start without -W, a device
    that printed only a warning) is a start am did not time: status `none`, no figures."""
    fields: dict[str, str] = {}
    for line in printed.splitlines():
        key, separator, value = line.strip().partition(": ")
        if separator and key in ("Status", "LaunchState", "Activity", "TotalTime", "WaitTime"):
            fields.setdefault(key, value.strip())
    if "Status" not in fields:
        return Launch(status="none", state="UNKNOWN", activity=None, total_ms=None, wait_ms=None)
    state = fields.get("LaunchState", "UNKNOWN")
    if state not in LAUNCH_STATES:
        state = "UNKNOWN"
    return Launch(status=fields["Status"], state=state, activity=fields.get("Activity"),
                  total_ms=_milliseconds(fields.get("TotalTime")), wait_ms=_milliseconds(fields.get("WaitTime")))


def _milliseconds(value: str | None) -> int | None:
    if value is None:
        return None
    text = value.removesuffix("ms").strip()
    return int(text) if text.isascii() and text.lstrip("-").isdigit() and int(text) >= 0 else None
