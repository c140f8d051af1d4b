"""Issue 16 items 3 and 8: the status lines of xdist workers reach the controller's terminal, and
the header names every target with its facts (virtual ones and each of a comma list)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

# Imported before the in-process inner runs (see test_plugin_surface.py).
import pytest_mobile_agent.mirror
import pytest_mobile_agent.session
import pytest_mobile_agent.virtual.agent
import pytest_mobile_agent.virtual.controller  # noqa: F401
from pytest_mobile_agent.virtual import VirtualLab

pytest_plugins = ["pytester"]

ISOLATED = ("-p", "no:randomly", "-p", "no:cacheprovider")
FACTS = "device, model sdk_gphone64_x86_64, API 36, emulator"


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOBILE_AGENT_ANDROID_SERIAL", raising=False)
    monkeypatch.delenv("MOBILE_AGENT_REQUIRE_DEVICE", raising=False)
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))
    monkeypatch.setenv("MOBILE_AGENT_RECORDS", str(pytester.path / "records"))


@pytest.fixture
def two_served(monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualLab]:
    """Two virtual devices served from this process, named by serial as external devices are."""
    lab = VirtualLab.start(2)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(lab.adb_port))
    monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
    try:
        yield lab
    finally:
        lab.stop()


def test_the_header_names_each_virtual_target_with_its_facts(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual:2", "--emulator-controller", "off")
    result.stdout.fnmatch_lines([f"mobile-agent: emulator-5554 {FACTS}", f"mobile-agent: emulator-5556 {FACTS}"])


def test_the_header_names_each_target_of_a_comma_list(pytester: pytest.Pytester, two_served: VirtualLab) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554,emulator-5556")
    result.stdout.fnmatch_lines([f"mobile-agent: emulator-5554 {FACTS}", f"mobile-agent: emulator-5556 {FACTS}"])


def test_a_comma_list_header_says_which_target_is_missing(pytester: pytest.Pytester, two_served: VirtualLab) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5556,emulator-5590")
    result.stdout.fnmatch_lines([f"mobile-agent: emulator-5556 {FACTS}",
                                 "mobile-agent: emulator-5590 is not on the adb server at *"])


def test_xdist_workers_status_lines_are_printed_per_target(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.parametrize("n", range(4))
        def test_x(session, n):
            assert session.status()
        """
    )
    result = pytester.runpytest_subprocess(*ISOLATED, "-n", "2", "--android-serial", "virtual:2",
                                           "--emulator-controller", "off")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*mobile-agent status*"])
    for serial in ("emulator-5554", "emulator-5556"):
        result.stdout.fnmatch_lines([f"{serial}: mobile-agent-android * over protocol 1, pid *",
                                     "input: agent (taps, long presses and swipes)"])
