"""The emulated hardware through the controller: setBattery/getBattery, setGps/getGps,
sendFingerprint, setPosture and getPhysicalModel(POSTURE), from the client to the double and into
the virtual device's state, as the guest would see them (`dumpsys battery`, `dumpsys location`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from pytest_mobile_agent.emulator import Controller, resolve
from pytest_mobile_agent.emulator._proto import emulator_controller_pb2 as pb
from pytest_mobile_agent.emulator._proto import emulator_controller_pb2_grpc as pb_grpc
from pytest_mobile_agent.emulator.hardware_state import EmulatedBattery, GpsFix
from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.fronts.controller import ControllerDouble
from tests.support.virtual_shell import run_shell as run


@pytest.fixture
def device_and_controller(discovery_dir: Path) -> Iterator[tuple[VirtualDevice, Controller]]:
    device = VirtualDevice()
    with ControllerDouble(device.display, serial="emulator-5554", hardware=device.state) as double, \
            Controller.connect(resolve(double.serial)) as controller:
        yield device, controller
    device.close()


def test_the_battery_the_emulator_sets_is_what_the_guest_reports(
        device_and_controller: tuple[VirtualDevice, Controller]) -> None:
    device, controller = device_and_controller
    assert controller.battery() == EmulatedBattery(level=100, charger="ac", status="charging")
    controller.set_battery(EmulatedBattery(level=23, charger="none", status="discharging", health="overheated"))
    assert controller.battery() == EmulatedBattery(level=23, charger="none", status="discharging", health="overheated")
    dump = run(device, "dumpsys battery")[1]
    assert "  AC powered: false\n" in dump and "  status: 3\n" in dump and "  health: 3\n" in dump
    assert "  level: 23\n" in dump
    run(device, "dumpsys battery set level 80")
    controller.set_battery(EmulatedBattery(level=50))
    assert "  level: 80\n" in run(device, "dumpsys battery")[1], "`dumpsys battery set` stopped the updates"
    run(device, "dumpsys battery reset")
    assert "  level: 50\n" in run(device, "dumpsys battery")[1]


def test_the_gps_fix_is_the_gps_providers_location(device_and_controller: tuple[VirtualDevice, Controller]) -> None:
    device, controller = device_and_controller
    controller.set_gps(GpsFix(48.8566, 2.3522, altitude=35.0))
    fix = controller.gps()
    assert (fix.latitude, fix.longitude, fix.altitude) == (48.8566, 2.3522, 35.0)
    assert "last location=Location[gps 48.856600,2.352200" in run(device, "dumpsys location")[1]


def test_fingerprint_touches_and_the_posture_reach_the_device(
        device_and_controller: tuple[VirtualDevice, Controller]) -> None:
    device, controller = device_and_controller
    controller.send_fingerprint(3, True)
    controller.send_fingerprint(3, False)
    assert device.state.sensors.fingerprint_touches == [(3, True), (3, False)]
    assert controller.posture() is None, "a phone reports no posture"
    controller.set_posture("tent")
    assert (controller.posture(), device.state.sensors.posture) == ("tent", 5)
    controller.set_posture(None)
    assert controller.posture() is None


def test_the_new_calls_need_the_token_as_every_call_does(discovery_dir: Path) -> None:
    device = VirtualDevice()
    with ControllerDouble(device.display, hardware=device.state) as double:
        channel = grpc.insecure_channel(f"127.0.0.1:{double.port}")
        stub = pb_grpc.EmulatorControllerStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            stub.setGps(pb.GpsState(latitude=1.0), timeout=5)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        channel.close()
    device.close()
