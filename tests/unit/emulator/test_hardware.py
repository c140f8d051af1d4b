"""emulator::hardware::tests: the display size and keyboard from getStatus, and the frame sizes
the client asks for."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.emulator import Hardware
from pytest_mobile_agent.emulator._proto import emulator_controller_pb2 as pb
from pytest_mobile_agent.errors import ControllerError

PIXEL = Hardware(width=1080, height=2400, density=420)


def status(hardware: dict[str, str], platform: dict[str, str] | None = None) -> pb.EmulatorStatus:
    message = pb.EmulatorStatus(
        hardwareConfig=pb.EntryList(entry=[pb.Entry(key=k, value=v) for k, v in hardware.items()])
    )
    message.platformConfig.update(platform or {})
    return message


def test_scaling_sets_both_width_and_height() -> None:
    assert PIXEL.scaled_size(540) == (540, 1200)
    assert PIXEL.requested_size(540) == (540, 1200)
    assert Hardware(width=1440, height=3120).scaled_size(720) == (720, 1560)


def test_the_height_keeps_the_aspect_ratio_rounded_up() -> None:
    assert PIXEL.scaled_size(500) == (500, 1112)  # 1111.1 rounded up
    assert PIXEL.scaled_size(100) == (100, 223)  # 222.2
    assert Hardware(width=1080, height=2340).scaled_size(540) == (540, 1170)  # exact stays exact
    # rounded up, the width is the side that binds in the emulator's resizeKeepAspectRatio
    for width in range(1, 1080, 7):
        w, h = PIXEL.scaled_size(width)
        assert w * PIXEL.height <= h * PIXEL.width < (h + 1) * PIXEL.width


def test_no_scaling_requests_the_display_size_as_zeros() -> None:
    assert PIXEL.requested_size(None) == (0, 0)
    assert PIXEL.scaled_size(0) == (0, 0)
    assert PIXEL.scaled_size(1080) == (0, 0)  # the full width is no scaling
    assert PIXEL.scaled_size(4000) == (0, 0)  # the emulator never upscales


def test_the_display_size_comes_from_the_lcd_keys() -> None:
    hardware = Hardware.from_status(
        status({"hw.lcd.width": "1080", "hw.lcd.height": "2400", "hw.lcd.density": "420", "hw.keyboard": "false"})
    )
    assert (hardware.width, hardware.height, hardware.density, hardware.keyboard) == (1080, 2400, 420, False)


def test_the_status_falls_back_to_the_deprecated_hardware_config() -> None:
    # 37.x fills platformConfig, but without the display size on the emulator spike S7 measured
    hardware = Hardware.from_status(
        status({"hw.lcd.width": "1080", "hw.lcd.height": "2400"}, {"avd.name": "Pixel_7", "hw.lcd.width": ""})
    )
    assert (hardware.width, hardware.height) == (1080, 2400)


def test_platform_config_wins_when_it_has_the_display_size() -> None:
    hardware = Hardware.from_status(
        status({"hw.lcd.width": "1080", "hw.lcd.height": "2400"}, {"hw.lcd.width": "1440", "hw.lcd.height": "3120"})
    )
    assert (hardware.width, hardware.height) == (1440, 3120)


def test_a_status_without_a_display_size_is_a_controller_error() -> None:
    with pytest.raises(ControllerError, match="names no display size"):
        Hardware.from_status(status({"hw.lcd.width": "1080", "hw.lcd.height": "tall"}))
    with pytest.raises(ControllerError):
        Hardware.from_status(pb.EmulatorStatus())


@pytest.mark.parametrize(
    ("value", "declared"),
    [("true", True), ("True", True), ("yes", True), ("false", False), ("no", False), ("", False), ("maybe", False)],
)
def test_keys_go_through_the_controller_only_with_a_declared_keyboard(value: str, declared: bool) -> None:
    hardware = Hardware.from_status(status({"hw.lcd.width": "1080", "hw.lcd.height": "2400", "hw.keyboard": value}))
    assert hardware.keyboard is declared
    assert hardware.keys_supported is declared
    without = Hardware.from_status(status({"hw.lcd.width": "1080", "hw.lcd.height": "2400"}))
    assert without.keys_supported is False
