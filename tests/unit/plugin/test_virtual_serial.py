"""The fixtures' first version: `--android-serial virtual` on either front, and the skip without one."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.plugin import NO_SERIAL_REASON
from pytest_mobile_agent.virtual.lab import adb_binary

pytest_plugins = ["pytester"]

SUITE = """
import pytest

pytestmark = pytest.mark.device

def test_the_target_is_the_labs_first_device(android_target, adb_server, device):
    assert android_target.virtual
    assert device.serial == android_target.serial == android_target.lab.serials[0]
    assert adb_server.port == android_target.lab.adb_port
    assert device.shell("echo ok").stdout == b"ok\\n"

def test_the_front(android_target, request):
    real = request.config.getoption("virtual_adb") == "real"
    assert (android_target.lab.real is not None) == real
"""


def test_android_serial_virtual_starts_a_lab_on_the_builtin_endpoint(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(SUITE)
    pytester.runpytest_inprocess("--android-serial", "virtual").assert_outcomes(passed=2)


@pytest.mark.skipif(adb_binary() is None, reason="no adb binary (/usr/bin/adb): apt-get install adb")
def test_virtual_adb_real_puts_debians_server_in_front(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(SUITE)
    pytester.runpytest_inprocess("--android-serial", "virtual", "--virtual-adb", "real").assert_outcomes(passed=2)


def test_a_device_test_without_a_serial_is_skipped_with_the_reason(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MOBILE_AGENT_ANDROID_SERIAL", raising=False)
    pytester.makepyfile(SUITE)
    result = pytester.runpytest_inprocess("-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines([f"*{NO_SERIAL_REASON[:60]}*"])


def test_an_unknown_front_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(SUITE)
    result = pytester.runpytest_inprocess("--android-serial", "virtual", "--virtual-adb", "other")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
