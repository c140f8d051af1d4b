"""Issue 28 items 5 and 9: the agent a run leaves lingers for `--agent-idle-exit` seconds (10 by
default), holding UI automation for the next test, worker or run, and then exits, so that
uiautomator2, Appium or `uiautomator dump` get the device back seconds after a run."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

import pytest_mobile_agent.virtual.agent  # noqa: F401  (before the inner runs: see test_plugin_surface)
from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.agent.launch import agent_of, parse_ps
from pytest_mobile_agent.virtual import VirtualLab
from tests.unit.plugin.plugin_inner_runs import ISOLATED, isolate, served_lab

pytest_plugins = ["pytester"]

USES_THE_AGENT = "def test_x(agent):\n    assert agent.record.pid\n"


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(pytester, monkeypatch)
    monkeypatch.delenv("MOBILE_AGENT_IDLE_EXIT", raising=False)


@pytest.fixture(name="served_lab")
def _served_lab(monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualLab]:
    with served_lab(monkeypatch, 1) as lab:
        yield lab


def agents(lab: VirtualLab) -> list[int]:
    device = AdbServer(host="127.0.0.1", port=lab.adb_port).device(lab.serials[0])
    return [entry.pid for entry in parse_ps(device.shell("ps -A -o PID,ARGS").text()) if agent_of(entry) is not None]


def gone_within(lab: VirtualLab, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while agents(lab):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_the_agent_exits_its_idle_exit_after_the_run(pytester: pytest.Pytester, served_lab: VirtualLab) -> None:
    pytester.makepyfile(USES_THE_AGENT)
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", "--agent-idle-exit", "1")
    result.assert_outcomes(passed=1)
    left = time.monotonic()
    assert gone_within(served_lab, 5.0), "the run's agent exits about 1 s after its last host left"
    assert time.monotonic() - left < 5.0


def test_by_default_the_agent_lingers_seconds_for_the_next_run_and_is_reused(pytester: pytest.Pytester,
                                                                            served_lab: VirtualLab) -> None:
    pytester.makepyfile("def test_x(agent):\n    print('OUTCOME', type(agent.outcome).__name__, agent.record.pid)\n")
    first = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", "-s")
    first.assert_outcomes(passed=1)
    first_ended = time.monotonic()
    assert len(agents(served_lab)) == 1, "it lingers after the run"
    second = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", "-s")
    second.assert_outcomes(passed=1)
    if "OUTCOME Reused" not in second.stdout.str():
        # a loaded host can take the whole idle window to start the next run: then, and only then, it
        # may find the agent gone and launch its own
        assert time.monotonic() - first_ended > 10.0, f"not reused within its idle window:\n{second.stdout.str()}"
    assert gone_within(served_lab, 10.0 + 5.0), "and exits once idle for 10 s, not 10 minutes"


def test_the_idle_exit_must_be_a_positive_number_of_seconds(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(USES_THE_AGENT)
    result = pytester.runpytest(*ISOLATED, "--agent-idle-exit", "0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--agent-idle-exit must be more than 0 seconds, not 0*"])
