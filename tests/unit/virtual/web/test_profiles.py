"""Chromium's profile folders: each names its owner, and the next one made removes those whose
owner is gone (a test process killed before it stopped its chromium)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pytest_mobile_agent.virtual.web.profiles import OWNER_FILE, PREFIX, make_profile, process_identity


def test_a_profile_names_this_process_and_is_private(tmp_path: Path) -> None:
    profile = make_profile(tmp_path)
    assert profile.name.startswith(PREFIX)
    assert (profile / OWNER_FILE).read_text().strip() == process_identity(os.getpid())
    assert profile.stat().st_mode & 0o777 == 0o700


def test_the_next_profile_reaps_those_of_a_gone_owner_and_keeps_the_others(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    abandoned = tmp_path / f"{PREFIX}abandoned"
    abandoned.mkdir()
    (abandoned / OWNER_FILE).write_text(f"{gone.stdout.strip()} 1\n")
    (abandoned / "Default").mkdir()
    mine = make_profile(tmp_path)
    being_made = tmp_path / f"{PREFIX}being-made"  # no owner yet: left alone
    being_made.mkdir()
    make_profile(tmp_path)
    assert not abandoned.exists()
    assert mine.exists() and being_made.exists()
