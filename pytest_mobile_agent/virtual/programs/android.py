"""The Android tools of the device (getprop and friends); see the module docstrings of each."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mobile_agent.virtual import process as pm

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.device import VirtualDevice


def install(device: VirtualDevice) -> None:
    def getprop(proc: pm.Process) -> int:
        args = proc.argv[1:]
        if not args:
            proc.stdout.write("".join(f"[{k}]: [{v}]\n" for k, v in sorted(device.properties.items())))
            return 0
        default = args[1] if len(args) > 1 else ""
        proc.stdout.write(device.getprop(args[0], default) + "\n")
        return 0

    device.programs.register("getprop", getprop)
