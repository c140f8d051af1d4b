"""`ps -o PID,ARGS` of the device against the real toybox (Debian's, 0.8.x): ARGS is the command
line with argv[0]'s leading path removed (toys/posix/ps.c, string_field: the `/` before
SLOT_argv0len). So init, started as `/system/bin/init second_stage` (AOSP system/core/init/
selinux.cpp), shows as `init second_stage`, which is what captures of `ps -A -o PID,ARGS` from
Android devices show too; CMDLINE keeps the path."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from pytest_mobile_agent.virtual.device import VirtualDevice
from tests.support.virtual_shell import run_shell

TOYBOX = shutil.which("toybox")
pytestmark = pytest.mark.skipif(TOYBOX is None, reason="no toybox (Debian: apt-get install toybox)")


def _host_row(field: str, argv: list[str]) -> str:
    """The real toybox's `ps -o FIELD -p PID` value for a host process started with `argv`."""
    assert TOYBOX is not None
    process = subprocess.Popen(argv)
    try:
        out = subprocess.run([TOYBOX, "ps", "-o", field, "-p", str(process.pid)], capture_output=True, text=True,
                             check=True, timeout=10).stdout
    finally:
        process.kill()
        process.wait()
    return out.splitlines()[1].strip()


def test_args_drops_argv0s_path_as_toybox_does_and_cmdline_keeps_it() -> None:
    sleep = shutil.which("sleep")
    assert sleep is not None and sleep.startswith("/")
    assert _host_row("ARGS", [sleep, "30"]) == "sleep 30"
    assert _host_row("CMDLINE", [sleep, "30"]) == f"{sleep} 30"
    device = VirtualDevice()
    try:
        _, args, _ = run_shell(device, "ps -A -o PID,ARGS")
        _, cmdline, _ = run_shell(device, "ps -A -o PID,CMDLINE")
    finally:
        device.close()
    assert "    1 init second_stage" in args.splitlines()
    assert "    1 /system/bin/init second_stage" in cmdline.splitlines()
