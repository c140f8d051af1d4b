"""The fixture app's state lives where an Android app's does: the sign-in in its process's memory,
which a force-stop (or a crash) ends and HOME or BACK do not; stored data in its data directory,
which `pm clear` wipes, along with the user's permission choices."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.kernel.creds import ROOT
from pytest_mobile_agent.virtual.ui import PACKAGE
from pytest_mobile_agent.virtual.ui.fixture import PASSWORD
from pytest_mobile_agent.virtual.ui.system import KEYCODE_BACK, KEYCODE_HOME
from tests.support.ui_nodes import by_res, tap

DATA_DIR = f"/data/data/{PACKAGE}"


@pytest.fixture
def vdev() -> Iterator[VirtualDevice]:
    dev = VirtualDevice("emulator-5574")
    yield dev
    dev.close()


def start(vdev: VirtualDevice) -> None:
    status, _, err = vdev.shell(f"am start -W -n {PACKAGE}/.MainActivity --es tab Login")  # -W: composed
    assert status == 0, err


def sign_in(vdev: VirtualDevice, user: str) -> None:
    start(vdev)
    ui = vdev.ui
    ui.set_text(by_res(ui, "username"), user)
    ui.set_text(by_res(ui, "password"), PASSWORD)
    tap(ui, by_res(ui, "login_button"))
    assert by_res(ui, "login_status").text == f"Signed in as {user}"
    tap(ui, by_res(ui, "alert_ok"))


def status_after_restart(vdev: VirtualDevice) -> str:
    start(vdev)
    return by_res(vdev.ui, "login_status").text or ""


def test_a_force_stop_ends_the_sign_in_with_the_process(vdev: VirtualDevice) -> None:
    sign_in(vdev, "ada")
    status, _, err = vdev.shell(f"am force-stop {PACKAGE}")
    assert status == 0, err
    assert status_after_restart(vdev) == "Signed out"


def test_a_crash_ends_the_sign_in_with_the_process(vdev: VirtualDevice) -> None:
    sign_in(vdev, "ada")
    vdev.shell(f"am crash {PACKAGE}")
    assert status_after_restart(vdev) == "Signed out"


@pytest.mark.parametrize("key", [KEYCODE_HOME, KEYCODE_BACK], ids=["home", "back"])
def test_home_or_back_keeps_the_process_and_its_sign_in(vdev: VirtualDevice, key: int) -> None:
    sign_in(vdev, "ada")
    vdev.ui.key(key)
    vdev.ui.advance()
    assert vdev.activity.is_running(PACKAGE)
    assert status_after_restart(vdev) == "Signed in as ada"


def test_pm_clear_ends_the_sign_in_and_empties_the_data_directory(vdev: VirtualDevice) -> None:
    sign_in(vdev, "ada")
    package = vdev.packages.packages[PACKAGE]
    vdev.fs.mkdir_system(f"{DATA_DIR}/shared_prefs", 0o771, package.uid, package.uid)
    vdev.fs.add_file(f"{DATA_DIR}/shared_prefs/session.xml", b"<map />", 0o660, package.uid, package.uid)
    status, out, err = vdev.shell(f"pm clear {PACKAGE}")
    assert (status, out) == (0, b"Success\n"), err
    assert sorted(vdev.fs.listdir(DATA_DIR, ROOT)) == ["cache", "code_cache"]  # installd's fresh app data
    assert status_after_restart(vdev) == "Signed out"


def test_an_installed_app_has_a_private_data_directory_that_uninstall_removes(vdev: VirtualDevice) -> None:
    package = vdev.packages.packages[PACKAGE]
    info = vdev.fs.stat(DATA_DIR, ROOT)
    assert (info.mode & 0o7777, info.uid, info.gid) == (0o700, package.uid, package.uid)
    status, _, _ = vdev.shell(f"ls {DATA_DIR}")  # the shell user cannot look in
    assert status != 0
    vdev.shell(f"pm uninstall {PACKAGE}")
    assert not vdev.fs.exists(DATA_DIR)


def test_pm_clear_resets_the_runtime_permissions(vdev: VirtualDevice) -> None:
    vdev.shell(f"pm grant {PACKAGE} android.permission.CAMERA")
    vdev.shell(f"pm clear {PACKAGE}")
    _, dump, _ = vdev.shell(f"dumpsys package {PACKAGE}")
    assert b"android.permission.CAMERA: granted=false" in dump
