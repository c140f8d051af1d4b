"""Every process's CPU over a run, from Linux process accounting, grouped by what it is: Python
(xdist workers, inner pytest runs, the CLI, pip), chromium, Java, Playwright's node driver.

    sudo apt-get install acct
    touch /tmp/run.acct && sudo accton /tmp/run.acct
    .tox/test/bin/pytest tests -n 4 --android-serial virtual -q -p no:cacheprovider
    sudo accton off
    dump-acct /tmp/run.acct > /tmp/run.txt && python3 benches/process_cpu.py /tmp/run.txt

The kernel writes one record per process as it exits, short-lived processes and orphaned helpers
included. A multi-threaded process is named by its thread that exits last (chromium's as
`HangWatcher` or `ThreadPoolForeg`, a JVM's as `SignalInspector` or `Reference Handl`), hence the
name lists below. docs/performance.md ("Item 5, a third stop") has the figures.
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

CHROMIUM = {"chromium", "HangWatcher", "CrShutdownDetec", "DevToolsPipeHan", "sandbox_ipc_thr", "PerfettoTrace",
            "VideoCaptureThr", "CacheThread_Blo", "MemoryInfra", "inotify_reader", "Thread<00>", "ANGLE-GC",
            "chrome_crashpad", "exe", "chromium-headle"}
CHROMIUM_PREFIXES = ("Chrome_", "ThreadPool", "Compositor", "Viz")
JAVA = {"java", "javac", "javap", "jar", "SignalInspector", "Reference Handl", "Finalizer", "Notification Th",
        "Service Thread", "Signal Dispatch", "Common-Cleaner", "VM Thread", "Attach Listener"}
JAVA_PREFIXES = ("C1 Compiler", "C2 Compiler", "GC Thread")
PYTHON = {"python", "python3", "python3.11", "pytest", "pip", "tox", "uv", "mypy"}
NODE = {"node", "node-MainThread"}


def kind_of(name: str) -> str:
    if name in CHROMIUM or name.startswith(CHROMIUM_PREFIXES):
        return "chromium"
    if name in JAVA or name.startswith(JAVA_PREFIXES):
        return "java"
    if name in PYTHON:
        return "python"
    return "node" if name in NODE else "other"


def records(path: Path) -> list[tuple[str, float]]:
    """(name, CPU seconds) of each record of `dump-acct`'s output (times in clock ticks of 1/100 s)."""
    found = []
    for line in path.read_text().splitlines():
        fields = [field.strip() for field in line.split("|")]
        if len(fields) > 4 and fields[1] == "v3":
            found.append((fields[0], (float(fields[2]) + float(fields[3])) / 100))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dump", type=Path, help="dump-acct's output")
    args = parser.parse_args()
    found = records(args.dump)
    if not found:
        raise SystemExit(f"no v3 accounting records in {args.dump}: give it dump-acct's output")
    by_kind: collections.Counter[str] = collections.Counter()
    others: collections.Counter[str] = collections.Counter()
    for name, cpu in found:
        by_kind[kind_of(name)] += cpu
        if kind_of(name) == "other":
            others[name] += cpu
    for kind, cpu in by_kind.most_common():
        print(f"{kind:10s} {cpu:8.1f} s")
    print(f"{'all':10s} {sum(by_kind.values()):8.1f} s over {len(found)} processes")
    print("other, the most:", ", ".join(f"{name} {cpu:.1f} s" for name, cpu in others.most_common(6)))


if __name__ == "__main__":
    main()
