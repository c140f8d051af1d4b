"""The lab's contract: serials, ports, devices, adbd endpoints on request, the environment, stop."""

from __future__ import annotations

import os
import socket

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual import VirtualDevice, VirtualLab
from pytest_mobile_agent.virtual.fronts.loopback import ADBD_PORTS
from tests.support.scripted_device import ScriptedDevice


def test_a_lab_serves_its_devices_on_the_builtin_endpoint_and_stops() -> None:
    lab = VirtualLab.start(3)
    try:
        assert lab.serials == ["emulator-5554", "emulator-5556", "emulator-5558"]
        assert lab.adb_port == lab.builtin_adb_port and lab.real is None
        assert isinstance(lab.device("emulator-5556"), VirtualDevice)
        assert lab.device("emulator-5556").getprop("ro.serialno") != lab.device("emulator-5554").getprop("ro.serialno")
        assert lab.environment() == {"ANDROID_ADB_SERVER_PORT": str(lab.adb_port)}
        with pytest.raises(errors.MobileAgentError, match="no virtual device 'emulator-9999'"):
            lab.device("emulator-9999")
        with socket.create_connection(("127.0.0.1", lab.adb_port), timeout=2.0) as sock:
            sock.sendall(b"000chost:version")
            assert sock.recv(12) == b"OKAY00040029"
    finally:
        lab.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", lab.adb_port), timeout=1.0).close()


def test_start_adbd_listens_on_the_serials_port_when_free_and_once() -> None:
    with VirtualLab.start(1, device_factory=lambda serial, index: ScriptedDevice()) as lab:
        serial = lab.serials[0]
        assert lab.adbd_port(serial) is None
        free = _free(5555)
        port = lab.start_adbd(serial)
        assert lab.start_adbd(serial) == port == lab.adbd_port(serial)
        endpoint = lab.adbd_endpoint(serial)
        assert endpoint is not None and endpoint.port == port
        if free:  # another lab on this machine may hold 5555: then any free port will do
            assert port == 5555
        else:
            assert port != 5555 and port not in ADBD_PORTS
        with socket.create_connection(("127.0.0.1", port), timeout=2.0):
            pass


def _free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the endpoint binds
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_environ_points_adb_at_the_lab_for_its_duration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "5037")
    monkeypatch.setenv("ADB_SERVER_SOCKET", "tcp:127.0.0.1:5037")
    with VirtualLab.start(1, device_factory=lambda serial, index: ScriptedDevice()) as lab:
        with lab.environ():
            assert os.environ["ANDROID_ADB_SERVER_PORT"] == str(lab.adb_port)
            assert "ADB_SERVER_SOCKET" not in os.environ
        assert os.environ["ANDROID_ADB_SERVER_PORT"] == "5037"
        assert os.environ["ADB_SERVER_SOCKET"] == "tcp:127.0.0.1:5037"


def test_a_lab_needs_a_device() -> None:
    with pytest.raises(errors.MobileAgentError, match="at least one device"):
        VirtualLab.start(0)
