"""The device's sockets: abstract names and loopback TCP ports, reached through `localabstract:` and
`tcp:` services (adbd's reverse rules are adbd/test_reverse.py)."""

from __future__ import annotations

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.kernel.sockets import AddressInUse
from tests.support.polling import wait_until


def test_a_service_stream_reaches_a_live_abstract_socket(vdev: VirtualDevice) -> None:
    listener = vdev.sockets.listen_abstract("mobile-agent-it-live", owner_pid=1)
    stream = vdev.open_service("localabstract:mobile-agent-it-live", peer_uid=2000)
    server, uid = listener.accept(1.0)
    assert uid == 2000
    stream.send(b"ping")
    assert server.recv(1.0) == b"ping"
    server.send(b"pong")
    assert stream.recv(1.0) == b"pong"
    server.close()
    assert stream.recv(1.0) == b""
    listener.close()


def test_a_service_stream_to_a_missing_socket_fails_with_closed(vdev: VirtualDevice) -> None:
    with pytest.raises(errors.Closed):
        vdev.open_service("localabstract:mobile-agent-it-missing")


def test_a_name_in_use_cannot_be_bound_again(vdev: VirtualDevice) -> None:
    vdev.sockets.listen_abstract("taken", owner_pid=1)
    with pytest.raises(AddressInUse):
        vdev.sockets.listen_abstract("taken", owner_pid=1)


def test_a_listener_closes_when_its_owner_dies(vdev: VirtualDevice) -> None:
    def owner(proc) -> int:  # noqa: ANN001
        vdev.sockets.listen_abstract("owned", proc.pid)
        proc.sleep(30)
        return 0

    vdev.programs.register("owner", owner)
    vdev.shell("owner >/dev/null 2>&1 &")
    assert wait_until(lambda: "owned" in vdev.sockets.abstract_names())
    owner_pid = next(p.pid for p in vdev.processes.processes() if p.argv == ["owner"])
    vdev.shell(f"kill {owner_pid}")
    assert wait_until(lambda: "owned" not in vdev.sockets.abstract_names())
    with pytest.raises(errors.Closed):
        vdev.sockets.connect_abstract("owned")


def test_tcp_services_connect_to_device_ports(vdev: VirtualDevice) -> None:
    listener = vdev.sockets.listen_tcp(8080, owner_pid=1)
    stream = vdev.open_service("tcp:8080")
    server, _ = listener.accept(1.0)
    stream.send(b"GET")
    assert server.recv(1.0) == b"GET"
    with pytest.raises(errors.Closed):
        vdev.open_service("tcp:8081")
    with pytest.raises(errors.Closed):
        vdev.open_service("tcp:10.0.0.1:8080")


