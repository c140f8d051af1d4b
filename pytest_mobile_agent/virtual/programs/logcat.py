"""`logcat -d` prints the buffer (android/logcat.py), `logcat -c` clears it, plain `logcat` follows it
until killed; `-t N` / `-t TIME` the last lines; `-b crash` gives AndroidRuntime's FATAL EXCEPTION
lines (nothing at all when no app died, as an empty crash buffer prints)."""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal


def logcat(framework: Framework, proc: pm.Process) -> int:
    args = proc.argv[1:]
    if "-c" in args:
        framework.logcat.clear()
        return 0
    lines, seen = framework.logcat.since(0)
    buffer = args[args.index("-b") + 1] if "-b" in args[:-1] else "main"
    if buffer == "crash":  # RuntimeInit logs an app's death (AndroidRuntime's FATAL EXCEPTION) to the crash buffer
        lines = framework.logcat.crash_lines()
    if "-t" in args[:-1]:  # -t N: the last N lines; -t 'MM-DD HH:MM:SS.mmm': the lines since then
        since = args[args.index("-t") + 1]
        lines = lines[-int(since):] if is_decimal(since) else [line for line in lines if line[:18] >= since]
        args = [*args, "-d"]  # -t implies -d
    proc.stdout.write((f"--------- beginning of {buffer}\n" if lines or buffer == "main" else "")
                      + "".join(line + "\n" for line in lines))
    if "-d" in args:
        return 0
    while True:
        with proc.kernel.lock:
            def grown(seen: int = seen) -> bool:
                return framework.logcat.count != seen

            proc.wait(framework.logcat.cond, grown, None)
        lines, seen = framework.logcat.since(seen)
        proc.stdout.write("".join(line + "\n" for line in lines))
