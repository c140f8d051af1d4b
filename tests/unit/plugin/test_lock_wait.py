"""Issue 28 item 5: how long a device test waits for the automation lock (another test, worker, run
or the inspector holding it) is an option, `--lock-wait` (900 s by default), not a fixed 900 s."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_mobile_agent.automation_lock import AutomationLock
from pytest_mobile_agent.virtual import VirtualLab
from tests.unit.plugin.plugin_inner_runs import ISOLATED, isolate, served_lab

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(pytester, monkeypatch)


@pytest.fixture(name="served_lab")
def _served_lab(monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualLab]:
    with served_lab(monkeypatch, 1) as lab:
        yield lab


def test_a_test_waits_for_the_lock_as_long_as_the_option_says(pytester: pytest.Pytester,
                                                               served_lab: VirtualLab) -> None:
    pytester.makepyfile("def test_x(agent):\n    pass\n")
    lock = AutomationLock("emulator-5554", server=f"127.0.0.1:{served_lab.adb_port}")
    with lock.held("inspector (pid 1)", timeout=5):
        result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", "--lock-wait", "1.5")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*waiting for the automation lock on emulator-5554 on 127.0.0.1:* (held by pid * "
                                 "(inspector (pid 1))*) timed out after its deadline of 1.5 s*"])


def test_the_lock_wait_must_be_a_positive_number(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(*ISOLATED, "--lock-wait", "soon")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--lock-wait takes a number, not 'soon'*"])
