"""Issue 16, items 9 and 10: `@pytest.mark.device` alone is skipped (or, under
--android-require-device, fails the run) exactly as a test that uses a device fixture, when no target
is named and when the named target is unreachable; and a skip's location is the test's, not the
plugin's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_mobile_agent.virtual import VirtualLab
from tests.unit.plugin.plugin_inner_runs import ISOLATED, isolate, served_lab

pytest_plugins = ["pytester"]


SUITE = """
import pytest

@pytest.mark.device
def test_marked_only():
    pass

def test_by_fixture(device):
    pass

def test_plain():
    pass
"""


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(pytester, monkeypatch)


@pytest.fixture(name="served_lab")
def _served_lab(monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualLab]:
    """An adb server (a virtual lab's) that lists emulator-5554 only."""
    with served_lab(monkeypatch, 1) as lab:
        yield lab


def skipped_lines(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith("SKIPPED")]


def test_without_a_target_each_skip_points_at_its_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest(*ISOLATED, "-rs")
    result.assert_outcomes(passed=1, skipped=2)
    lines = skipped_lines(result)
    assert [line.split(": ", 1)[0] for line in lines] == ["SKIPPED [1] test_suite.py:3", "SKIPPED [1] test_suite.py:7"]
    assert all(
        "--android-serial SERIAL" in line and "plugin.py" not in line and "fixtures.py" not in line for line in lines
    )


def test_under_the_opt_out_an_unreachable_target_skips_a_marked_test_as_it_skips_a_fixture_using_one(
        pytester: pytest.Pytester, served_lab: VirtualLab) -> None:
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5570", "--android-skip-unusable", "-rs")
    result.assert_outcomes(passed=1, skipped=2)
    lines = skipped_lines(result)
    assert [line.split(": ", 1)[0] for line in lines] == ["SKIPPED [1] test_suite.py:3", "SKIPPED [1] test_suite.py:7"]
    reasons = {line.split(": ", 1)[1] for line in lines}
    assert len(reasons) == 1, lines  # the same reason for both
    assert reasons.pop().startswith("the Android target is not usable: did you mean `--android-serial emulator-5554`? "
                                    "emulator-5570 is not on the adb server")


def test_under_require_device_an_unreachable_target_fails_the_run_whatever_the_tests_use(
        pytester: pytest.Pytester, served_lab: VirtualLab) -> None:
    pytester.makepyfile(test_suite="import pytest\n\n@pytest.mark.device\ndef test_marked_only():\n    pass\n")
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5570", "--android-require-device")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--android-require-device: the Android target is not usable: did you mean*? "
                                 "emulator-5570 is not on the adb server*"])
