"""The services an adbd OPEN reaches on the device (daemon/services.cpp's table):

* `shell,v2,raw:CMD`, `shell,v2,pty:CMD`, `shell:CMD`, `exec:CMD` (virtual/adbd/shell_service.py);
* `abb_exec:SERVICE\\0ARG...` (raw, like exec:) and `abb:SERVICE\\0ARG...` (shell protocol v2): the
  binder call as `cmd SERVICE ARG...` runs it;
* `sync:` (virtual/adbd/sync_service.py);
* `localabstract:NAME`, `tcp:PORT` (`tcp:HOST:PORT` with a loopback host), connecting to a listener
  on the device (virtual/kernel/sockets.py);
* `reverse:...` (virtual/adbd/reverse.py), `root:` and `unroot:` (virtual/adbd/restart.py).

A service adbd does not know, or a connection nobody listens for, raises errors.Closed.
"""

from __future__ import annotations

import shlex

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.adbd.daemon import Adbd, HostConnector
from pytest_mobile_agent.virtual.adbd.restart import restart_service
from pytest_mobile_agent.virtual.adbd.reverse import reverse_service
from pytest_mobile_agent.virtual.adbd.shell_service import ShellSession, parse_shell_service
from pytest_mobile_agent.virtual.adbd.sync_service import SyncSession
from pytest_mobile_agent.virtual.kernel.streams import ByteStream


def open_service(adbd: Adbd, service: str, peer_uid: int | None = None,
                 connector: HostConnector | None = None) -> ByteStream:
    """The device side of an adbd service; errors.Closed when adbd would refuse it. The service
    runs as adbd does: the shell user, or root after `adb root`. `connector` is the way back to the
    host the front gives (kept for the reverse rules)."""
    if adbd.restarting_as_root is not None:
        raise errors.Closed(f"adbd is restarting (adb {'root' if adbd.restarting_as_root else 'unroot'}): "
                            f"{service!r} is refused until the device is back (adb wait-for-device)")
    if peer_uid is None:
        peer_uid = adbd.uid
    if connector is not None:
        adbd.set_host_connector(connector)
    shell = parse_shell_service(service)
    if shell is not None:
        args, command = shell
        return ShellSession(adbd, args, command, peer_uid)
    if service.startswith(("abb_exec:", "abb:")):
        kind, _, rest = service.partition(":")
        line = "cmd " + " ".join(shlex.quote(arg) for arg in rest.split("\0"))
        return ShellSession(adbd, ["exec"] if kind == "abb_exec" else ["v2", "raw"], line, peer_uid)
    sockets = adbd.system.sockets
    if service == "sync:":
        return SyncSession(adbd, peer_uid)
    if service.startswith("localabstract:"):
        return sockets.connect_abstract(service[len("localabstract:"):], peer_uid)
    if service.startswith("tcp:"):
        return sockets.connect_tcp_spec(service, peer_uid)
    if service.startswith("reverse:"):
        return reverse_service(adbd, service[len("reverse:"):], connector)
    if service.startswith(("root:", "unroot:")):
        return restart_service(adbd, service)
    raise errors.Closed(f"the device does not offer the service {service!r}")
