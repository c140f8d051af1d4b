"""The emulator controller's getStatus hardware and platform config fed any strings: a Hardware with
a positive display size or a ControllerError naming the keys, never another exception."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.emulator.hardware import Hardware, parse_bool
from pytest_mobile_agent.errors import ControllerError
from tests.fuzz.bounds import only_our_errors

KEYS = ["hw.lcd.width", "hw.lcd.height", "hw.lcd.density", "hw.keyboard", "x"]
values = st.one_of(
    st.text(max_size=8), st.integers(-5, 10**6).map(str), st.sampled_from(["", " 1080 ", "٣", "²", "yes"])
)
configs = st.dictionaries(st.sampled_from(KEYS), values, max_size=5)


@given(configs, st.one_of(st.none(), configs), st.integers(-10, 5000))
def test_any_hardware_config_is_a_display_size_or_a_controller_error(hardware, platform, width):
    with only_our_errors() as caught:
        found = Hardware.from_config(hardware, platform)
        assert found.width > 0 and found.height > 0 and found.density >= 0
        w, h = found.scaled_size(width)
        assert (w, h) == (0, 0) or (w == width and h > 0)
    assert all(isinstance(e, ControllerError) for e in caught)


@given(st.text(max_size=10))
def test_any_boolean_text_is_a_boolean(text):
    assert parse_bool(text) in (True, False)
