"""What the terminal shows while a test waits, run as a user runs it (pytester): the quiet wait's and
the automation lock's progress lines, from the run's own process and from xdist workers (issue 16,
item 5)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

# Imported before the in-process inner runs (see test_plugin_surface.py): pytester drops the
# modules a run imports first, and a class imported twice makes isinstance fail.
import pytest_mobile_agent.mirror
import pytest_mobile_agent.session
import pytest_mobile_agent.virtual.agent
import pytest_mobile_agent.virtual.fronts.controller  # noqa: F401
from pytest_mobile_agent.virtual import VirtualLab
from tests.unit.plugin.plugin_inner_runs import ISOLATED, isolate, served_lab

pytest_plugins = ["pytester"]



@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(pytester, monkeypatch)


@pytest.fixture(name="served_lab")
def _served_lab(monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualLab]:
    """Two virtual devices served from this process, as external devices are, reached by serial."""
    with served_lab(monkeypatch, 2) as lab:
        yield lab


# --- item 5: long waits show progress on the terminal --------------------------------------------

LOCK_HELD_IN_A_THREAD = """
import threading, time

def test_waits_for_the_lock(request, android_target):
    held, release = threading.Event(), threading.Event()

    def hold():
        with android_target.automation_lock().held("the holder in a thread", timeout=5):
            held.set()
            release.wait(10)

    threading.Thread(target=hold, daemon=True).start()
    held.wait(5)
    threading.Timer(2.5, release.set).start()
    request.getfixturevalue("automation_lock")
"""


def test_the_lock_wait_shows_who_holds_the_device_and_how_long_the_test_waited(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(LOCK_HELD_IN_A_THREAD)
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "--emulator-controller", "off")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([
        "[[]mobile-agent[]] test_the_lock_wait_shows*.py::test_waits_for_the_lock: waiting for the automation lock "
        "on emulator-5554*, held by pid * (the holder in a thread) for * s; waited 1 s of 900 s",
        "[[]mobile-agent[]] test_the_lock_wait_shows*.py::test_waits_for_the_lock: got the automation lock on "
        "emulator-5554* after * s",
    ])


def test_the_lock_wait_of_an_xdist_worker_reaches_the_controllers_terminal(pytester: pytest.Pytester,
                                                                           served_lab: VirtualLab) -> None:
    pytester.makepyfile(
        """
        import time
        import pytest

        @pytest.mark.parametrize("n", range(2))
        def test_holds_the_lock(automation_lock, n):
            time.sleep(2.5)
        """
    )
    result = pytester.runpytest_subprocess(*ISOLATED, "-n", "2", "--android-serial", "emulator-5554")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([
        "[[]mobile-agent[]] *::test_holds_the_lock[[]*[]]: waiting for the automation lock on emulator-5554*, "
        "held by pid * (*::test_holds_the_lock[[]*[]]) for * s; waited 1 s of 900 s",
        # on a line of its own, though the holder's progress dot came just before it (its call report
        # precedes the teardown that releases the lock)
        "[[]mobile-agent[]] *::test_holds_the_lock[[]*[]]: got the automation lock on emulator-5554* after * s",
    ])


def test_the_quiet_wait_shows_what_holds_the_device_and_how_long_the_test_waited(pytester: pytest.Pytester,
                                                                                 served_lab: VirtualLab) -> None:
    import threading

    stream = served_lab.device("emulator-5554").open_service("shell,v2,raw:uiautomator events")
    timer = threading.Timer(2.0, stream.close)
    timer.start()
    try:
        pytester.makepyfile("def test_x(agent):\n    pass\n")
        result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", "--quiet-wait", "30")
    finally:
        timer.join()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([
        "[[]mobile-agent[]] *::test_x: waiting for the device to be quiet: automation client uiautomator* holds it; "
        "waited 0 s of 30 s",
        "[[]mobile-agent[]] *::test_x: the device is quiet after * s",
    ])

