"""Folders the double keeps in the host's temp directory (a lab's home, a chromium's profile), each
naming its owner: this process, by its pid and its start time (so a reused pid is not taken for it).
A folder whose owner was killed before it removed it is removed by the next folder of its kind made
here. A folder of another user, or one whose owner cannot be read yet (being made now), is left alone.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from pytest_mobile_agent.virtual.kernel.numbers import is_decimal

OWNER_FILE = "owner"


def make_owned_folder(prefix: str, directory: Path | None = None) -> Path:
    """A new folder `prefix*` (0700) in `directory` (the temp directory), owned by this process; the
    abandoned folders of the same prefix removed first."""
    where = Path(directory or tempfile.gettempdir())
    reap_abandoned(prefix, where)
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=where))
    (folder / OWNER_FILE).write_text(process_identity(os.getpid()) + "\n")
    return folder


def reap_abandoned(prefix: str, directory: Path) -> list[Path]:
    """Remove the folders `prefix*` in `directory` whose owning process is gone; the folders removed."""
    removed = []
    for folder in directory.glob(f"{prefix}*"):
        try:
            if folder.stat().st_uid != os.getuid() or not folder.is_dir():
                continue
            owner = (folder / OWNER_FILE).read_text().strip()
        except OSError:
            continue
        pid_text = owner.split(" ", 1)[0]
        if not is_decimal(pid_text) or process_identity(int(pid_text)) == owner:
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def process_identity(pid: int) -> str:
    """`PID START`: the pid and, on Linux, its start time in clock ticks since boot (the 22nd field
    of /proc/PID/stat), so a reused pid is not taken for the owner; "" when no such process runs."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return ""
    except PermissionError:
        pass  # it runs, as another user
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return str(pid)
    return f"{pid} {stat.rsplit(')', 1)[1].split()[19]}"
