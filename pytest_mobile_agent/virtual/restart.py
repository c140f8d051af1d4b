"""adbd's `root:` and `unroot:` services (daemon/restart_service.cpp), as the emulator's userdebug
image answers them:

* `root:`: "adbd is already running as root" when it is; "adbd cannot run as root in production
  builds" when ro.debuggable is not 1; else "restarting adbd as root": service.adb.root becomes 1
  and adbd restarts, so the transport drops and the adb server attaches the device again, whose
  shells now run as root (uid 0);
* `unroot:`: "adbd not running as root", or "restarting adbd as non root" and the same restart.

Each text ends with a newline and the stream closes after it. The restart reaches the fronts
through `device.adbd_restart_listeners` (the adbd endpoint drops its connections once the reply
is out; adb's client then waits for the device to go and come back, `wait-for-disconnect` and
`wait-for-device`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pytest_mobile_agent.virtual.reverse import ReplyStream

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.device import VirtualDevice

log = logging.getLogger("pytest_mobile_agent.virtual")


def restart_service(device: VirtualDevice, service: str) -> ReplyStream:
    to_root = service.startswith("root:")
    rooted = device.getprop("service.adb.root") == "1"
    if to_root and rooted:
        text = "adbd is already running as root\n"
    elif to_root and device.getprop("ro.debuggable") != "1":
        text = "adbd cannot run as root in production builds\n"
    elif not to_root and not rooted:
        text = "adbd not running as root\n"
    else:
        text = "restarting adbd as root\n" if to_root else "restarting adbd as non root\n"
        device.restart_adbd(root=to_root)
    return ReplyStream(device, text.encode(), service)
