"""logcat's buffer: what the boot, the activity manager and the runtime log."""

from __future__ import annotations

import re

from pytest_mobile_agent.virtual.device import VirtualDevice
from tests.support.virtual_shell import run_shell as run


def test_logcat_holds_the_boot_the_activity_manager_and_the_runtime_lines(vdev: VirtualDevice) -> None:
    run(vdev, "am start -W -n dev.mobileagent.fixture/.MainActivity; am force-stop dev.mobileagent.fixture")
    run(vdev, "app_process / no.such.Main")
    lines = run(vdev, "logcat -d")[1].splitlines()
    assert lines[0] == "--------- beginning of main"
    assert any(" I ActivityManager: System now ready" in line for line in lines)
    start = next(line for line in lines if "ActivityManager: Start proc" in line and "dev.mobileagent.fixture" in line)
    assert re.search(
        r"   620   620 I ActivityManager: Start proc \d+:dev\.mobileagent\.fixture/u0a\d+ for next-top-activity "
        r"\{dev\.mobileagent\.fixture/dev\.mobileagent\.fixture\.MainActivity\}$",
        start,
    )
    assert any(
        re.search(r"ActivityManager: Force stopping dev\.mobileagent\.fixture appid=\d+ user=0: from pid \d+$", line)
        for line in lines
    )
    assert any(
        " D AndroidRuntime: >>>>>> START com.android.internal.os.RuntimeInit uid 2000 <<<<<<" in line for line in lines
    )
