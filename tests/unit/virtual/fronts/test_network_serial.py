"""A `HOST:PORT` serial (from `adb connect`) works in every request, `host-serial:` included.

Google's adb server splits `host-serial:<serial>:<command>` with `internal::parse_host_service`
(AOSP packages/modules/adb sockets.cpp): the serial may hold one `:PORT`. The built-in endpoint
splits as it does (adb/serials.parse_host_service), checked byte for byte against Debian's adb; the
client refuses a serial the server would split elsewhere rather than reach another device.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import AdbServer, Device
from pytest_mobile_agent.virtual.lab import VirtualLab, adb_binary
from tests.support.smart_socket import exchange


def test_the_client_refuses_a_serial_the_server_would_split_elsewhere() -> None:
    with pytest.raises(errors.InvalidArgument, match="'a:b'"):  # nothing listens: refused before connecting
        AdbServer(host="127.0.0.1", port=1).device("a:b").forwards()


@pytest.fixture(scope="module")
def connected() -> Iterator[VirtualLab]:
    """A device attached to Debian's adb server with `adb connect`: named 127.0.0.1:PORT."""
    if adb_binary() is None:
        pytest.skip("no adb binary (/usr/bin/adb): apt-get install adb")
    with VirtualLab.start(1, real_adb=True, emulator_ports=range(0)) as lab:
        assert lab.serials[0].startswith("127.0.0.1:")
        yield lab


def _cases(serial: str) -> list[tuple[str, ...]]:
    host, _, port = serial.rpartition(":")
    return [
        (f"host-serial:{serial}:get-state",),
        (f"host-serial:{serial}:get-serialno",),
        (f"host-serial:{serial}:features",),
        (f"host-serial:{serial}:list-forward",),
        (f"host-serial:{serial}:killforward:tcp:1",),
        (f"host-serial:{serial}:forward:tcp:1",),
        (f"host-serial:tcp:{serial}:get-serialno",),
        (f"host-serial:{host}:get-state",),  # the host alone is another serial
        (f"host-serial:{host}:{port}x:get-state",),
        (f"host:tport:serial:{serial}",),
        (f"host:transport:{serial}", "shell,v2,raw:echo ok"),
    ]


def test_host_serial_with_a_network_serial_is_answered_as_the_real_server_does(connected: VirtualLab) -> None:
    serial = connected.serials[0]
    for case in _cases(serial):
        real = exchange(connected.adb_port, *case)
        builtin = exchange(connected.builtin_adb_port, *case)
        if case[0].endswith(":features"):
            real, builtin = set(real[8:].split(b",")), set(builtin[8:].split(b","))
        if case[0].startswith("host:tport:"):  # the id is the server's own counter (transport.cpp), not the device's
            assert len(builtin) == len(real) == 12 and int.from_bytes(builtin[4:], "little") > 0
            real, builtin = real[:4], builtin[:4]
        assert builtin == real, f"{case}: the real server said {real!r}, the built-in endpoint {builtin!r}"


@pytest.mark.parametrize("which", ["real", "builtin"])
def test_every_call_of_the_client_works_with_a_network_serial(connected: VirtualLab, which: str) -> None:
    port = connected.adb_port if which == "real" else connected.builtin_adb_port
    device = Device(AdbServer(host="127.0.0.1", port=port), connected.serials[0])
    assert device.shell("echo ok").text() == "ok\n"
    remote = f"/data/local/tmp/mobile-agent-netserial-{which}"
    device.push_bytes(b"payload", remote)
    assert device.pull_bytes(remote) == b"payload"
    assert device.stat(remote).size == len(b"payload")
    listener = socket.create_server(("127.0.0.1", 0))
    name = f"mobile-agent-netserial-{which}"
    try:
        device.reverse(f"localabstract:{name}", f"tcp:{listener.getsockname()[1]}")
        assert any(rule.local == f"localabstract:{name}" for rule in device.reverses())
        forwarded = device.forward_tcp(f"localabstract:{name}")
        assert any(rule.local == f"tcp:{forwarded}" for rule in device.forwards())
        # the forward's port is bound on the server's host (here loopback), the reverse on the device
        with socket.create_connection(("127.0.0.1", forwarded), timeout=5.0):
            listener.settimeout(5.0)
            accepted, _ = listener.accept()
            accepted.close()
        with device.open_abstract(name):
            accepted, _ = listener.accept()
            accepted.close()
        device.remove_forward(f"tcp:{forwarded}")
        assert not any(rule.local == f"tcp:{forwarded}" for rule in device.forwards())
        device.remove_reverse(f"localabstract:{name}")
    finally:
        listener.close()
        device.shell(f"rm -f {remote}")

