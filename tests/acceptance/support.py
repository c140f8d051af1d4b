"""Helpers of the acceptance tests: a throwaway PEP 668-managed interpreter, a copy of the source
tree, fresh venvs, the wheel built once per session, and an app team's suite run as a user would."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import filelock

REPO = Path(__file__).resolve().parents[2]
MARKER_TEXT = "[externally-managed]\nError=This Python is managed by the system (a throwaway copy for the tests).\n"


def managed_python(root: Path, *, ensurepip: bool = True, pip: bool = True) -> Path:
    """A copy of this interpreter that is not a venv and whose stdlib holds an EXTERNALLY-MANAGED
    file, as Debian's and Ubuntu's system Pythons do: its binary, and its stdlib as symlinks to the
    real one's entries (pip put among them when `pip`, ensurepip left out unless `ensurepip`)."""
    import pip as pip_package

    stdlib = Path(os.__file__).parent
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    bin_dir, lib = root / "bin", root / "lib" / version
    bin_dir.mkdir(parents=True)
    lib.mkdir(parents=True)
    binary = bin_dir / version
    shutil.copy2(os.path.realpath(getattr(sys, "_base_executable", sys.executable)), binary)
    for name in ("python3", "python"):
        (bin_dir / name).symlink_to(version)
    for entry in stdlib.iterdir():
        if entry.name in ("site-packages", "dist-packages", "EXTERNALLY-MANAGED") or (
            entry.name == "ensurepip" and not ensurepip
        ):
            continue
        (lib / entry.name).symlink_to(entry)
    (lib / "site-packages").mkdir()
    if pip:
        (lib / "pip").symlink_to(Path(pip_package.__file__).parent)
    (lib / "EXTERNALLY-MANAGED").write_text(MARKER_TEXT)
    return bin_dir / "python3"


def copy_tree(target: Path) -> Path:
    """The source tree as git sees it (tracked and new files, with their changes), nothing built."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, check=True, timeout=60).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def run(argv: list[str], *, timeout: float = 600, **kwargs: object) -> subprocess.CompletedProcess[str]:
    options: dict[str, Any] = {"capture_output": True, "text": True, "timeout": timeout, "check": False, **kwargs}
    done: subprocess.CompletedProcess[str] = subprocess.run(argv, **options)
    return done


def shared_dir(base: Path, name: str) -> tuple[Path, filelock.FileLock]:
    """A directory every xdist worker of this session shares, and the lock to fill it under."""
    path = base / name
    path.mkdir(parents=True, exist_ok=True)
    return path, filelock.FileLock(str(base / f"{name}.lock"))


APP_SUITE = '''
import pytest


def test_signing_in_greets_the_user(compose_fixture, screen):
    compose_fixture(tab="Login")
    screen.find(id="username").type_text("ada")
    screen.find(id="password").type_text("correct horse")
    screen.find(text="Login", class_name="android.widget.Button").tap()
    assert screen.wait_for(id="alert_message", timeout=5).text == "Welcome, ada"


@pytest.mark.app(permissions=["android.permission.CAMERA"])
def test_the_app_under_test_is_installed_and_starts_on_a_tab(app, screen, device):
    assert device.package_version(app.package).code == 2, "our APK, not the image's"
    app.start(extras={"tab": "List"})
    assert screen.wait_for(text="Item 1", timeout=10)
'''


def write_project(root: Path) -> Path:
    """An app team's project: one test file and the app's APK (the fixture app, versionCode 2)."""
    from tests.support.apks import fixture_apk, write

    root.mkdir()
    (root / "test_app.py").write_text(APP_SUITE)
    write(root / "app.apk", fixture_apk(2))
    return root


def user_environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A user with no SDK, no jar named, and a home and caches of their own."""
    drop = ("MOBILE_AGENT_", "ANDROID_", "JAVA_HOME", "PYTEST_", "VIRTUAL_ENV", "PYTHONPATH", "TOX_", "XDG_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "cache"),
               MOBILE_AGENT_LOCK_DIR=str(tmp_path / "locks"), **extra)
    return env


def pytest_in(venv: Path, project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The app suite in `project`, run by `venv`'s pytest with the app's APK."""
    return run([str(venv / "bin" / "pytest"), "-p", "no:cacheprovider", "-q", "-rA", "--app-apk=app.apk", *args],
               cwd=project, env=env, timeout=300)
