"""install (streamed into `cmd package install -S` over exec:), its failure codes, uninstall,
is_installed, package_version, clear, grant and force_stop: on the virtual device through both adb
fronts (the suite's two runs). The APKs are the tests' own, with no real signature, so on a real
device these tests skip."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.plugin.fixtures import AndroidTarget, foreground_package
from tests.support.apks import OTHER_PACKAGE, fixture_apk, other_apk

pytestmark = pytest.mark.device


@pytest.fixture(autouse=True)
def _virtual_only(android_target: AndroidTarget) -> None:
    if not android_target.runs_stand_in:
        pytest.skip("the tests' APKs carry no real signature: a real device refuses them")


@pytest.fixture
def other(device: Device) -> Iterator[str]:
    """The plain test app, uninstalled after the test."""
    yield OTHER_PACKAGE
    if device.is_installed(OTHER_PACKAGE):
        device.uninstall(OTHER_PACKAGE)


def test_an_installed_apk_is_listed_with_its_version_and_its_bytes(device: Device, other: str) -> None:
    data = other_apk()
    assert not device.is_installed(other) and device.package_version(other) is None
    device.install(data)
    assert device.is_installed(other)
    version = device.package_version(other)
    assert version is not None and (version.code, version.name) == (7, "7.0")
    path = device.shell(["pm", "path", other]).text().strip().removeprefix("package:")
    assert path.startswith("/data/app/~~") and path.endswith("/base.apk")
    assert device.pull_bytes(path) == data, "the streamed bytes, whole"
    assert device.shell(["sha256sum", path]).text().split()[0] == hashlib.sha256(data).hexdigest()
    assert f"package:{other}" in device.shell("pm list packages -3").text()


def test_an_installed_app_starts_and_comes_to_the_front(device: Device, other: str) -> None:
    device.install(other_apk())
    started = device.shell(["am", "start", "-W", "-n", f"{other}/.NotesActivity"])
    assert started.exit_code == 0 and "Status: ok" in started.text()
    assert foreground_package(device) == other
    device.force_stop(other)
    assert foreground_package(device) != other


def test_a_lower_version_is_refused_with_the_downgrade_code_unless_allowed(device: Device, other: str) -> None:
    device.install(other_apk(8))
    with pytest.raises(errors.PackageManagerError) as refused:
        device.install(other_apk(7))
    assert refused.value.code == "INSTALL_FAILED_VERSION_DOWNGRADE"
    assert "Update version code 7 is older than current 8" in str(refused.value)
    device.install(other_apk(7), downgrade=True)
    assert device.package_version(other).code == 7  # type: ignore[union-attr]


@pytest.mark.parametrize(("data", "code"), [
    (b"not a zip at all", "INSTALL_PARSE_FAILED_NOT_APK"),
    (other_apk(signed=False), "INSTALL_PARSE_FAILED_NO_CERTIFICATES"),
    (other_apk(min_sdk=99), "INSTALL_FAILED_OLDER_SDK"),
], ids=["not an APK", "unsigned", "needs a newer SDK"])
def test_a_refused_install_names_the_package_managers_code(device: Device, other: str, data: bytes, code: str) -> None:
    with pytest.raises(errors.PackageManagerError) as refused:
        device.install(data)
    assert refused.value.code == code and code in str(refused.value)
    assert not device.is_installed(other), "nothing half-installed"


def test_replace_false_refuses_an_installed_package(device: Device, other: str) -> None:
    device.install(other_apk())
    with pytest.raises(errors.PackageManagerError) as refused:
        device.install(other_apk(), replace=False)
    assert refused.value.code == "INSTALL_FAILED_ALREADY_EXISTS"


def test_uninstall_removes_it_and_a_second_uninstall_fails_with_the_code(device: Device, other: str) -> None:
    device.install(other_apk())
    device.uninstall(other)
    assert not device.is_installed(other)
    with pytest.raises(errors.PackageManagerError) as refused:
        device.uninstall(other)
    assert refused.value.code == "DELETE_FAILED_INTERNAL_ERROR"


def test_grant_gives_a_requested_runtime_permission_and_refuses_the_others(device: Device, other: str) -> None:
    device.install(other_apk())
    device.grant(other, "android.permission.CAMERA")
    assert "android.permission.CAMERA: granted=true" in device.shell(["dumpsys", "package", other]).text()
    with pytest.raises(errors.PackageManagerError) as unrequested:
        device.grant(other, "android.permission.RECORD_AUDIO")
    assert unrequested.value.code == "SecurityException" and "has not requested permission" in str(unrequested.value)
    with pytest.raises(errors.PackageManagerError, match="not a changeable permission type"):
        device.grant(other, "android.permission.INTERNET")


def test_install_with_grant_grants_every_requested_runtime_permission(device: Device, other: str) -> None:
    device.install(other_apk(), grant=True)
    assert "android.permission.CAMERA: granted=true" in device.shell(["dumpsys", "package", other]).text()


def test_clear_succeeds_for_an_installed_package_and_fails_for_an_unknown_one(device: Device, other: str) -> None:
    device.install(other_apk())
    device.clear(other)
    with pytest.raises(errors.PackageManagerError, match="Failed"):
        device.clear("dev.mobileagent.it.nothere")


def test_an_update_of_the_fixture_app_keeps_its_ui(device: Device) -> None:
    original = fixture_apk()
    try:
        device.install(fixture_apk(2))
        assert device.package_version("dev.mobileagent.fixture").code == 2  # type: ignore[union-attr]
        device.shell("am start -W -S -n dev.mobileagent.fixture/.MainActivity")
        assert foreground_package(device) == "dev.mobileagent.fixture"
    finally:
        device.force_stop("dev.mobileagent.fixture")
        device.install(original, downgrade=True)
    assert device.package_version("dev.mobileagent.fixture").code == 1  # type: ignore[union-attr]


def test_a_hostile_package_name_is_refused_before_the_shell(device: Device) -> None:
    with pytest.raises(errors.InvalidArgument):
        device.uninstall("x; rm -rf /")


def test_a_granted_permission_is_not_asked_for_again(device: Device) -> None:
    """The fixture app's camera request shows the platform's prompt until `pm grant` gives it
    (`pm clear` first: no grant and no denial left from an earlier test)."""
    device.clear("dev.mobileagent.fixture")
    try:
        device.shell("am start -W -S -n dev.mobileagent.fixture/.MainActivity --es prompt camera")
        assert _prompt_shown(device), "not granted: the prompt"
        device.force_stop("dev.mobileagent.fixture")
        device.grant("dev.mobileagent.fixture", "android.permission.CAMERA")
        device.shell("am start -W -S -n dev.mobileagent.fixture/.MainActivity --es prompt camera")
        assert not _prompt_shown(device)
    finally:
        device.shell("pm revoke dev.mobileagent.fixture android.permission.CAMERA")
        device.force_stop("dev.mobileagent.fixture")


def _prompt_shown(device: Device) -> bool:
    """Whether the window manager's focus is the permission controller's prompt. Not `uiautomator
    dump`: it fails while another UiAutomation is connected (an agent an earlier test left running)."""
    focus = device.shell("dumpsys window windows").text()
    return "GrantPermissionsActivity" in focus
