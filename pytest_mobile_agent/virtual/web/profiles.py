"""The folders chromium keeps a profile in (`--user-data-dir`), one per chromium, in the temp
directory (`mobile-agent-chromium-*`, 0700).

Each names its owner, this process (`owner`: the pid and its start time, so a reused pid is not
taken for it), so the folder of a process killed before it stopped its chromium (which then ends
on its own: virtual/web/chromium.py) is removed by the next chromium started here, as the lab
reaps the folders of killed labs (virtual/lab.py). A folder of another user, or one whose owner
cannot be read yet (being made now), is left alone. Chromium's log is in the folder too.
"""

from __future__ import annotations

from pathlib import Path

from pytest_mobile_agent.virtual.kernel.owned_folders import (
    OWNER_FILE,
    make_owned_folder,
    process_identity,
)

__all__ = ["LOG_FILE", "OWNER_FILE", "PREFIX", "make_profile", "process_identity"]

PREFIX = "mobile-agent-chromium-"
LOG_FILE = "chromium.log"


def make_profile(directory: Path | None = None) -> Path:
    """A new profile folder, its owner this process; the abandoned ones reaped first
    (kernel/owned_folders.py)."""
    return make_owned_folder(PREFIX, directory)
