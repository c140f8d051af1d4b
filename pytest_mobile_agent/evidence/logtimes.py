"""Logcat's `threadtime` lines on the host's clock, so the trace viewer can show each step's lines.

A threadtime line starts with the device's local time, `MM-DD HH:MM:SS.mmm`, without the year or
the zone (logcat's format: system/logging/liblog/logprint.cpp, `android_log_formatLogLine`, Android
16). The zone is the device's `date +%z`; the year the one that puts the line nearest to now. The
device's clock is taken to be the host's (an emulator's is; a device's keeps network time), so a
line's place among the steps is as good as the two clocks' agreement.
"""

from __future__ import annotations

import datetime
import re
import time
from typing import Any, Protocol

THREADTIME = re.compile(r"^(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3}) ")
ZONE = re.compile(r"^([+-])(\d\d)(\d\d)$")


class ShellDevice(Protocol):
    def shell(self, command: str) -> Any: ...


def device_zone(device: ShellDevice) -> datetime.timezone:
    text = device.shell("date +%z").text().strip()
    matched = ZONE.match(text)
    if matched is None:
        return datetime.timezone.utc
    sign = -1 if matched.group(1) == "-" else 1
    return datetime.timezone(sign * datetime.timedelta(hours=int(matched.group(2)), minutes=int(matched.group(3))))


def timed_lines(text: str, device: ShellDevice, now: float | None = None) -> list[dict[str, Any]]:
    """`[{"t": seconds since the epoch or None, "line": ...}]` for each line of `text`."""
    lines = text.splitlines()
    if not lines:
        return []
    zone = device_zone(device)
    moment = time.time() if now is None else now
    return [{"t": line_time(line, zone, moment), "line": line} for line in lines]


def line_time(line: str, zone: datetime.tzinfo, now: float) -> float | None:
    matched = THREADTIME.match(line)
    if matched is None:
        return None
    month, day, hour, minute, second, millis = (int(part) for part in matched.groups())
    this_year = datetime.datetime.fromtimestamp(now, zone).year
    best: float | None = None
    for year in (this_year - 1, this_year, this_year + 1):
        try:
            moment = datetime.datetime(year, month, day, hour, minute, second, millis * 1000, tzinfo=zone).timestamp()
        except ValueError:  # 02-29 of a year without one
            continue
        if best is None or abs(moment - now) < abs(best - now):
            best = moment
    return best
