"""A serial is one target, never a request (issue 13, item 3): a serial that adb's host-serial
grammar would split elsewhere (`emulator-5554:forward:tcp:P;localabstract`) is refused before any
request, and a serial the server does not list never reaches a `host-serial:` request."""

from __future__ import annotations

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb.device import check_serial

from .lab import Bench

SMUGGLED = ["{serial}:forward:tcp:{port};localabstract", "{serial}:killforward-all", "{serial}:list-forward",
            "tcp:{serial}:forward:tcp:1;tcp:2", "{serial}:5555:list-forward"]


@pytest.mark.parametrize("shape", SMUGGLED)
def test_a_serial_carrying_a_host_request_installs_nothing_on_the_real_device(vd: Bench, shape: str) -> None:
    hostile = shape.format(serial=vd.serial, port=47211)
    before = vd.device.forwards()
    with pytest.raises(errors.InvalidArgument, match="serial"):
        vd.server.device(hostile).forwards()
    assert vd.device.forwards() == before


@pytest.mark.parametrize("serial", ["127.0.0.1:5555", "emulator-5554", "[::1]:5555", "tcp:127.0.0.1:5555",
                                    "R58M123ABC", "adb-R58M123-abc._adb-tls-connect._tcp", "localhost:5037"])
def test_real_serials_are_accepted(serial: str) -> None:
    assert check_serial(serial) == serial


@pytest.mark.parametrize("serial", ["a:b", "host:port:x", "127.0.0.1:5555:list-forward", "[::1]:x", ":5555",
                                    "emulator-5554;x", "x:5555:", "usb:1-1:forward"])
def test_ambiguous_serials_are_refused(serial: str) -> None:
    with pytest.raises(errors.InvalidArgument, match="serial"):
        check_serial(serial)


def test_an_unlisted_serial_gets_no_host_serial_request(vd: Bench) -> None:
    with pytest.raises(errors.AdbFailure) as missing:
        vd.server.device("127.0.0.1:1").forward("tcp:0", "tcp:1")
    assert "not found" in str(missing.value) and "127.0.0.1:1" in str(missing.value)
    assert all(rule.serial != "127.0.0.1:1" for rule in vd.device.forwards())
