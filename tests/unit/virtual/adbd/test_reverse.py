"""adbd's reverse rules on the device side: the listeners, the replies, the way back to the host."""

from __future__ import annotations

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb.wire import encode_fail, encode_length_prefixed
from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.kernel.streams import DeviceStream, stream_pair
from tests.support.polling import wait_until
from tests.support.streams import read_to_end


def reply(vdev: VirtualDevice, service: str, **kw: object) -> bytes:
    return read_to_end(vdev.open_service(service, **kw), 1.0)  # type: ignore[arg-type]


class Host:
    """A host side for reverse rules: each connector call opens one stream, kept for the test."""

    def __init__(self, vdev: VirtualDevice) -> None:
        self.device = vdev
        self.opened: list[tuple[str, DeviceStream]] = []

    def __call__(self, local: str) -> DeviceStream:
        if local == "tcp:1":
            raise errors.Closed("connection refused")
        ours, theirs = stream_pair(self.device.kernel, label=f"host {local}")
        self.opened.append((local, ours))
        return theirs


def test_a_reverse_rule_makes_the_device_side_listen_and_joins_the_host(vdev: VirtualDevice) -> None:
    host = Host(vdev)
    assert reply(vdev, "reverse:forward:localabstract:mobile-agent-it-rev;tcp:9000", host=host) == b"OKAY"
    assert "mobile-agent-it-rev" in vdev.sockets.abstract_names()
    client = vdev.open_service("localabstract:mobile-agent-it-rev")
    assert wait_until(lambda: bool(host.opened))
    local, host_end = host.opened[0]
    assert local == "tcp:9000"
    client.send(b"from device")
    assert host_end.recv(1.0) == b"from device"
    host_end.send(b"from host")
    assert client.recv(1.0) == b"from host"
    client.close()
    assert host_end.recv(1.0) == b""


def test_reverse_lists_kills_and_refuses_as_adbd(vdev: VirtualDevice) -> None:
    host = Host(vdev)
    assert reply(vdev, "reverse:forward:localabstract:a;tcp:1000", host=host) == b"OKAY"
    assert reply(vdev, "reverse:forward:tcp:5000;localabstract:b") == b"OKAY"
    listing = f"{vdev.transport_name} localabstract:a tcp:1000\n{vdev.transport_name} tcp:5000 localabstract:b\n"
    assert reply(vdev, "reverse:list-forward") == encode_length_prefixed(listing.encode())
    assert reply(vdev, "reverse:forward:norebind:localabstract:a;tcp:2000") == encode_fail(
        "cannot rebind existing socket"
    )
    assert reply(vdev, "reverse:forward:localabstract:a;tcp:2000") == b"OKAY"
    assert reply(vdev, "reverse:killforward:localabstract:a") == b"OKAY"
    assert "a" not in vdev.sockets.abstract_names()
    assert reply(vdev, "reverse:killforward:localabstract:a") == encode_fail("listener 'localabstract:a' not found")
    assert reply(vdev, "reverse:killforward-all") == b"OKAY"
    assert reply(vdev, "reverse:list-forward") == b"0000"


def test_reverse_tcp_0_reports_the_port_bound(vdev: VirtualDevice) -> None:
    data = reply(vdev, "reverse:forward:tcp:0;tcp:7000")
    assert data[:4] == b"OKAY"
    port = int(data[8:].decode())
    assert data[4:8] == b"%04x" % len(str(port)) and port in vdev.sockets.tcp_ports()


@pytest.mark.parametrize(
    ("service", "message"),
    [
        ("reverse:forward:localabstract:x", "bad forward: localabstract:x"),
        ("reverse:forward:;tcp:1", "bad forward: ;tcp:1"),
        ("reverse:forward:udp:1;tcp:1", "cannot bind listener: unknown socket specification:udp:1"),
        ("reverse:forward:tcp:70000;tcp:1", "cannot bind listener: bad port number '70000'"),
        ("reverse:bogus", "not a reverse forwarding command"),
    ],
)
def test_a_reverse_adbd_refuses_reports_its_error(vdev: VirtualDevice, service: str, message: str) -> None:
    assert reply(vdev, service) == encode_fail(message)


def test_a_reverse_on_a_name_a_process_listens_on_cannot_bind(vdev: VirtualDevice) -> None:
    vdev.sockets.listen_abstract("busy", owner_pid=1)
    assert reply(vdev, "reverse:forward:localabstract:busy;tcp:1") == encode_fail(
        "cannot bind listener: Address already in use"
    )


def test_a_reverse_whose_host_side_refuses_closes_the_device_connection(vdev: VirtualDevice) -> None:
    reply(vdev, "reverse:forward:localabstract:refused;tcp:1", host=Host(vdev))
    client = vdev.open_service("localabstract:refused")
    assert client.recv(1.0) == b""


def test_each_rule_goes_back_through_the_front_that_installed_it(vdev: VirtualDevice) -> None:
    first, second = Host(vdev), Host(vdev)
    reply(vdev, "reverse:forward:localabstract:one;tcp:1001", host=first)
    reply(vdev, "reverse:forward:localabstract:two;tcp:1002", host=second)
    vdev.open_service("localabstract:one")
    assert wait_until(lambda: [local for local, _ in first.opened] == ["tcp:1001"])
    vdev.remove_reverse_rules(second)
    assert "two" not in vdev.sockets.abstract_names() and "one" in vdev.sockets.abstract_names()
