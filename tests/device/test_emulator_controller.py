"""The controller client's integration tests (seed task 5.4), against the target --android-serial names.

`--android-serial virtual`: the controller double serves the lab device's display, with its discovery
file in a per-test directory (MOBILE_AGENT_AVD_DISCOVERY_DIR), unless the lab device runs one itself
(`device.controller`). Where the device's shell lacks a program a check needs (getevent, screencap,
wm), the test says so: it skips the getevent check, and compares with the display's own render
instead of screencap. `--android-serial emulator-5554`: a real emulator started with
`-grpc <port> -grpc-use-token`, resolved from its discovery file.

Measurements are printed (run with -s): the first frame's latency and the frames of the next second
(the seed's window is 3 s; one second keeps the suite fast), the sendTouch round trips, and p50/p95
of 10 raw screenshots.
"""

from __future__ import annotations

import io
import re
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import numpy as np
import pytest
from google.protobuf import empty_pb2
from PIL import Image

from pytest_mobile_agent.emulator import Controller, Endpoint, Hardware, console_port, resolve
from pytest_mobile_agent.emulator import discovery as discovery_module
from pytest_mobile_agent.emulator._proto import emulator_controller_pb2 as pb
from pytest_mobile_agent.emulator._proto import emulator_controller_pb2_grpc as pb_grpc
from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV
from pytest_mobile_agent.emulator.frame import status_bar_rows
from pytest_mobile_agent.errors import Unavailable
from pytest_mobile_agent.virtual.fronts.controller import AvdConfig, ControllerDouble
from tests.support.polling import wait_until
from tests.support.ports import closed_port

pytestmark = pytest.mark.device

FRAME_WINDOW_S = 1.0  # the seed's window is 3 s


@dataclass
class ControllerTarget:
    serial: str
    endpoint: Endpoint
    expected: Hardware  # the AVD's display and keyboard
    device: Any = None  # the adb client's Device, for the device's shell; None without one
    double: ControllerDouble | None = None
    display: Any = None

    def shell_text(self, command: str) -> str | None:
        """The command's stdout, or None when there is no shell or the command is not there."""
        if self.device is None:
            return None
        out = self.device.shell(command)
        return out.stdout.decode(errors="replace") if out.exit_code == 0 else None


def _virtual_device(request: pytest.FixtureRequest) -> tuple[Any, Any]:
    """The lab's device model (its display is what the double serves) and its adb client Device."""
    target = request.getfixturevalue("android_target")
    return target.lab.device(target.serial), request.getfixturevalue("device")


@pytest.fixture
def controller_target(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ControllerTarget]:
    from pytest_mobile_agent.plugin import NO_SERIAL_REASON, android_serial

    serial = android_serial(request.config)
    if serial is None:
        pytest.skip(NO_SERIAL_REASON)
    if serial != "virtual":
        yield _real_emulator(request, serial)
        return
    model, device = _virtual_device(request)
    existing = getattr(model, "controller", None)
    if isinstance(existing, ControllerDouble) and existing.discovery_path is not None:
        monkeypatch.setenv(DISCOVERY_DIR_ENV, str(existing.discovery_path.parent))
        yield _virtual_target(existing, device)
        return
    monkeypatch.setenv(DISCOVERY_DIR_ENV, str(tmp_path / "avd" / "running"))
    double = ControllerDouble(model.display, serial=model.serial, avd=AvdConfig()).start()
    try:
        yield _virtual_target(double, device)
    finally:
        double.stop()


def _virtual_target(double: ControllerDouble, device: Any) -> ControllerTarget:
    width, height = double.feed.size
    expected = Hardware(width=width, height=height, density=double.feed.density, keyboard=double.avd.keyboard)
    return ControllerTarget(double.serial, resolve(double.serial), expected, device, double, double.feed.display)


def _real_emulator(request: pytest.FixtureRequest, serial: str) -> ControllerTarget:
    try:
        endpoint = resolve(serial)
    except Unavailable as exc:
        pytest.fail(f"{serial} has no usable controller endpoint: {exc.warning()}")
    device = request.getfixturevalue("device")
    size = re.search(r"Physical size: (\d+)x(\d+)", device.shell("wm size").stdout.decode())
    density = re.search(r"Physical density: (\d+)", device.shell("wm density").stdout.decode())
    assert size and density, "wm size / wm density did not answer"
    keyboard = _avd_keyboard(endpoint)
    expected = Hardware(width=int(size[1]), height=int(size[2]), density=int(density[1]), keyboard=keyboard)
    return ControllerTarget(serial, endpoint, expected, device)


def _avd_keyboard(endpoint: Endpoint) -> bool:
    """hw.keyboard from the AVD's config.ini (avd.dir in the discovery file); no keyboard by default."""
    if endpoint.discovery_file is None:
        return False
    found = discovery_module.read_file(endpoint.discovery_file)
    avd_dir = found.props.get("avd.dir") if found else None
    config = Path(avd_dir) / "config.ini" if avd_dir else None
    if config is None or not config.is_file():
        return False
    from pytest_mobile_agent.emulator.hardware import parse_bool

    return parse_bool(discovery_module.parse_ini(config.read_bytes()).get("hw.keyboard", "no"))


@pytest.fixture
def controller(controller_target: ControllerTarget) -> Iterator[Controller]:
    with Controller.connect(controller_target.endpoint) as ctl:
        yield ctl


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# --- the tests ---------------------------------------------------------------------------------


def test_discovery_finds_the_endpoint_and_its_token(controller_target: ControllerTarget) -> None:
    endpoint = resolve(controller_target.serial)
    assert endpoint.console_port == console_port(controller_target.serial)
    assert endpoint.token is not None and len(endpoint.token) == 64
    assert endpoint.discovery_file is not None and re.fullmatch(r"pid_\d+\.ini", endpoint.discovery_file.name)
    assert endpoint.discovery_file.parent in discovery_module.candidate_dirs()
    if controller_target.double is not None:
        assert (endpoint.port, endpoint.token) == (controller_target.double.port, controller_target.double.token)
        assert endpoint.discovery_file == controller_target.double.discovery_path
        if controller_target.double.console_port and endpoint.port != controller_target.double.console_port + 3000:
            print(f"console port + 3000 was taken: the double listens on {endpoint.port}")
    with Controller.connect(endpoint) as ctl:
        assert ctl.hardware.width > 0


def test_a_call_without_the_token_is_refused(controller_target: ControllerTarget) -> None:
    endpoint = controller_target.endpoint
    with grpc.insecure_channel(endpoint.target, options=[("grpc.enable_http_proxy", 0)]) as channel:
        stub = pb_grpc.EmulatorControllerStub(channel)
        with pytest.raises(grpc.RpcError) as missing:
            stub.getStatus(empty_pb2.Empty(), timeout=5.0)
        assert missing.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert missing.value.details() == "Missing the 'authorization' header with security credentials."
        with pytest.raises(grpc.RpcError) as wrong:
            stub.getStatus(empty_pb2.Empty(), timeout=5.0, metadata=(("authorization", "Bearer not-the-token"),))
        assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert wrong.value.details() == "The token `Bearer not-the-token` is invalid"
        with pytest.raises(grpc.RpcError) as touch:
            stub.sendTouch(pb.TouchEvent(touches=[pb.Touch(x=250, y=50, pressure=0)]), timeout=5.0)
        assert touch.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_frames_arrive_scaled_to_the_working_width(controller: Controller) -> None:
    want = controller.hardware.scaled_size(540)
    started = time.monotonic()
    with controller.stream(540) as stream:
        first = stream.next(5.0)
        latency = time.monotonic() - started
        assert first is not None, "no first frame within 5 s"
        assert first.seq == 0
        if first.width == 0:  # the emulator may send an empty first frame; the next one counts
            first = stream.next(5.0)
            assert first is not None, "only an empty first frame within 5 s"
        exact = 540 * controller.hardware.height / controller.hardware.width
        assert first.width == want[0] == 540 and abs(first.height - exact) < 1 and want[1] >= first.height
        frames = []
        window_end = time.monotonic() + FRAME_WINDOW_S
        while (left := window_end - time.monotonic()) > 0:
            frame = stream.next(left)
            if frame is not None:
                frames.append(frame)
        print(
            f"\nfirst frame after {latency * 1000:.1f} ms; {len(frames)} frames in the next {FRAME_WINDOW_S:g} s "
            f"(seqs {[f.seq for f in frames]}, {stream.dropped} dropped)"
        )
        assert all((f.width, f.height) == (first.width, first.height) for f in frames if f.width)
        seqs = [first.seq, *(f.seq for f in frames)]
        assert seqs == sorted(set(seqs))


def test_a_touch_lands_on_the_touchscreen(controller_target: ControllerTarget, controller: Controller) -> None:
    # Two taps on the status bar, where a tap changes nothing; two points, because evdev drops a
    # position equal to the previous contact's. (250, 50) and (300, 70) on a 1080-pixel-wide display.
    scale = controller.hardware.width / 1080
    points = [(round(250 * scale), round(50 * scale)), (round(300 * scale), round(70 * scale))]
    others = _getevents(controller_target)  # the plugin's session-long watch (foreign_input.py) among them
    getevent = _start_getevent(controller_target)
    trips = []
    try:
        for x, y in points:
            for pressed in (True, False):
                started = time.perf_counter()
                controller.touch(x, y, pressed)
                trips.append((time.perf_counter() - started) * 1000)
        print(f"\nsendTouch round trips (ms): {', '.join(f'{t:.2f}' for t in trips)}")
        if controller_target.double is not None:
            assert controller_target.double.touches[-4:] == [
                (x, y, pressed, 0) for x, y in points for pressed in (True, False)
            ]
        if getevent is None:
            pytest.skip("the target's shell has no getevent yet: the touches reached the controller's display only")
        lines = _read_until(getevent, lambda text: text.count("BTN_TOUCH") >= 4, timeout=5.0)
        assert lines.count("BTN_TOUCH") >= 4, lines
        assert "ABS_MT_POSITION_X" in lines and "ABS_MT_POSITION_Y" in lines and "ABS_MT_TRACKING_ID" in lines
        assert re.search(r"BTN_TOUCH\s+DOWN", lines) and re.search(r"BTN_TOUCH\s+UP", lines)
    finally:
        if getevent is not None:
            getevent.close()
    # SIGHUP reaches getevent when its stream closes; a loaded host takes a moment to run it
    outlived = lambda: _getevents(controller_target) - others  # noqa: E731
    assert wait_until(lambda: not outlived(), 5.0, 0.1), f"getevent outlived its stream: {outlived()}"


def _getevents(controller_target: ControllerTarget) -> set[str]:
    """The pids of the getevent processes running on the target."""
    processes = controller_target.shell_text("ps -A -o PID,ARGS") or ""
    return set(re.findall(r"^\s*(\d+)\s+getevent\b", processes, re.MULTILINE))


def _start_getevent(target: ControllerTarget) -> Any:
    if target.device is None:
        return None
    which = target.device.shell("command -v getevent")
    if which.exit_code != 0:
        return None
    stream = target.device.shell_stream_with("getevent -l", pty=True)
    time.sleep(0.3)  # getevent opens the input devices before the taps
    return stream


def _read_until(stream: Any, done: Any, timeout: float) -> str:
    text = ""
    deadline = time.monotonic() + timeout
    while not done(text) and (left := deadline - time.monotonic()) > 0:
        line = stream.read_line(left)
        if line is None:
            break
        text += line + "\n"
    return text


def test_raw_screenshots_are_full_resolution_and_top_down(
    controller_target: ControllerTarget, controller: Controller
) -> None:
    times = []
    frame = None
    for _ in range(10):
        started = time.perf_counter()
        frame = controller.screenshot()
        times.append((time.perf_counter() - started) * 1000)
    assert frame is not None
    print(
        f"\nraw getScreenshot {frame.width}x{frame.height}: p50 {statistics.median(times):.1f} ms, "
        f"p95 {percentile(times, 0.95):.1f} ms (n=10)"
    )
    assert (frame.width, frame.height) == (controller.hardware.width, controller.hardware.height)
    raw = np.frombuffer(frame.data, np.uint8).reshape(frame.height, frame.width, 3).astype(np.int16)
    reference = _reference_image(controller_target)
    below = status_bar_rows(frame.height)  # the clock may tick between the two captures
    same = np.abs(raw[below:] - reference[below:]).mean()
    flipped = np.abs(raw[::-1][below:] - reference[below:]).mean()
    assert same < 2.0 and same < flipped, (same, flipped)


def _reference_image(target: ControllerTarget) -> np.ndarray:
    """screencap -p from the device's shell, else the display's own render (both top-down)."""
    if target.device is not None:
        out = target.device.shell("screencap -p")
        if out.exit_code == 0 and out.stdout.startswith(b"\x89PNG"):
            with Image.open(io.BytesIO(out.stdout)) as png:
                return np.asarray(png.convert("RGB"), dtype=np.int16)
    if target.display is None:
        pytest.fail("screencap -p gave no PNG")
    print("compared with the display's render: the target's shell has no screencap yet")
    return np.asarray(target.display.render().convert("RGB"), dtype=np.int16)


def test_the_display_size_and_keyboard_match_the_avd(
    controller_target: ControllerTarget, controller: Controller
) -> None:
    expected = controller_target.expected
    hardware = controller.hardware
    assert (hardware.width, hardware.height, hardware.density) == (expected.width, expected.height, expected.density)
    assert hardware.keyboard is expected.keyboard
    assert controller.keys_supported is expected.keyboard
    assert hardware.config.get("hw.keyboard") in ("true", "false")  # gRPC spells booleans so
    wm_size = controller_target.shell_text("wm size")
    if wm_size is not None:
        assert f"Physical size: {hardware.width}x{hardware.height}" in wm_size
    if controller_target.double is not None:
        assert (hardware.width, hardware.height, hardware.density) == (1080, 2400, 420)
        assert hardware.keyboard is False
        dropped = controller_target.double.keys_dropped
        with grpc.insecure_channel(controller_target.endpoint.target) as channel:
            pb_grpc.EmulatorControllerStub(channel).sendKey(
                pb.KeyboardEvent(key="a", eventType=pb.KeyboardEvent.keypress),
                timeout=5.0,
                metadata=(("authorization", f"Bearer {controller_target.endpoint.token}"),),
            )
        assert controller_target.double.keys_dropped == dropped + 1  # accepted, and dropped


def test_a_closed_port_falls_back_with_the_launch_flag_and_console_command(controller_target: ControllerTarget) -> None:

    serial = controller_target.serial
    with closed_port() as closed, pytest.raises(Unavailable) as caught:
        Controller.connect(Endpoint.at(closed, token=controller_target.endpoint.token, serial=serial), timeout=2.0)
    grpc_port = (console_port(serial) or 5554) + 3000
    warning = caught.value.warning()
    print(f"\nwarning: {warning}")
    assert warning.startswith(
        f"emulator control endpoint unavailable for {serial} (connecting to http://127.0.0.1:{closed}: "
    )
    assert "Connection refused" in warning
    assert f"Start the emulator with `-grpc {grpc_port} -grpc-use-token` to use the fast path" in warning
    assert (
        f"the emulator console command `grpc {grpc_port}`, for example `adb -s {serial} emu grpc {grpc_port}`."
        in warning
    )
    assert controller_target.endpoint.token not in warning  # type: ignore[operator]
