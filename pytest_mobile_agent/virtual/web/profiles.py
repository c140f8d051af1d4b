"""The folders chromium keeps a profile in (`--user-data-dir`), one per chromium, in the temp
directory (`mobile-agent-chromium-*`, 0700).

Each names its owner, this process (`owner`: the pid and its start time, so a reused pid is not
taken for it), so the folder of a process killed before it stopped its chromium (which then ends
on its own: virtual/web/chromium.py) is removed by the next chromium started here, as the lab
reaps the folders of killed labs (virtual/lab.py). A folder of another user, or one whose owner
cannot be read yet (being made now), is left alone. Chromium's log is in the folder too.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

PREFIX = "mobile-agent-chromium-"
OWNER_FILE = "owner"
LOG_FILE = "chromium.log"


def make_profile(directory: Path | None = None) -> Path:
    """A new profile folder, its owner this process; the abandoned ones reaped first."""
    where = Path(directory or tempfile.gettempdir())
    reap_abandoned(where)
    profile = Path(tempfile.mkdtemp(prefix=PREFIX, dir=where))
    (profile / OWNER_FILE).write_text(process_identity(os.getpid()) + "\n")
    return profile


def reap_abandoned(directory: Path) -> list[Path]:
    """Remove the profile folders whose owner is gone; the folders removed."""
    removed = []
    for profile in directory.glob(f"{PREFIX}*"):
        try:
            if profile.stat().st_uid != os.getuid() or not profile.is_dir():
                continue
            owner = (profile / OWNER_FILE).read_text().strip()
        except OSError:
            continue
        pid_text = owner.split(" ", 1)[0]
        if not pid_text.isdigit() or process_identity(int(pid_text)) == owner:
            continue
        shutil.rmtree(profile, ignore_errors=True)
        removed.append(profile)
    return removed


def process_identity(pid: int) -> str:
    """`PID START`: the pid and its start time in clock ticks since boot (/proc/PID/stat's 22nd
    field); "" when no such process runs."""
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
