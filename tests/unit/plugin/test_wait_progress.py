"""Issue 16 item 5: the quiet wait and the automation-lock wait say on the terminal who holds the
device and how long the test has waited, from a plain run and from xdist workers alike."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent.agent import AgentJar
from pytest_mobile_agent.lock import AutomationLock
from pytest_mobile_agent.policy import DeviceProcess, QuietWait
from pytest_mobile_agent.virtual import VirtualLab

pytest_plugins = ["pytester"]

ISOLATED = ("-p", "no:randomly", "-p", "no:cacheprovider")


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOBILE_AGENT_ANDROID_SERIAL", raising=False)
    monkeypatch.delenv("MOBILE_AGENT_REQUIRE_DEVICE", raising=False)
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))
    monkeypatch.setenv("MOBILE_AGENT_RECORDS", str(pytester.path / "records"))


@pytest.fixture
def shared_lab(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtualLab]:
    jar = tmp_path_factory.mktemp("jar") / "mobile-agent-android.jar"
    jar.write_bytes(AgentJar.stand_in().data)
    monkeypatch.setenv("MOBILE_AGENT_JAR", str(jar))
    lab = VirtualLab.start(1)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(lab.adb_port))
    monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
    try:
        yield lab
    finally:
        lab.stop()


def test_the_quiet_wait_shows_who_holds_the_device_and_when_it_is_quiet(pytester: pytest.Pytester,
                                                                         shared_lab: VirtualLab) -> None:
    stream = shared_lab.device("emulator-5554").open_service("shell,v2,raw:uiautomator events")
    locks = pytester.path / "locks"  # the lock's holder file is written once it is taken: the quiet wait starts

    def release() -> None:
        deadline = time.monotonic() + 60
        while not any(locks.glob("*.holder")) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.5)
        stream.close()

    releaser = threading.Thread(target=release, daemon=True)
    releaser.start()
    try:
        pytester.makepyfile("def test_x(agent):\n    pass\n")
        result = pytester.runpytest_subprocess(*ISOLATED, "--android-serial", "emulator-5554", "--quiet-wait", "30")
    finally:
        stream.close()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([
        "[[]mobile-agent[]] test_the_quiet_wait_shows_who_holds_the_device_and_when_it_is_quiet.py::test_x waits up to "
        "30 s for the device to be quiet: automation client uiautomator* (pid *) holds it",
        "[[]mobile-agent[]] *::test_x found the device quiet after * s",
    ])


def test_the_lock_wait_reaches_the_terminal_from_xdist_workers(pytester: pytest.Pytester,
                                                               shared_lab: VirtualLab) -> None:
    pytester.makepyfile(
        """
        import pathlib
        import time
        import pytest

        @pytest.fixture
        def arrived(n):  # set up before the lock: the holder keeps it until the other test waits for it
            pathlib.Path(f"arrived-{n}").touch()

        @pytest.mark.parametrize("n", range(2))
        def test_hold(arrived, automation_lock, n):
            deadline = time.monotonic() + 30
            while not all(pathlib.Path(f"arrived-{i}").exists() for i in range(2)) and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(1.5)
        """
    )
    result = pytester.runpytest_subprocess(*ISOLATED, "-n", "2", "--android-serial", "emulator-5554")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([
        "[[]mobile-agent[]] *::test_hold[[]*[]] waits for the automation lock on emulator-5554, held by pid * "
        "(*::test_hold[[]*[]])",
        "[[]mobile-agent[]] *::test_hold[[]*[]] took the automation lock on emulator-5554 after * s",
    ])
    assert "MobileAgentWait" not in result.stdout.str()  # a progress line, not a warning of the summary


def test_a_long_quiet_wait_says_how_long_it_has_waited() -> None:
    now = [0.0]
    busy = [DeviceProcess(3001, "uiautomator events")]
    said: list[str] = []

    def sleep(seconds: float) -> None:
        now[0] += seconds
        if now[0] >= 25:
            busy.clear()

    QuietWait(lambda: list(busy), set, timeout=60, clock=lambda: now[0], sleep=sleep, on_wait=said.append).wait()
    assert said == [
        "waits up to 60 s for the device to be quiet: automation client uiautomator events (pid 3001) holds it",
        "has waited 10 s of 60 for the device to be quiet: automation client uiautomator events (pid 3001) holds it",
        "has waited 20 s of 60 for the device to be quiet: automation client uiautomator events (pid 3001) holds it",
        "found the device quiet after 25.0 s",
    ]


def test_a_long_lock_wait_says_how_long_it_has_waited(tmp_path: Path) -> None:
    holder = AutomationLock("emulator-5554", tmp_path)
    waiter = AutomationLock("emulator-5554", tmp_path)
    said: list[str] = []
    held = threading.Event()

    def hold() -> None:
        with holder.held("tests/test_a.py::test_x", timeout=5):
            held.set()
            deadline = time.monotonic() + 10
            while len(said) < 2 and time.monotonic() < deadline:  # until the waiter said how long it waited
                time.sleep(0.05)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait(5)
    with waiter.held("tests/test_b.py::test_y", timeout=10, on_wait=said.append, progress_every=1.0):
        pass
    thread.join()
    assert said[0].startswith("tests/test_b.py::test_y waits for the automation lock on emulator-5554, held by pid ")
    assert re.fullmatch(r"tests/test_b.py::test_y has waited \d+ s for the automation lock on emulator-5554, "
                        r"held by pid \d+ \(tests/test_a.py::test_x\)", said[1])
    assert said[-1].startswith("tests/test_b.py::test_y took the automation lock on emulator-5554 after ")
    assert len(said) == 3
