"""A serial the adb grammar makes ambiguous never reaches another device (issue 13, item 3).

`host-serial:<serial>:<command>` is split by the adb server's `parse_host_service`: the serial
`emulator-5554:forward:tcp:P;localabstract` ends at its first colon, so `forwards()` on it made the
server install `tcp:P -> localabstract:list-forward` on emulator-5554. Checked on Debian's adb
server (the real grammar) and on the built-in endpoint; network serials keep working."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import AdbServer, Device
from pytest_mobile_agent.adb.serials import check_serial, parse_host_service
from pytest_mobile_agent.virtual import VirtualLab
from tests.support.ports import free_port

ADB = shutil.which("adb")


@pytest.fixture(scope="module", params=["builtin", pytest.param("real", marks=pytest.mark.skipif(
    ADB is None, reason="Debian's adb server is not installed (sudo bash .ci/system-deps)"))])
def lab(request: pytest.FixtureRequest) -> Iterator[VirtualLab]:
    lab = VirtualLab.start(1, real_adb=request.param == "real")
    try:
        yield lab
    finally:
        lab.stop()


@pytest.fixture
def server(lab: VirtualLab) -> AdbServer:
    return AdbServer(host="127.0.0.1", port=lab.adb_port)


@pytest.fixture
def device_serial(lab: VirtualLab) -> str:
    """The lab's device: emulator-5554, or the next free console port's while another worker's lab
    holds 5554."""
    return lab.serials[0]


def hostile(serial: str, port: int) -> list[str]:
    return [f"{serial}:forward:tcp:{port};localabstract", f"{serial}:forward:norebind:tcp:{port};tcp:1",
            f"{serial}:killforward-all", f"tcp:{serial}:forward:tcp:{port};tcp:2",
            f"[::1]x:forward:tcp:{port};tcp:3", f"{serial}:5555:forward:tcp:1;tcp:4"]


def test_a_hostile_serial_is_refused_and_installs_no_rule_on_the_real_device(server: AdbServer,
                                                                              device_serial: str) -> None:
    port = free_port()
    target = server.device(device_serial)
    before = target.forwards()
    for serial in hostile(device_serial, port):
        with pytest.raises(errors.InvalidArgument, match="ambiguous to the adb server"):
            Device(server, serial).forwards()
    assert target.forwards() == before


def test_a_serial_the_server_does_not_list_is_refused_before_any_host_serial_request(server: AdbServer,
                                                                                     device_serial: str) -> None:
    with pytest.raises(errors.DeviceNotListed, match="not on the adb server"):
        Device(server, "emulator-5598").forward_tcp("tcp:9")
    assert all(rule.serial != "emulator-5598" for rule in server.device(device_serial).forwards())


@pytest.mark.parametrize("serial", ["emulator-5554", "127.0.0.1:5555", "localhost:5555", "[::1]:5555",
                                    "192.168.1.20:37101", "adb-R5CT4-abc._adb-tls-connect._tcp", "0123456789ABCDEF",
                                    "vsock:3:5555", "tcp:10.0.0.2:5555"])
def test_real_serials_read_back_whole(serial: str) -> None:
    assert check_serial(serial) == serial
    assert parse_host_service(f"{serial}:list-forward") == (serial, "list-forward")


def test_an_empty_port_is_a_port_as_adb_reads_it() -> None:
    assert parse_host_service("a::list-forward") == ("a:", "list-forward")
    assert check_serial("a:") == "a:"


@pytest.mark.parametrize("serial", ["", "a\x00b", "bad\nserial", "emulator-5554:x"])
def test_empty_control_and_colon_smuggling_serials_are_invalid_arguments(serial: str) -> None:
    with pytest.raises(errors.InvalidArgument):
        Device(AdbServer(host="127.0.0.1", port=1), serial)


@given(st.text(min_size=1, max_size=40))
def test_any_serial_check_serial_accepts_is_read_back_whole_by_the_grammar(serial: str) -> None:
    try:
        check_serial(serial)
    except errors.InvalidArgument:
        return
    for command in ("list-forward", "forward:tcp:0;tcp:1", "killforward:tcp:5"):
        assert parse_host_service(f"{serial}:{command}") == (serial, command)
