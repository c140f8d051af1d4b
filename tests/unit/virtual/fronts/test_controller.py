"""The virtual device's controller double, seen through the client and through raw gRPC calls."""

from __future__ import annotations

import logging
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import numpy as np
import pytest
from google.protobuf import empty_pb2
from PIL import Image

from pytest_mobile_agent.emulator import Controller, discovery, resolve
from pytest_mobile_agent.emulator._proto import emulator_controller_pb2 as pb
from pytest_mobile_agent.emulator._proto import emulator_controller_pb2_grpc as pb_grpc
from pytest_mobile_agent.errors import Unavailable
from pytest_mobile_agent.virtual.fronts.controller import AvdConfig, ControllerDouble, fit_size
from tests.support.polling import wait_until
from tests.unit.virtual.fronts.fake_display import STATUS_BAR, FakeDisplay


@pytest.fixture
def display() -> FakeDisplay:
    return FakeDisplay()


@pytest.fixture
def double(display: FakeDisplay, discovery_dir: Path) -> Iterator[ControllerDouble]:
    with ControllerDouble(display, serial="emulator-5554") as started:
        yield started


def stub_for(double: ControllerDouble) -> tuple[grpc.Channel, pb_grpc.EmulatorControllerStub]:
    channel = grpc.insecure_channel(f"127.0.0.1:{double.port}", options=[("grpc.max_receive_message_length", -1)])
    return channel, pb_grpc.EmulatorControllerStub(channel)


def auth(double: ControllerDouble) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {double.token}"),)


def test_the_discovery_file_names_the_port_and_a_64_character_token(
    double: ControllerDouble, discovery_dir: Path
) -> None:
    assert double.discovery_path == discovery_dir / f"pid_{os.getpid()}.ini"
    props = discovery.parse_ini(double.discovery_path.read_bytes())
    assert props["port.serial"] == "5554" and props["port.adb"] == "5555"
    assert props["grpc.port"] == str(double.port) and props["grpc.token"] == double.token
    assert double.token is not None and len(double.token) == 64
    assert props["emulator.version"] == "37.1.11.0" and props["avd.id"] == "Pixel_7_API_36"
    assert '"-grpc-use-token"' in props["cmdline"] and double.token not in props["cmdline"]
    assert (double.discovery_path.stat().st_mode & 0o777) == 0o600
    endpoint = resolve("emulator-5554")
    assert (endpoint.port, endpoint.token) == (double.port, double.token)


def test_the_discovery_file_is_removed_at_stop(display: FakeDisplay, discovery_dir: Path) -> None:
    double = ControllerDouble(display).start()
    path = double.discovery_path
    assert path is not None and path.exists()
    double.stop()
    assert not path.exists()
    with pytest.raises(Unavailable):
        resolve("emulator-5554")


def test_the_port_is_the_console_port_plus_3000_unless_taken(display: FakeDisplay, discovery_dir: Path) -> None:
    # a console port whose controller port is free now (other workers' labs hold some of them)
    console = next(c for c in range(5584, 5554, -2) if _free(c + 3000))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", console + 3000))
        taken.listen()
        with ControllerDouble(display, serial=f"emulator-{console}") as double:
            assert double.port not in (0, console + 3000)
            assert resolve(f"emulator-{console}").port == double.port
    with ControllerDouble(display, serial=f"emulator-{console}") as double:
        assert double.port == console + 3000


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_two_doubles_in_one_process_advertise_two_live_pids(display: FakeDisplay, discovery_dir: Path) -> None:
    with (
        ControllerDouble(display, serial="emulator-5554") as first,
        ControllerDouble(display, serial="emulator-5556") as second,
    ):
        assert first.discovery_path != second.discovery_path
        assert resolve("emulator-5554").port == first.port
        assert resolve("emulator-5556").port == second.port
        holder = second.discovery_path
        assert holder is not None
        pid = int(holder.stem.removeprefix("pid_"))
        assert discovery.pid_alive(pid)
    assert wait_until(lambda: not discovery.pid_alive(pid), 3, 0.05)


def test_calls_without_or_with_a_wrong_token_are_refused_with_the_emulators_messages(double: ControllerDouble) -> None:
    channel, stub = stub_for(double)
    with channel:
        with pytest.raises(grpc.RpcError) as missing:
            stub.getStatus(empty_pb2.Empty(), timeout=5)
        assert (missing.value.code(), missing.value.details()) == (
            grpc.StatusCode.UNAUTHENTICATED,
            "Missing the 'authorization' header with security credentials.",
        )
        with pytest.raises(grpc.RpcError) as wrong:
            stub.getStatus(empty_pb2.Empty(), timeout=5, metadata=(("authorization", f"bearer {double.token}"),))
        assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert wrong.value.details() == f"The token `bearer {double.token}` is invalid"  # case-sensitive
        with pytest.raises(grpc.RpcError) as stream:
            next(iter(stub.streamScreenshot(pb.ImageFormat(format=pb.ImageFormat.RGB888), timeout=5)))
        assert stream.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert stub.getStatus(empty_pb2.Empty(), timeout=5, metadata=auth(double)).booted


def test_the_status_carries_the_avds_hardware_config(double: ControllerDouble) -> None:
    channel, stub = stub_for(double)
    with channel:
        status = stub.getStatus(empty_pb2.Empty(), timeout=5, metadata=auth(double))
    config = {e.key: e.value for e in status.hardwareConfig.entry}
    assert {k: config[k] for k in ("hw.lcd.width", "hw.lcd.height", "hw.lcd.density", "hw.keyboard")} == {
        "hw.lcd.width": "1080", "hw.lcd.height": "2400", "hw.lcd.density": "420", "hw.keyboard": "false",
    }
    assert "hw.lcd.width" not in status.platformConfig  # as on the emulators spike S7 measured
    assert status.version.startswith("37.1.11.0") and status.vmConfig.hypervisorType == pb.VmConfiguration.KVM


def test_a_declared_keyboard_is_reported_and_receives_keys(display: FakeDisplay, discovery_dir: Path) -> None:
    with ControllerDouble(display, avd=AvdConfig(keyboard=True), platform_config=True) as double:
        with Controller.connect(resolve("emulator-5554")) as controller:
            assert controller.keys_supported is True
            assert controller.status().platformConfig["hw.keyboard"] == "true"
        channel, stub = stub_for(double)
        with channel:
            stub.sendKey(
                pb.KeyboardEvent(key="GoBack", eventType=pb.KeyboardEvent.keypress), timeout=5, metadata=auth(double)
            )
        assert [k.key for k in double.keys_delivered] == ["GoBack"] and double.keys_dropped == 0


def test_keys_are_accepted_and_dropped_without_a_keyboard(double: ControllerDouble) -> None:
    channel, stub = stub_for(double)
    with channel:
        stub.sendKey(pb.KeyboardEvent(text="hello"), timeout=5, metadata=auth(double))
    assert double.keys_dropped == 1 and double.keys_delivered == []


@pytest.mark.parametrize(
    ("want", "got"),
    [((720, 720), (324, 720)), ((100, 100), (45, 100)), ((1080, 600), (270, 600)), ((540, 1200), (540, 1200)),
     ((500, 1112), (500, 1111)), ((270, 0), (1080, 2400)), ((0, 0), (1080, 2400)), ((5000, 9000), (1080, 2400))],
)
def test_screenshots_are_sized_as_the_emulators_resize_keep_aspect_ratio(
    want: tuple[int, int], got: tuple[int, int]
) -> None:
    assert fit_size(1080, 2400, *want) == got


def test_rgb_rgba_and_png_screenshots_show_the_same_pixels_top_down(
    double: ControllerDouble, display: FakeDisplay
) -> None:
    channel, stub = stub_for(double)
    with channel:
        images = {
            fmt: stub.getScreenshot(
                pb.ImageFormat(format=fmt, width=540, height=1200), timeout=10, metadata=auth(double)
            )
            for fmt in (pb.ImageFormat.RGB888, pb.ImageFormat.RGBA8888, pb.ImageFormat.PNG)
        }
    rgb = images[pb.ImageFormat.RGB888]
    assert (rgb.format.width, rgb.format.height, len(rgb.image), rgb.seq) == (540, 1200, 540 * 1200 * 3, 0)
    assert len(images[pb.ImageFormat.RGBA8888].image) == 540 * 1200 * 4
    assert images[pb.ImageFormat.PNG].image.startswith(b"\x89PNG")
    pixels = np.frombuffer(rgb.image, np.uint8).reshape(1200, 540, 3)
    assert tuple(pixels[0, 0]) == (30, 30, 60)  # the status bar is the first row
    assert tuple(pixels[-1, 0]) == (200, 0, 0)  # the red bottom edge is the last
    rgba = np.frombuffer(images[pb.ImageFormat.RGBA8888].image, np.uint8).reshape(1200, 540, 4)
    assert np.array_equal(rgba[:, :, :3], pixels) and (rgba[:, :, 3] == 255).all()


def test_an_invalid_display_is_an_invalid_argument(double: ControllerDouble) -> None:
    channel, stub = stub_for(double)
    with channel, pytest.raises(grpc.RpcError) as caught:
        stub.getScreenshot(pb.ImageFormat(display=3), timeout=5, metadata=auth(double))
    assert (caught.value.code(), caught.value.details()) == (grpc.StatusCode.INVALID_ARGUMENT, "Invalid display: 3")


def test_the_stream_sends_a_frame_at_once_then_only_when_the_display_changed(
    double: ControllerDouble, display: FakeDisplay
) -> None:
    with Controller.connect(resolve("emulator-5554")) as controller, controller.stream(540) as stream:
        first = stream.next(5.0)
        assert first is not None and first.seq == 0 and (first.width, first.height) == (540, 1200)
        assert stream.next(0.3) is None  # a still display sends nothing
        display.tick()
        ticked = stream.next(5.0)
        assert ticked is not None and ticked.seq == 1
        controller.touch(540, 1200, True)
        controller.touch(540, 1200, False)  # a mark where the touch lifted
        touched = stream.next(5.0)
        assert touched is not None and touched.seq == 2
        assert touched.pixel(270, 600) == (0, 120, 255)
        assert display.touch_log[-2:] == [(540, 1200, True), (540, 1200, False)]


def test_the_seq_counts_display_changes_the_stream_did_not_send(double: ControllerDouble, display: FakeDisplay) -> None:
    with Controller.connect(resolve("emulator-5554")) as controller, controller.stream(540) as stream:
        assert stream.next(5.0) is not None
        with display.condition:  # three changes at once: the stream sends the latest
            display.clock += 3
            display.changes += 3
            display.condition.notify_all()
        frame = stream.next(5.0)
        assert frame is not None and frame.seq == 3 and stream.dropped == 2


def test_a_touch_on_the_status_bar_changes_nothing(double: ControllerDouble, display: FakeDisplay) -> None:
    with Controller.connect(resolve("emulator-5554")) as controller, controller.stream(540) as stream:
        assert stream.next(5.0) is not None
        controller.touch(250, STATUS_BAR // 2, True)
        controller.touch(250, STATUS_BAR // 2, False)
        assert stream.next(0.3) is None
    assert double.touches == [(250, 42, True, 0), (250, 42, False, 0)]


def test_a_press_and_a_lift_in_one_send_touch_are_one_frame_with_no_contact_left(
        double: ControllerDouble, display: FakeDisplay) -> None:
    """TouchEventSender::doSend makes one input frame of a TouchEvent's touches (one SYN_REPORT), and
    InputReader's MultiTouchMotionAccumulator marks a slot whose tracking id went to -1 not in use:
    the guest sees no touch (aosp-mirror/platform_external_qemu, keyboard/TouchEventSender.cpp;
    frameworks/native, inputflinger/reader/mapper/accumulator/MultiTouchMotionAccumulator.cpp)."""
    with Controller.connect(resolve("emulator-5554")) as controller:
        controller.touches([(250, 42, True, 0), (250, 42, False, 0)])
        assert display.touch_log == []
        controller.touches([(250, 42, True, 0), (260, 42, True, 0)])  # down and on: down where it ends
        controller.touches([(270, 42, True, 0), (280, 42, False, 0)])  # moved and lifted: up where it ends
    assert display.touch_log == [(260, 42, True), (280, 42, False)]


def test_a_streamed_tap_is_two_frames_in_order(double: ControllerDouble, display: FakeDisplay) -> None:
    with Controller.connect(resolve("emulator-5554")) as controller:
        controller.tap(250, 42)
    assert display.touch_log == [(250, 42, True), (250, 42, False)]
    assert double.touches == [(250, 42, True, 0), (250, 42, False, 0)]


def test_a_streamed_event_of_no_type_the_emulator_knows_is_invalid_argument(
        double: ControllerDouble, display: FakeDisplay) -> None:
    channel = grpc.insecure_channel(f"127.0.0.1:{double.port}")
    try:
        stub = pb_grpc.EmulatorControllerStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.streamInputEvent(iter([pb.InputEvent()]), timeout=5.0,
                                  metadata=(("authorization", f"Bearer {double.token}"),))
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert caught.value.details() == "Unknown event, is the emulator out of date?."
    finally:
        channel.close()


def test_a_jwt_mode_emulator_is_unavailable_to_the_client(display: FakeDisplay, discovery_dir: Path) -> None:
    with ControllerDouble(display, auth="jwt") as double:
        props = discovery.parse_ini(double.discovery_path.read_bytes())  # type: ignore[union-attr]
        assert "grpc.token" not in props and props["grpc.jwks"] and props["grpc.jwk_active"]
        with pytest.raises(Unavailable, match="wants signed JWT tokens"):
            resolve("emulator-5554")


def test_an_open_endpoint_needs_no_token(display: FakeDisplay, discovery_dir: Path) -> None:
    with ControllerDouble(display, auth="none"):
        endpoint = resolve("emulator-5554")
        assert endpoint.token is None
        with Controller.connect(endpoint) as controller:
            assert controller.hardware.width == 1080


def test_the_double_serves_the_virtual_devices_display(discovery_dir: Path) -> None:
    from pytest_mobile_agent.virtual.android.display import Display

    display = Display()
    display.override_density = 480  # `wm density 480`: the AVD's hardware keeps its own
    events = display.subscribe()
    with ControllerDouble(display) as double, Controller.connect(resolve("emulator-5554")) as controller:
        assert (controller.hardware.width, controller.hardware.height, controller.hardware.density) == (1080, 2400, 420)
        with controller.stream(540) as stream:
            first = stream.next(5.0)
            assert first is not None and (first.width, first.height, first.seq) == (540, 1200, 0)
            display.changed()
            later = stream.next(5.0)
            assert later is not None and later.seq == 1
        controller.touch(250, 50, True)
        controller.touch(250, 50, False)
        assert double.touches == [(250, 50, True, 0), (250, 50, False, 0)]
    lines = []
    while not events.empty():
        lines.append(events.get_nowait())
    codes = [(code, value) for _, _, code, value in lines]
    assert ("ABS_MT_POSITION_X", 250) in codes and ("ABS_MT_POSITION_Y", 50) in codes
    assert ("BTN_TOUCH", "DOWN") in codes and ("BTN_TOUCH", "UP") in codes


def test_a_wrong_token_makes_the_endpoint_unavailable_without_showing_it(double: ControllerDouble) -> None:
    from pytest_mobile_agent.emulator import Endpoint

    wrong = "w" * 64
    with pytest.raises(Unavailable) as caught:
        Controller.connect(Endpoint.at(double.port, token=wrong, serial="emulator-5554"))
    assert "UNAUTHENTICATED: The token `Bearer <token>` is invalid" in caught.value.reason
    assert wrong not in caught.value.warning()


class ScaledDisplay(FakeDisplay):
    """The same display, drawing the stream's size itself (as the frame-stream bench's does)."""

    def __init__(self) -> None:
        super().__init__()
        self.scaled_renders = 0

    def render_at(self, width: int, height: int) -> Image.Image | None:
        if (width, height) == self.size:
            return None  # full size: the feed renders
        self.scaled_renders += 1
        image = FakeDisplay.render(self)
        self.renders -= 1
        return image.reduce(image.width // width)


def stream_frames(display: FakeDisplay, discovery_dir: Path, width: int | None) -> list[tuple[int, int, int, bytes]]:
    frames = []
    with (ControllerDouble(display, serial="emulator-5554"), Controller.connect(resolve("emulator-5554")) as controller,
          controller.stream(width) as stream):
        for step in range(3):
            frame = stream.next(5.0)
            assert frame is not None
            frames.append((frame.seq, frame.width, frame.height, frame.data))
            if step == 0:
                display.tick()
            else:
                controller.touch(300 + step, 900, True)
                controller.touch(300 + step, 900, False)
    return frames


@pytest.mark.parametrize("width", [540, None])
def test_a_display_drawing_the_streams_size_itself_streams_the_same_frames(
    discovery_dir: Path, width: int | None
) -> None:
    plain, scaled = FakeDisplay(), ScaledDisplay()
    assert stream_frames(scaled, discovery_dir, width) == stream_frames(plain, discovery_dir, width)
    assert plain.renders >= 3
    if width == 540:  # the scaled frames came from render_at: no full-size render, no reduce in the feed
        assert scaled.scaled_renders >= 3 and scaled.renders == 0
    else:
        assert scaled.scaled_renders == 0 and scaled.renders >= 3


def test_a_streamed_tap_stays_a_tap_while_the_app_is_busy_between_its_press_and_its_lift(discovery_dir: Path) -> None:
    """Issue 27's starved host: the double handed each touch to the app before reading the next one,
    so a lift read while the app's lock was held (a render, a starved thread) was stamped when the
    app got to it, after the long-press timeout. The touchscreen stamps a touch when it arrives,
    as the kernel does, and the app handles it at that time (MessageQueue by `when`)."""
    from pytest_mobile_agent.virtual.android.display import Display
    from pytest_mobile_agent.virtual.ui import UiModel
    from pytest_mobile_agent.virtual.ui.attach import DisplayContent
    from tests.support.press_counter import Button, X, Y

    ui = UiModel()
    button = Button(ui)
    display = Display()
    display.set_content(DisplayContent(ui))
    held = threading.Event()

    def hold_the_app(x: int, y: int, pressed: bool) -> None:
        if pressed:  # the press is in; the app is then busy for longer than the long-press timeout
            threading.Thread(target=_hold, args=(ui.lock, held, 0.8), daemon=True).start()
            held.wait(5.0)

    display.add_touch_listener(hold_the_app)
    with ControllerDouble(display) as _, Controller.connect(resolve("emulator-5554")) as controller:
        controller.tap(X, Y)
    ui.advance()
    assert held.is_set() and (button.clicks, button.long_clicks) == (1, 0)


def _hold(lock: Any, held: threading.Event, seconds: float) -> None:
    with lock:
        held.set()
        time.sleep(seconds)


def test_a_contact_held_still_past_the_long_press_timeout_is_logged(
        double: ControllerDouble, caplog: pytest.LogCaptureFixture) -> None:
    """What a starved host makes of a tap sent as two messages shows in the log: a press and its lift
    that came 0.6 s apart at the same place. A contact that moved is a drag, and says nothing."""
    caplog.set_level(logging.INFO, logger="pytest_mobile_agent.virtual")
    double.touch(300, 600, True)
    time.sleep(0.6)
    double.touch(300, 600, False)
    double.touch(300, 600, True)
    time.sleep(0.6)
    double.touch(300, 900, True)
    double.touch(300, 900, False)
    held = [m for r in caplog.records if (m := re.match(r"contact 0 was held still for (\d+) ms", r.getMessage()))]
    assert len(held) == 1 and int(held[0].group(1)) >= 600
    assert len(double.still_holds) == 1 and double.still_holds[0] >= 0.6  # what bench_tap_hold.py reads


def test_a_streamed_tap_is_recorded_as_a_still_hold_of_its_press(double: ControllerDouble, discovery_dir: Path) -> None:
    with Controller.connect(resolve("emulator-5554")) as controller:
        controller.tap(300, 600)
        controller.touch_frames([[(300, 600, True, 0)], [(300, 700, True, 0)], [(300, 700, False, 0)]])
    assert len(double.still_holds) == 1  # the tap; the contact that moved is a drag
