"""Every directory and file the plugin makes is ours alone (issue 13, item 1, beyond the lock): the
failure artifacts (screenshots, logs of the user's app) and the agent build cache are made 0700,
a directory planted as a symlink or owned by another user is refused, and an artifact file planted
as a symlink never overwrites the file it names."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.plugin.artifacts import artifact_dir
from pytest_mobile_agent.userfiles import write_private

OTHER_UID = 4242


class Cache:
    def __init__(self, root: Path) -> None:
        self.root = root

    def mkdir(self, name: str) -> Path:
        path = self.root / name
        path.mkdir(parents=True, exist_ok=True)
        return path


def config(root: Path) -> object:
    """What artifact_dir reads of pytest's config: the cache, the options (none given), the stash."""
    return SimpleNamespace(cache=Cache(root), getoption=lambda name, default=None: default,
                           getini=lambda name: "", stash=pytest.Stash())


def test_an_artifact_dir_is_made_0700_and_a_wide_one_of_ours_narrowed(tmp_path: Path) -> None:
    directory = artifact_dir(config(tmp_path), "tests/test_x.py::test_a")  # type: ignore[arg-type]
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(directory.parent).st_mode) == 0o700
    os.chmod(directory, 0o777)
    again = artifact_dir(config(tmp_path), "tests/test_x.py::test_a")  # type: ignore[arg-type]
    assert stat.S_IMODE(os.stat(again).st_mode) == 0o700


def test_an_artifact_dir_planted_as_a_symlink_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "mobile-agent" / "artifacts").mkdir(parents=True)
    (tmp_path / "mobile-agent" / "artifacts" / "tests_test_x.py_test_a").symlink_to(elsewhere)
    with pytest.raises(errors.UnsafeDirectory, match="symbolic link"):
        artifact_dir(config(tmp_path), "tests/test_x.py::test_a")  # type: ignore[arg-type]


def test_an_artifact_file_planted_as_a_symlink_never_overwrites_the_file_it_names(tmp_path: Path) -> None:
    ours = tmp_path / "ours.txt"
    ours.write_text("keep me")
    (tmp_path / "screenshot.png").symlink_to(ours)
    with pytest.raises(errors.UnsafeDirectory, match="symbolic link"):
        write_private(tmp_path / "screenshot.png", b"\x89PNG")
    assert ours.read_text() == "keep me"


def test_an_artifact_file_is_written_0600(tmp_path: Path) -> None:
    write_private(tmp_path / "logcat.txt", b"lines")
    assert (tmp_path / "logcat.txt").read_bytes() == b"lines"
    assert stat.S_IMODE(os.stat(tmp_path / "logcat.txt").st_mode) == 0o600


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="planting another user's directory needs chown (root)"
)
def test_an_artifact_dir_another_user_owns_is_refused(tmp_path: Path) -> None:
    planted = tmp_path / "mobile-agent" / "artifacts"
    planted.mkdir(parents=True, mode=0o777)
    os.chown(planted, OTHER_UID, OTHER_UID)
    with pytest.raises(errors.UnsafeDirectory, match="belongs to uid 4242"):
        artifact_dir(config(tmp_path), "tests/test_x.py::test_a")  # type: ignore[arg-type]


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="planting another user's directory needs chown (root)"
)
def test_a_build_cache_another_user_owns_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_mobile_agent.agent import builder

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    planted = builder.cache_dir()
    planted.mkdir(parents=True, mode=0o777)
    os.chown(planted, OTHER_UID, OTHER_UID)
    with pytest.raises(errors.UnsafeDirectory, match="belongs to uid 4242"):
        builder.cached_jar()
