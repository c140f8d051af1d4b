"""What the device path reads back: the dumps parsed as the platform prints them, and the checks of
a caller's arguments, each error naming its argument."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mobile_agent.control.activities import check_url, matches, qualified
from pytest_mobile_agent.control.battery import check_level, read_battery
from pytest_mobile_agent.control.hardware import check_finger
from pytest_mobile_agent.control.location import check_coordinates
from pytest_mobile_agent.control.network import DELAYS, SPEEDS, check_value
from pytest_mobile_agent.control.rotation import check_orientation
from pytest_mobile_agent.errors import InvalidArgument

# BatteryService.dumpInternal on an Android 14 phone on USB, updates stopped by `dumpsys battery set`
BATTERY_DUMP = """Current Battery Service state:
  (UPDATES STOPPED -- use 'reset' to restart)
  AC powered: false
  USB powered: true
  Wireless powered: false
  Dock powered: false
  Max charging current: 500000
  Max charging voltage: 5000000
  Charge counter: 2841000
  status: 2
  health: 2
  present: true
  level: 57
  scale: 100
  voltage: 4012
  temperature: 281
  technology: Li-ion
  Charging state: 1
  Charging policy: 1
"""


def test_the_battery_dump_reads_as_the_system_sees_it() -> None:
    state = read_battery(BATTERY_DUMP)
    assert (state.level, state.charging, state.plugged) == (57, True, "usb")
    full = read_battery(BATTERY_DUMP.replace("status: 2", "status: 5"))
    assert full.charging, "full on a charger counts as charging"
    unplugged = read_battery(BATTERY_DUMP.replace("USB powered: true", "USB powered: false")
                             .replace("status: 2", "status: 3"))
    assert (unplugged.charging, unplugged.plugged) == (False, None)


@pytest.mark.parametrize("orientation", ["portrait", "landscape", "reverse_portrait", "reverse_landscape"])
def test_every_orientation_is_a_quarter_turn(orientation: str) -> None:
    assert check_orientation(orientation) in (0, 1, 2, 3)


@pytest.mark.parametrize(("check", "value", "named"), [
    (check_orientation, "upside_down", "orientation"),
    (check_orientation, 1, "orientation"),
    (check_url, "www.example.com", "url"),
    (check_url, None, "url"),
    (check_level, 101, "level"),
    (check_level, 3.5, "level"),
    (check_finger, 0, "finger"),
    (check_finger, True, "finger"),
])
def test_a_bad_argument_names_itself(check: Any, value: Any, named: str) -> None:
    with pytest.raises(InvalidArgument, match=named):
        check(value)


@pytest.mark.parametrize(("latitude", "longitude", "named"), [
    (-90.01, 0, "latitude"), (0, 180.5, "longitude"), ("48.8", 2.3, "latitude"), (0, float("inf"), "longitude"),
])
def test_coordinates_out_of_range_name_the_argument(latitude: Any, longitude: Any, named: str) -> None:
    with pytest.raises(InvalidArgument, match=named):
        check_coordinates(latitude, longitude, None)


def test_the_poles_and_the_date_line_are_coordinates() -> None:
    assert check_coordinates(90, -180, 12) == (90.0, -180.0, 12.0)


def test_speeds_and_delays_are_the_consoles_names_numbers_or_pairs() -> None:
    assert [check_value("speed", name, SPEEDS) for name in ("edge", "full", "128", "128:1024")] == \
        ["edge", "full", "128", "128:1024"]
    assert check_value("delay", 200, DELAYS) == "200"
    for bad in ("warp", "-5", "1:2:3", True, None):
        with pytest.raises(InvalidArgument, match="delay must be one of gsm"):
            check_value("delay", bad, DELAYS)


def test_an_activity_matches_by_component_class_or_simple_name() -> None:
    component = "dev.mobileagent.fixture/dev.mobileagent.fixture.MainActivity"
    assert qualified("dev.mobileagent.fixture/.MainActivity") == component
    for wanted in ("dev.mobileagent.fixture/.MainActivity", component, "dev.mobileagent.fixture.MainActivity",
                   "MainActivity", ".MainActivity"):
        assert matches(component, wanted), wanted
    assert not matches(component, "SettingsActivity")
    assert not matches(component, "other.pkg/.MainActivity")
