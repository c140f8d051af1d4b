"""`/proc/PID/stat`: a process's CPU time, read.

The kernel's fs/proc/array.c (do_task_stat) prints one line: the pid, the command in parentheses
(which may itself hold spaces and parentheses: the last `)` ends it), the state, then the fields of
proc(5) in order; utime is the 14th field and stime the 15th, in clock ticks. Android's bionic
gives sysconf(_SC_CLK_TCK) = 100, so a tick is 10 ms.
"""

from __future__ import annotations

from pytest_mobile_agent import errors

TICK_MS = 10.0
"""1000 / sysconf(_SC_CLK_TCK): bionic's CLK_TCK is 100 (libc/bionic/sysconf.cpp)."""


def cpu_ms(printed: str, path: str) -> float:
    """utime + stime of the process, in milliseconds."""
    line = printed.strip()
    _, close, rest = line.rpartition(")")
    fields = rest.split()
    if not close or len(fields) < 13 or not (fields[11].isdigit() and fields[12].isdigit()):
        raise errors.ProtocolError(f"{path} is not a process's stat line: {line[:300]!r}")
    return (int(fields[11]) + int(fields[12])) * TICK_MS
