"""Issue 16, item 1: a disturbance needs evidence of another user of the device. The test's own
input that moves its app out of the front, or its app's crash, is the test's own failure: it fails at
once (no RERUN), and a crash is in its report."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

VIRTUAL = ("-p", "no:randomly", "-p", "no:cacheprovider", "--android-serial", "virtual")


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOBILE_AGENT_ANDROID_SERIAL", raising=False)
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))
    monkeypatch.setenv("MOBILE_AGENT_RECORDS", str(pytester.path / "records"))


def test_the_tests_own_back_key_that_closes_its_app_fails_at_once(pytester: pytest.Pytester) -> None:
    runs = pytester.path / "runs.txt"
    pytester.makepyfile(
        f"""
        import pathlib

        def test_back(compose_fixture, screen):
            with pathlib.Path({str(runs)!r}).open("a") as f:
                f.write("run\\n")
            compose_fixture(tab="List")
            screen.press_key("back")
            assert screen.find(id="list")
        """
    )
    result = pytester.runpytest(*VIRTUAL, "--emulator-controller", "off")
    outcomes = result.parseoutcomes()
    assert (outcomes.get("failed"), outcomes.get("rerun")) == (1, None), result.stdout.str()[-3000:]
    assert runs.read_text().count("run") == 1
    assert "tests run again" not in result.stdout.str()
    # why it was not taken for a disturbance
    result.stdout.fnmatch_lines(["*- mobile-agent own failure -*",
                                 "*dev.mobileagent.fixture left the front (now com.google.android.apps.nexuslauncher)*"
                                 "nobody else*"])


def test_an_app_crash_fails_at_once_with_the_crash_of_its_run_in_the_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_crashes(compose_fixture, screen, device):
            compose_fixture(tab="List")
            device.shell("am crash dev.mobileagent.fixture")  # the app dies of an uncaught exception
            assert screen.find(id="list")

        def test_fails_later_without_a_crash(compose_fixture, screen):
            compose_fixture(tab="List")
            assert screen.find(id="no_such_node")
        """
    )
    result = pytester.runpytest(*VIRTUAL, "--emulator-controller", "off", "-rA")
    outcomes = result.parseoutcomes()
    assert (outcomes.get("failed"), outcomes.get("rerun")) == (2, None), result.stdout.str()[-3000:]
    text = result.stdout.str()
    crashed, later = text.split("test_fails_later_without_a_crash ___", 1)
    assert "- mobile-agent crash -" in crashed
    for line in ("E AndroidRuntime: FATAL EXCEPTION: main", "E AndroidRuntime: Process: dev.mobileagent.fixture, PID: ",
                 "E AndroidRuntime: android.app.RemoteServiceException$CrashedByAdbException: shell-induced crash"):
        assert line in crashed
    assert "dev.mobileagent.fixture crashed" in crashed  # said where the disturbance would have been
    # the crash buffer of the later test's own run: the earlier crash is not its
    assert "- mobile-agent crash -" not in later and "crashed" not in later


@pytest.mark.parametrize(("controller", "sent"), [("off", "none"), ("auto", "1")])
def test_another_users_touch_that_moves_the_app_is_a_disturbance(pytester: pytest.Pytester, controller: str,
                                                                 sent: str) -> None:
    """A touch on the emulator's touchscreen the test did not send (a person at the emulator's
    window: the touch arrives on its virtio touchscreen, as getevent sees it) is evidence; the
    test's own swipe through the controller arrives there too, and is counted out."""
    runs = pytester.path / "runs.txt"
    pytester.makepyfile(
        f"""
        import pathlib, time

        def test_touched(compose_fixture, screen, android_target):
            with pathlib.Path({str(runs)!r}).open("a") as f:
                f.write("run\\n")
            compose_fixture(tab="List")
            screen.wait_for(text="Item 1", timeout=10)
            screen.swipe(540, 1600, 540, 1200, duration=0.2)  # the test's own swipe
            if pathlib.Path({str(runs)!r}).read_text().count("run") == 1:
                display = android_target.lab.device(android_target.serial).display
                display.touch(180, 2337, True)  # a finger on the navigation bar's Back
                display.touch(180, 2337, False)
                time.sleep(0.3)
            assert screen.find(id="list")
        """
    )
    result = pytester.runpytest(*VIRTUAL, "--emulator-controller", controller)
    outcomes = result.parseoutcomes()
    assert (outcomes.get("passed"), outcomes.get("rerun")) == (1, 1), result.stdout.str()[-3000:]
    result.stdout.fnmatch_lines(
        [
            "*tests run again after a disturbance*",
            f"*test_touched: run 1 of at most 3: 1 touch on /dev/input/event1 that the test did not "
            f"send (the test sent {sent} through the emulator controller)*left the front*",
        ]
    )
