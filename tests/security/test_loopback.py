"""Every server the virtual device and the test suite start listens on loopback only.

Dynamically: the listening TCP sockets this process (and the real adb server it starts as a child)
holds are read from /proc/net/tcp{,6} by the inodes of their descriptors, after starting the lab's
adb endpoint, a device's adbd endpoint, the controller double, a forward rule's host listener and
the unit tests' scripted adb server. Statically: every bind, add_insecure_port and create_server
call in the repository's Python names a loopback address.
"""

from __future__ import annotations

import ipaddress
import os
import re
from pathlib import Path

import pytest

from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.virtual import VirtualLab
from pytest_mobile_agent.virtual.lab import adb_binary

ROOT = Path(__file__).resolve().parents[2]
LISTEN = "0A"


def _socket_inodes(pid: int | str) -> set[str]:
    inodes = set()
    fd_dir = Path(f"/proc/{pid}/fd")
    for fd in fd_dir.iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def _address(hex_address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    if len(hex_address) == 8:
        return ipaddress.IPv4Address(bytes.fromhex(hex_address)[::-1])
    words = [bytes.fromhex(hex_address[i:i + 8])[::-1] for i in range(0, 32, 8)]
    return ipaddress.IPv6Address(b"".join(words))


def listening(pid: int | str = "self") -> list[tuple[str, int]]:
    """(address, port) of every listening TCP socket `pid` holds."""
    inodes = _socket_inodes(pid)
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == LISTEN and inode in inodes:
                address, port = local.split(":")
                found.append((str(_address(address)), int(port, 16)))
    return found


def _is_loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    return ip.is_loopback or (
        isinstance(ip, ipaddress.IPv6Address) and bool(ip.ipv4_mapped and ip.ipv4_mapped.is_loopback)
    )


def _scripted_adb_server():  # noqa: ANN202 - the unit tests' helper
    from tests.support.adb_scripted import ScriptedAdbServer

    return ScriptedAdbServer


def test_the_virtual_devices_servers_and_the_test_servers_listen_on_loopback_only(tmp_path: Path) -> None:
    from pytest_mobile_agent.virtual.fronts.controller import ControllerDouble

    before = set(listening())
    lab = VirtualLab.start(1)
    scripted = _scripted_adb_server()([])
    double = None
    try:
        serial = lab.serials[0]
        adbd_port = lab.start_adbd(serial)
        double = ControllerDouble(lab.device(serial).display, serial=serial, discovery_dir=tmp_path).start()
        device = AdbServer(port=lab.adb_port).device(serial)
        forwarded = device.forward_tcp("localabstract:loopback-check")
        ours = set(listening()) - before
        ports = {port for _, port in ours}
        assert {lab.adb_port, adbd_port, double.port, forwarded, scripted.port} <= ports, (ours, before)
        assert all(_is_loopback(address) for address, _ in ours), ours
    finally:
        scripted.stop()
        if double is not None:
            double.stop()
        lab.stop()
    assert set(listening()) <= before, "every server stopped with its owner"


@pytest.mark.skipif(adb_binary() is None, reason="Debian's adb package is not installed (apt-get install adb)")
def test_the_real_adb_server_the_lab_starts_listens_on_loopback_only() -> None:
    lab = VirtualLab.start(1, real_adb=True)
    try:
        assert lab.real is not None
        served = listening(lab.real.pid)
        assert lab.real.port in {port for _, port in served}
        assert all(_is_loopback(address) for address, _ in served), served
        assert all(_is_loopback(address) for address, _ in listening())
    finally:
        lab.stop()


_CALL = re.compile(r"\.(bind|add_insecure_port|create_server)\(\s*(.{0,60})")
_LOOPBACK_LITERAL = re.compile(r"""^\(?\s*\(?\s*(f?["'](127\.0\.0\.1|localhost|\[::1\]|::1)[:"'])""")


def test_every_bind_in_the_repository_names_a_loopback_address() -> None:
    offenders = []
    for path in [*ROOT.glob("pytest_mobile_agent/**/*.py"), *ROOT.glob("tests/**/*.py"), *ROOT.glob("benches/*.py")]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in _CALL.finditer(line):
                argument = match.group(2)
                if match.group(1) == "bind" and not argument.startswith("("):
                    continue  # not a socket bind (str.bind, a function named bind, ...)
                if path == Path(__file__) or _LOOPBACK_LITERAL.match(argument):
                    continue
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
