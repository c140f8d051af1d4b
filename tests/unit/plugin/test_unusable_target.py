"""Issue 28 item 6: a named target that is unknown, unreachable or not on the adb server fails the run
at its start, with the advice and a "did you mean" when the name is close to a real one; with no
target named the device tests still skip (the CI mode); `--android-skip-unusable` (or
MOBILE_AGENT_SKIP_UNUSABLE=1) keeps the skip."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_mobile_agent.virtual import VirtualLab
from tests.support.ports import closed_port
from tests.unit.plugin.plugin_inner_runs import ISOLATED, isolate, served_lab

pytest_plugins = ["pytester"]

SUITE = "def test_on_the_device(device):\n    pass\n\ndef test_plain():\n    pass\n"


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(pytester, monkeypatch)


@pytest.fixture(name="served_lab")
def _served_lab(monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualLab]:
    """An adb server (a virtual lab's) that lists emulator-5554 only."""
    with served_lab(monkeypatch, 1) as lab:
        yield lab


@pytest.fixture
def no_adb_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The default adb server is a port that refuses connections."""
    with closed_port() as port:
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(port))
        monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
        yield


@pytest.mark.parametrize(("named", "meant"), [("virtaul", "virtual"), ("emulatr-5554", "emulator-5554")])
def test_a_misspelled_target_fails_the_run_at_its_start_with_a_did_you_mean(
        pytester: pytest.Pytester, served_lab: VirtualLab, named: str, meant: str) -> None:
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest(*ISOLATED, "--android-serial", named)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        f"*--android-serial {named}: the Android target is not usable: did you mean `--android-serial {meant}`? "
        f"{named} is not on the adb server at 127.0.0.1:{served_lab.adb_port} (it lists emulator-5554 (device)). "
        "Check the serial with `python -m pytest_mobile_agent targets` or `adb devices -l`*--android-skip-unusable*"])
    assert "passed" not in result.stdout.str()


def test_a_target_on_an_unreachable_adb_server_fails_the_run_with_the_servers_advice(
        pytester: pytest.Pytester, no_adb_server: None) -> None:
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtaul")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    """Issue 41 item 15: the cause ("cannot reach the adb server") came first and the "did you mean"
    last, after it, as if the server were the problem."""
    result.stderr.fnmatch_lines(["*--android-serial virtaul: the Android target is not usable: did you mean "
                                 "`--android-serial virtual`? cannot reach the adb server at 127.0.0.1:*"
                                 "Run `adb start-server`*"])


def test_every_item_of_a_comma_list_is_tried(pytester: pytest.Pytester, served_lab: VirtualLab) -> None:
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554,emulator-5556")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--android-serial emulator-5556: the Android target is not usable: *emulator-5556 "
                                 "is not on the adb server*"])


def test_with_no_target_named_device_tests_still_skip(pytester: pytest.Pytester, no_adb_server: None) -> None:
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest(*ISOLATED)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1, skipped=1)


@pytest.mark.parametrize("opt_out", ["option", "environment"])
def test_the_opt_out_keeps_the_skip_with_the_advice(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                    served_lab: VirtualLab, opt_out: str) -> None:
    pytester.makepyfile(test_suite=SUITE)
    args = ["--android-serial", "virtaul", "-rs"]
    if opt_out == "option":
        args.append("--android-skip-unusable")
    else:
        monkeypatch.setenv("MOBILE_AGENT_SKIP_UNUSABLE", "1")
    result = pytester.runpytest(*ISOLATED, *args)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*the Android target is not usable: did you mean `--android-serial virtual`? "
                                 "virtaul is not on the adb server*"])
