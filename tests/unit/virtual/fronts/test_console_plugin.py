"""The project's own advice, end to end: `adb -s emulator-N emu grpc PORT` on a device without a
controller, then the plugin's `--emulator-controller auto` finds and uses it (pytester run)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

# Imported before the in-process inner run, as test_plugin_surface.py does (pytester drops modules).
import pytest_mobile_agent.session
import pytest_mobile_agent.virtual.fronts.controller  # noqa: F401
from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV
from pytest_mobile_agent.virtual.lab import VirtualLab, adb_binary

pytest_plugins = ["pytester"]
ADB = adb_binary()
pytestmark = pytest.mark.skipif(ADB is None, reason="no adb binary (/usr/bin/adb): apt-get install adb")


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualLab]:
    monkeypatch.setenv(DISCOVERY_DIR_ENV, str(tmp_path / "avd-running"))
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(tmp_path / "locks"))
    monkeypatch.setenv("MOBILE_AGENT_RECORDS", str(tmp_path / "records"))
    with VirtualLab.start(1, real_adb=True) as started:
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(started.adb_port))
        monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
        yield started


def test_after_adb_emu_grpc_the_plugins_auto_choice_uses_the_controller(
    lab: VirtualLab, pytester: pytest.Pytester
) -> None:
    assert ADB is not None
    serial = lab.serials[0]
    pytester.makepyfile(
        """
        def test_the_controller_is_there(controller):
            assert controller is not None
            assert (controller.hardware.width, controller.hardware.height) == (1080, 2400)
        """
    )
    before = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider", "--android-serial", serial,
                                "--emulator-controller", "auto")
    before.assert_outcomes(failed=1)  # no gRPC endpoint yet: the fixture gives None

    env = dict(os.environ, **lab.console_environment())
    enabled = subprocess.run([ADB, "-P", str(lab.adb_port), "-s", serial, "emu", "grpc", "0"], capture_output=True,
                             env=env, timeout=20, check=False)
    assert b"OK: gRPC endpoint available at port" in enabled.stdout, enabled

    after = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider", "--android-serial", serial,
                               "--emulator-controller", "auto")
    after.assert_outcomes(passed=1)
