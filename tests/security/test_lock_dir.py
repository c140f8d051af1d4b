"""The automation lock's files cannot be taken over by another local user (issue 13, item 1): the lock
directory is ours and 0700 or refused, and a holder path planted as a symlink never overwrites the
file it names."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.automation_lock import LOCK_DIR_ENV, AutomationLock

OTHER_UID = 4242


def test_a_planted_holder_symlink_never_overwrites_the_file_it_names(tmp_path: Path) -> None:
    ours = tmp_path / "ours.txt"
    ours.write_text("keep me")
    locks = tmp_path / "locks"
    locks.mkdir(mode=0o700)
    (locks / "emulator-5554.holder").symlink_to(ours)
    with (
        pytest.raises(errors.UnsafeDirectory, match="holder file"),
        AutomationLock("emulator-5554", locks).held("t::x", timeout=5),
    ):
        pass
    assert ours.read_text() == "keep me"


def test_a_world_writable_lock_dir_of_ours_is_narrowed_to_0700(tmp_path: Path) -> None:
    locks = tmp_path / "locks"
    locks.mkdir()
    os.chmod(locks, 0o777)
    with AutomationLock("emulator-5554", locks).held("t::x", timeout=5):
        assert stat.S_IMODE(os.stat(locks).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(locks / "emulator-5554.holder").st_mode) == 0o600


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="planting another user's directory needs chown (root)"
)
def test_a_default_lock_dir_another_user_created_first_is_refused_with_the_fix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LOCK_DIR_ENV, raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    planted = tmp_path / f"pytest-mobile-agent-{os.getuid()}"
    planted.mkdir(mode=0o777)
    os.chown(planted, OTHER_UID, OTHER_UID)
    with pytest.raises(errors.UnsafeDirectory) as refused:
        AutomationLock("emulator-5554")
    assert f"belongs to uid {OTHER_UID}" in str(refused.value)
    assert "rm -r" in str(refused.value)
    assert not (planted / "locks").exists()
