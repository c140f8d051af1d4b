"""Issue 16, item 4: every activity-start failure carries what `am start` printed, on stdout and on
stderr (ActivityManagerShellCommand.runStartActivity prints its errors on stdout under -W and on
stderr without it), on a virtual device and from a device that prints it either way."""

from __future__ import annotations

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb.shell import ShellOutput
from pytest_mobile_agent.cli import doctor
from pytest_mobile_agent.control.app_under_test import AppUnderTest

pytest_plugins = ["pytester"]

NOT_FOUND = b"Error type 3\nError: Activity class {dev.app/dev.app.Nope} does not exist.\n"
LAUNCHER_FOCUS = "  mCurrentFocus=Window{1 u0 com.google.android.apps.nexuslauncher/.NexusLauncherActivity}\n"


class StubDevice:
    """A device whose `am start` prints what it is given; `dumpsys window` shows the launcher."""

    serial = "stub"

    def __init__(self, am: ShellOutput) -> None:
        self.am = am

    def shell_until(self, command: str, deadline: float) -> ShellOutput:
        assert command.startswith("am start ")
        return self.am

    def shell(self, command: str) -> ShellOutput:
        assert command == "dumpsys window", command
        return ShellOutput(0, LAUNCHER_FOCUS.encode(), b"")


def test_a_start_whose_error_is_on_stderr_only_says_it() -> None:
    device = StubDevice(ShellOutput(1, b"Starting: Intent { cmp=dev.app/.Nope }\n", NOT_FOUND))
    with pytest.raises(errors.MobileAgentError) as caught:
        AppUnderTest(device, "dev.app", ".Nope").start()  # type: ignore[arg-type]
    assert "Error: Activity class {dev.app/dev.app.Nope} does not exist." in str(caught.value)


def test_a_start_that_never_brings_the_app_to_the_front_says_what_am_printed() -> None:
    warning = b"Warning: Activity not started, its current task has been brought to the front\n"
    device = StubDevice(ShellOutput(0, b"Starting: Intent { cmp=dev.app/.Main }\n" + warning, b""))
    with pytest.raises(errors.Timeout) as caught:
        AppUnderTest(device, "dev.app", ".Main").start(timeout=0.2)  # type: ignore[arg-type]
    text = str(caught.value)
    assert "in front: com.google.android.apps.nexuslauncher" in text
    assert "Warning: Activity not started, its current task has been brought to the front" in text


def test_the_doctors_fixture_start_carries_ams_stderr() -> None:
    checked = doctor.Doctor(doctor.Target(android=None))  # type: ignore[arg-type]
    refused = ShellOutput(1, b"Starting: Intent { cmp=dev.app/.Nope }\n", NOT_FOUND)
    checked.state.device = StubDevice(refused)  # type: ignore[assignment]
    with pytest.raises(doctor.CheckFailed) as caught:
        checked._start_fixture()
    assert "Error: Activity class {dev.app/dev.app.Nope} does not exist." in str(caught.value)


def test_a_bad_fixture_activity_fails_the_test_with_ams_error(pytester: pytest.Pytester,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))
    monkeypatch.delenv("MOBILE_AGENT_ANDROID_SERIAL", raising=False)
    pytester.makepyfile("def test_bad(compose_fixture):\n    compose_fixture(tab='List')\n")
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider", "--android-serial", "virtual",
                                           "--emulator-controller", "off", "--fixture-activity", ".Nope")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*am start dev.mobileagent.fixture/dev.mobileagent.fixture.Nope failed*",
            "*Error: Activity class {dev.mobileagent.fixture/dev.mobileagent.fixture.Nope} does not exist.*",
        ]
    )
