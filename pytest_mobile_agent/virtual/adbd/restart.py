"""adbd's `root:` and `unroot:` services (daemon/restart_service.cpp), as the emulator's userdebug
image answers them:

* `root:`: "adbd is already running as root" when it is; "adbd cannot run as root in production
  builds" when ro.debuggable is not 1; else "restarting adbd as root": service.adb.root becomes 1
  and adbd restarts, so the transport drops and the adb server attaches the device again, whose
  shells now run as root (uid 0);
* `unroot:`: "adbd not running as root", or "restarting adbd as non root" and the same restart.

Each text ends with a newline and the stream closes after it. The restart reaches the fronts
through `Adbd.restart_listeners` (the adbd endpoint drops its connections once the reply
is out; adb's client then waits for the device to go and come back, `wait-for-disconnect` and
`wait-for-device`).
"""

from __future__ import annotations

import logging

from pytest_mobile_agent.virtual.adbd.daemon import Adbd
from pytest_mobile_agent.virtual.adbd.reverse import ReplyStream

log = logging.getLogger("pytest_mobile_agent.virtual")


def restart_service(adbd: Adbd, service: str) -> ReplyStream:
    to_root = service.startswith("root:")
    properties = adbd.system.properties
    rooted = properties.get("service.adb.root") == "1"
    if to_root and rooted:
        text = "adbd is already running as root\n"
    elif to_root and properties.get("ro.debuggable") != "1":
        text = "adbd cannot run as root in production builds\n"
    elif not to_root and not rooted:
        text = "adbd not running as root\n"
    else:
        text = "restarting adbd as root\n" if to_root else "restarting adbd as non root\n"
        adbd.restart(root=to_root)
    return ReplyStream(adbd.system.kernel, text.encode(), service)
