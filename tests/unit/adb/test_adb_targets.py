"""Target discovery (the seed's "Target discovery" table): devices-l, getprop facts, advice."""

from __future__ import annotations

import re
import string

from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.adb import wire
from pytest_mobile_agent.adb.targets import (
    GETPROP_KEYS,
    DeviceEntry,
    advice_for,
    facts_from_getprop,
    getprop_command,
    parse_devices_l,
)
from tests.support.adb_scripted import Peer, client

NO_PERMISSIONS_STATE = (
    "no permissions (missing udev rules? user is in the plugdev group); "
    "see [http://developer.android.com/tools/device.html]"
)

LISTING = (
    "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 device:emu64x transport_id:1\n"
    "R58M123ABC             unauthorized usb:1-1 transport_id:2\n"
    "192.168.1.20:5555      offline transport_id:3\n"
    "0A1B2C3D               authorizing usb:1-2 transport_id:4\n"
    f"0123456789ABCDEF       {NO_PERMISSIONS_STATE} usb:3-2 transport_id:5\n"
    "FA7BX1A00123           bootloader usb:1-3 transport_id:6\n"
    "HT4CTJT01234           recovery product:walleye model:Pixel_2 device:walleye transport_id:7\n"
)


def devices_reply(listing: str):
    def handler(peer: Peer) -> None:
        peer.expect("host:devices-l")
        peer.okay()
        peer.send_lp(listing.encode())

    return handler


def getprop_reply(serial: str, output: bytes, exit_code: int = 0):
    def handler(peer: Peer) -> None:
        peer.transport(serial, f"shell,v2,raw:{getprop_command()}")
        assert peer.read_shell_packet() == (wire.SHELL_CLOSE_STDIN, b"")
        peer.shell(wire.SHELL_STDOUT, output)
        peer.shell(wire.SHELL_EXIT, bytes([exit_code]))

    return handler


def props(serialno: str, model: str, sdk: str, kernel_qemu: str = "", boot_qemu: str = "") -> bytes:
    return f"{serialno}\n{model}\n{sdk}\n{kernel_qemu}\n{boot_qemu}\n".encode()


# --- scripted adb server -------------------------------------------------------------------------


def test_an_unauthorized_device_is_listed_with_instructions(scripted):
    server = scripted(devices_reply("R58M123ABC             unauthorized usb:1-1 transport_id:2\n"))
    [target] = client(server).targets()
    assert target.serial == "R58M123ABC"
    assert target.state == "unauthorized"
    assert target.advice is not None
    assert "accept" in target.advice and "prompt on the device" in target.advice
    assert target.attributes == {"usb": "1-1", "transport_id": "2"}
    assert server.connections == 1  # no getprop for a target that cannot run one


def test_devices_keep_every_state(scripted):
    server = scripted(devices_reply(LISTING))
    entries = client(server).devices()
    assert [(e.serial, e.state) for e in entries] == [
        ("emulator-5554", "device"),
        ("R58M123ABC", "unauthorized"),
        ("192.168.1.20:5555", "offline"),
        ("0A1B2C3D", "authorizing"),
        ("0123456789ABCDEF", NO_PERMISSIONS_STATE),
        ("FA7BX1A00123", "bootloader"),
        ("HT4CTJT01234", "recovery"),
    ]
    assert entries[0].attributes == {
        "product": "sdk_gphone64_x86_64",
        "model": "sdk_gphone64_x86_64",
        "device": "emu64x",
        "transport_id": "1",
    }
    assert server.requests() == ["host:devices-l"]


def test_a_target_whose_properties_cannot_be_read_stays_listed(scripted):
    listing = (
        "emulator-5554          device transport_id:1\n"
        "emulator-5556          device transport_id:2\n"
        "emulator-5558          device transport_id:3\n"
    )

    def transport_refused(peer: Peer) -> None:
        peer.expect("host:transport:emulator-5554")
        peer.fail("device offline (transport disconnected)")

    def garbage(peer: Peer) -> None:
        peer.transport("emulator-5556", f"shell,v2,raw:{getprop_command()}")
        peer.send(b"\x09garbage that is no shell packet")
        peer.wait_closed()

    server = scripted(
        devices_reply(listing),
        transport_refused,
        garbage,
        getprop_reply("emulator-5558", props("EMULATOR36X1", "sdk_gphone64", "36", boot_qemu="1")),
    )
    targets = client(server).targets()
    assert [t.serial for t in targets] == ["emulator-5554", "emulator-5556", "emulator-5558"]
    refused, garbled, fine = targets
    assert refused.state == "device" and refused.api_level is None
    assert "device offline (transport disconnected)" in (refused.properties_error or "")
    assert garbled.api_level is None and "shell packet" in (garbled.properties_error or "")
    assert refused.emulator and garbled.emulator  # the serial still says so
    assert refused.advice is None and garbled.advice is None
    assert (fine.api_level, fine.model, fine.emulator, fine.properties_error) == (36, "sdk_gphone64", True, None)


def test_an_online_target_is_read_with_getprop_through_the_server(scripted):
    server = scripted(
        devices_reply("R58M123ABC             device usb:1-1 product:beyond1 model:SM_G973F transport_id:2\n"),
        getprop_reply("R58M123ABC", props("R58M123ABC", "SM-G973F", "31")),
    )
    [target] = client(server).targets()
    assert (target.api_level, target.model, target.emulator, target.hardware_serial) == (
        31,
        "SM-G973F",
        False,
        "R58M123ABC",
    )
    assert target.advice is None


# --- parser and advice ---------------------------------------------------------------------------


def test_keeps_unauthorized_offline_and_authorizing_targets():
    entries = parse_devices_l(
        "R58M123ABC\tunauthorized\n"
        "192.168.1.20:5555      offline transport_id:3\n"
        "0A1B2C3D               authorizing usb:1-2 transport_id:4\n"
    )
    assert [(e.serial, e.state) for e in entries] == [
        ("R58M123ABC", "unauthorized"),
        ("192.168.1.20:5555", "offline"),
        ("0A1B2C3D", "authorizing"),
    ]
    assert [e.online for e in entries] == [False, False, False]


def test_keeps_the_no_permissions_explanation():
    [entry] = parse_devices_l(f"0123456789ABCDEF       {NO_PERMISSIONS_STATE} usb:3-2 transport_id:5\n")
    assert entry.state == NO_PERMISSIONS_STATE
    assert entry.base_state == "no permissions"
    assert entry.attributes == {"usb": "3-2", "transport_id": "5"}
    advice = advice_for(entry)
    assert advice is not None
    assert "missing udev rules? user is in the plugdev group" in advice
    assert "http://developer.android.com/tools/device.html" in advice


def test_unauthorized_advice_says_to_accept_the_prompt_on_the_device():
    advice = advice_for(DeviceEntry("R58M123ABC", "unauthorized"))
    assert advice is not None
    assert "accept" in advice and "prompt on the device" in advice
    assert "R58M123ABC" in advice


def test_every_unusable_state_has_advice_and_an_online_device_has_none():
    states = ["unauthorized", "offline", "authorizing", NO_PERMISSIONS_STATE, "connecting", "bootloader",
              "recovery", "sideload", "rescue", "host", "detached", "unknown", "some-future-state"]
    advice = {state: advice_for(DeviceEntry("SERIAL1", state)) for state in states}
    for state, text in advice.items():
        assert text, f"no advice for {state}"
        assert "SERIAL1" in text
    assert len(set(advice[s] for s in ["unauthorized", "offline", "authorizing", NO_PERMISSIONS_STATE])) == 4
    assert "some-future-state" in (advice["some-future-state"] or "")
    assert advice_for(DeviceEntry("SERIAL1", "device")) is None


def test_an_online_target_takes_its_level_model_and_emulator_flag_from_getprop():
    emulator = facts_from_getprop(
        "emulator-5554", props("EMULATOR36X1X1X0", "sdk_gphone64_x86_64", "36", kernel_qemu="1").decode()
    )
    assert (emulator.api_level, emulator.model, emulator.emulator, emulator.hardware_serial) == (
        36, "sdk_gphone64_x86_64", True, "EMULATOR36X1X1X0")
    # API 30+ images set ro.boot.qemu rather than ro.kernel.qemu; a networked emulator has no emulator- serial
    networked = facts_from_getprop("127.0.0.1:5555", props("EMU", "sdk_gphone64_arm64", "35", boot_qemu="1").decode())
    assert networked.emulator and networked.api_level == 35
    phone = facts_from_getprop("R58M123ABC", props("R58M123ABC", "SM-G973F", "31").decode())
    assert (phone.api_level, phone.model, phone.emulator) == (31, "SM-G973F", False)
    unknown_level = facts_from_getprop("R58M123ABC", props("", "", "").decode())
    assert (unknown_level.api_level, unknown_level.model, unknown_level.hardware_serial) == (None, None, None)
    # A level in digits Python takes and the framework does not ('³⁶'): unknown, never a ValueError.
    odd_level = facts_from_getprop("R58M123ABC", props("R58M123ABC", "SM-G973F", "³⁶").decode())
    assert odd_level.api_level is None


def test_getprop_output_of_the_wrong_shape_is_refused():
    try:
        facts_from_getprop("x", "only one line\n")
    except ValueError as exc:
        assert f"for {len(GETPROP_KEYS)} properties" in str(exc)
    else:
        raise AssertionError("a short getprop output was accepted")


# --- properties ----------------------------------------------------------------------------------

_serial = st.text(
    st.characters(min_codepoint=33, max_codepoint=0x2FFF, blacklist_categories=("Cs", "Z")), min_size=1, max_size=30
)
_state = st.sampled_from(
    ["device", "unauthorized", "offline", "authorizing", NO_PERMISSIONS_STATE, "bootloader", "host"]
)
# the strings of [a-z_]{1,12} and [A-Za-z0-9_.:-]{0,12}, drawn as text of those alphabets (from_regex
# draws the same strings at several times the CPU)
_attribute = st.tuples(
    st.text(string.ascii_lowercase + "_", min_size=1, max_size=12),
    st.text(string.ascii_letters + string.digits + "_.:-", max_size=12),
)


@given(st.lists(st.tuples(_serial, _state, st.lists(_attribute, max_size=4)), max_size=8))
def test_the_devices_l_parser_keeps_every_serial(rows):
    lines = []
    for serial, state, attributes in rows:
        tail = "".join(f" {key}:{value}" for key, value in attributes)
        lines.append(f"{serial:<22} {state}{tail}")
    entries = parse_devices_l("\n".join(lines) + "\n")
    assert [e.serial for e in entries] == [row[0] for row in rows]
    assert [e.state for e in entries] == [row[1] for row in rows]


@given(st.text())
def test_the_devices_l_parser_never_raises(text):
    entries = parse_devices_l(text)
    lines = [line.strip(" \t\r\n\v\f") for line in text.split("\n")]
    serials = [re.split(r"[ \t\r\v\f]+", line)[0] for line in lines if line and not line.startswith("(no serial")]
    assert [e.serial for e in entries if e.serial != "(no serial number)"] == serials
