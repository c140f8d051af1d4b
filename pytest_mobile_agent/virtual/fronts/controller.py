"""The virtual device's emulator controller: a grpcio server speaking our emulator_controller.proto
the way emulator 37.1.11 does (emulator-facts.md), on loopback only.

- It listens on the console port + 3000 when that port is free (else on a free port) and writes
  the discovery file `pid_<pid>.ini` where `emulator.discovery.candidate_dirs()` looks first
  (`MOBILE_AGENT_AVD_DISCOVERY_DIR` for tests), removing it when it stops.
- Every call needs `authorization: Bearer <grpc.token>`, refused with the emulator's own
  UNAUTHENTICATED messages otherwise.
- getStatus reports the AVD's hardware config in the deprecated hardwareConfig (and, when asked,
  in platformConfig); screenshots and the frame stream are rendered from the device's display and
  scaled as the emulator's resizeKeepAspectRatio does; keys are accepted and dropped unless the AVD
  declares a keyboard.
- Touches drive the display as the emulator's TouchEventSender drives the guest's touchscreen
  (aosp-mirror/platform_external_qemu, android/android-grpc/services/emulator-controller/server/
  src/android/emulation/control/keyboard/TouchEventSender.cpp, doSend): the touches of one
  TouchEvent are one input frame, ended by one SYN_REPORT, so Android sees each identifier as it
  stands at the frame's end (InputReader's MultiTouchMotionAccumulator: a slot whose tracking id
  went to -1 is not in use), and a press lifted within the same frame is no touch at all.
  streamInputEvent hands each event to its sender as it reads it (EmulatorService.cpp), so every
  streamed TouchEvent is a frame of its own, in order, at the time it is read.
- setBattery/getBattery, setGps/getGps, sendFingerprint and setPosture drive the device's emulated
  hardware (its `state`: android/state.py), as the emulator's goldfish battery, GPS, fingerprint
  sensor and posture sensor reach the guest.

The display is the device model's (`virtual/android/display.py`): `size`, `density`, `render()` (a
full-resolution RGB PIL image, top row first), `touch(x, y, pressed)`, and a change counter with a
condition for frame streams. `SilentPort` is a port that accepts TCP and never answers.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import grpc
from google.protobuf import empty_pb2

from pytest_mobile_agent.emulator import discovery
from pytest_mobile_agent.emulator._proto import emulator_controller_pb2 as pb
from pytest_mobile_agent.emulator._proto import emulator_controller_pb2_grpc as pb_grpc
from pytest_mobile_agent.virtual.android.battery import HealthInfo
from pytest_mobile_agent.virtual.android.display import Display as DeviceDisplay
from pytest_mobile_agent.virtual.android.location import Fix
from pytest_mobile_agent.virtual.android.settings import default_settings
from pytest_mobile_agent.virtual.android.state import DeviceState
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal

#: BatteryState.BatteryHealth (GOOD, FAILED, DEAD, OVERVOLTAGE, OVERHEATED) -> BatteryManager's
#: BATTERY_HEALTH_* (2 good, 6 unspecified failure, 4 dead, 5 over voltage, 3 overheat)
_HEALTH_TO_FRAMEWORK = {0: 2, 1: 6, 2: 4, 3: 5, 4: 3}

log = logging.getLogger("pytest_mobile_agent.virtual")

EMULATOR_VERSION = "37.1.11.0"
EMULATOR_BUILD = "15917651"
FRAME_POLL = 0.125  # the emulator's stream waits for frame-buffer events in 125 ms steps
HANDLED_WAIT = 5.0
LONG_PRESS_S = 0.5  # ViewConfiguration's long-press timeout
MISSING_HEADER = "Missing the 'authorization' header with security credentials."
SERVICE = "android.emulation.control.EmulatorController"


class Display(Protocol):
    """What the controller needs of the device's display (docs/architecture.md)."""

    def render(self) -> Any: ...

    def touch(self, x: int, y: int, pressed: bool) -> threading.Event | None: ...


# --- the display, whatever its change counter is called ------------------------------------------


class DisplayFeed:
    """Size, density, renders and change waits of a display object.

    The change counter is `change_count` (or `changes`, `generation`, `version`), the condition
    `cond` (or `condition`); a display with `wait_change(seen, timeout) -> int` is waited on
    through it; one with a counter and no condition is polled every 20 ms. The hardware config
    reports the physical size and density (`physical_width`, ... when the display keeps overrides
    beside them, as `wm size` / `wm density` do).
    """

    _COUNTERS = ("change_count", "changes", "generation", "version", "frame")
    _CONDITIONS = ("cond", "condition")
    _WAITERS = ("wait_change", "wait_for_change")

    def __init__(self, display: Any) -> None:
        self.display = display
        self._counter_name = next((n for n in self._COUNTERS if _is_int(getattr(display, n, None))), None)
        cond = next((getattr(display, n) for n in self._CONDITIONS if _is_condition(getattr(display, n, None))), None)
        self._condition: threading.Condition | None = cond
        self._lock = threading.Lock()
        self._cache: dict[tuple[Any, ...], bytes] = {}
        self._cache_counter: int | None = None
        self._image: Any = None

    @property
    def size(self) -> tuple[int, int]:
        size = getattr(self.display, "size", None)
        if callable(size):
            size = size()
        if isinstance(size, tuple) and len(size) == 2:
            return (int(size[0]), int(size[1]))
        if size is not None and hasattr(size, "width"):
            return (int(size.width), int(getattr(size, "height")))  # noqa: B009
        return (int(self.display.width), int(self.display.height))

    @property
    def density(self) -> int:
        density = getattr(self.display, "density", 420)
        return int(density() if callable(density) else density)

    @property
    def physical_size(self) -> tuple[int, int]:
        width: Any = getattr(self.display, "physical_width", None)
        height: Any = getattr(self.display, "physical_height", None)
        return (int(width), int(height)) if _is_int(width) and _is_int(height) else self.size

    @property
    def physical_density(self) -> int:
        density: Any = getattr(self.display, "physical_density", None)
        return int(density) if _is_int(density) else self.density

    def counter(self) -> int:
        if self._counter_name is None:
            return 0
        value = getattr(self.display, self._counter_name)
        return int(value() if callable(value) else value)

    def wait_change(self, after: int, timeout: float) -> int:
        """The counter once it differs from `after`, or as it is after `timeout` seconds."""
        waiter = next((w for n in self._WAITERS if callable(w := getattr(self.display, n, None))), None)
        if waiter is not None:
            return int(waiter(after, timeout))
        deadline = time.monotonic() + timeout
        if self._condition is not None:
            with self._condition:
                while (now := self.counter()) == after:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    self._condition.wait(remaining)
                return now
        while (now := self.counter()) == after and time.monotonic() < deadline:
            time.sleep(min(0.02, max(0.0, deadline - time.monotonic())))
        return now

    def encoded(self, fmt: int, want_w: int, want_h: int) -> tuple[bytes, int, int, int]:
        """The display's current pixels in `fmt`, sized for a request of want_w x want_h as the
        emulator sizes screenshots (fit_size): (bytes, change counter, width, height). Cached per
        counter, so the streams and screenshots of one frame render and scale it once.

        A display with `render_at(width, height)` draws a frame at the size asked itself (the
        emulator scales on its GPU; a test display may hold its frames scaled already): the feed
        then neither renders the full size nor reduces it, unless `render_at` returns None."""
        with self._lock:
            counter = self.counter()
            if counter != self._cache_counter:
                self._image = None
                self._cache.clear()
                self._cache_counter = counter
            render_at = getattr(self.display, "render_at", None)
            if not callable(render_at) and self._image is None:
                self._image = self.display.render()
            full = self._image.size if self._image is not None else self.size
            width, height = fit_size(full[0], full[1], want_w, want_h)
            key = (fmt, width, height)
            data = self._cache.get(key)
            if data is None:
                image = render_at(width, height) if callable(render_at) else None
                if image is None:
                    if self._image is None:
                        self._image = self.display.render()
                    image = _scaled(self._image, width, height)
                data = _encode(image, fmt)
                self._cache[key] = data
            return data, counter, width, height


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_condition(value: Any) -> bool:
    return value is not None and hasattr(value, "wait") and hasattr(value, "notify_all")


def fit_size(display_w: int, display_h: int, want_w: int, want_h: int) -> tuple[int, int]:
    """The emulator's screenshot size: zeros mean the display size; otherwise the request is
    clamped to the display and the largest size with the display's aspect ratio inside it is
    chosen, truncated (1080x2400 asked 720x720 -> 324x720)."""
    if want_w == 0 or want_h == 0:
        return (display_w, display_h)
    w, h = min(want_w, display_w), min(want_h, display_h)
    if w * display_h > h * display_w:  # wider than the display: the height binds
        return (max(1, int(h * display_w / display_h)), h)
    return (w, max(1, int(w * display_h / display_w)))


def _scaled(image: Any, width: int, height: int) -> Any:
    from PIL import Image

    if image.size == (width, height):
        return image
    fx, fy = image.width / width, image.height / height
    if fx == fy and fx.is_integer():
        return image.reduce(int(fx))  # a box average, and much faster than a resampling filter
    return image.resize((width, height), Image.Resampling.BILINEAR, reducing_gap=2.0)


def _encode(image: Any, fmt: int) -> bytes:
    if image.mode != "RGB":
        image = image.convert("RGB")
    if fmt == pb.ImageFormat.RGB888:
        return bytes(image.tobytes())
    if fmt == pb.ImageFormat.RGBA8888:
        return bytes(image.convert("RGBA").tobytes())
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


# --- authentication --------------------------------------------------------------------------------


class _BearerAuth(grpc.ServerInterceptor):  # type: ignore[type-arg]  # grpc-stubs' generic; grpcio's is not
    """The emulator's StaticTokenAuth: the whole header value must be `Bearer <token>`."""

    def __init__(self, expected: str | None) -> None:
        self.expected = expected  # None: any token is invalid (JWT mode, which we cannot verify)

    def intercept_service(self, continuation: Callable[[Any], Any], details: Any) -> Any:
        value = next((v for k, v in details.invocation_metadata or () if k == "authorization"), None)
        if value is None:
            return _refusal(details.method, grpc.StatusCode.UNAUTHENTICATED, MISSING_HEADER)
        if self.expected is None or value != self.expected:
            return _refusal(details.method, grpc.StatusCode.UNAUTHENTICATED, f"The token `{value}` is invalid")
        return continuation(details)


def _refusal(method: str, code: grpc.StatusCode, message: str) -> Any:
    def abort(request: Any, context: grpc.ServicerContext) -> Any:
        context.abort(code, message)

    if method.endswith("/streamScreenshot"):
        return grpc.unary_stream_rpc_method_handler(abort)
    if method.endswith("/streamInputEvent"):
        return grpc.stream_unary_rpc_method_handler(abort)
    return grpc.unary_unary_rpc_method_handler(abort)


# --- the service -----------------------------------------------------------------------------------


@dataclass
class AvdConfig:
    """The AVD's hardware as getStatus reports it (hw.* keys, booleans as "true"/"false")."""

    name: str = "Pixel_7_API_36"
    display_name: str = "Pixel 7 API 36"
    keyboard: bool = False
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of_device(cls, device: Any) -> AvdConfig:
        """The AVD a virtual device says it runs (its `ro.boot.qemu.avd_name`), so the discovery
        file's avd.id and the guest's property agree as a real emulator's do; the display name is
        the AVD Manager's default, the name with spaces for underscores (avd.ini.displayname)."""
        name = str(getattr(device, "properties", {}).get("ro.boot.qemu.avd_name", "")) or cls.name
        return cls(name=name, display_name=name.replace("_", " "))

    def hardware(self, width: int, height: int, density: int) -> dict[str, str]:
        config = {
            "hw.lcd.width": str(width),
            "hw.lcd.height": str(height),
            "hw.lcd.density": str(density),
            "hw.keyboard": "true" if self.keyboard else "false",
            "hw.mainKeys": "false",
            "hw.cpu.arch": "x86_64",
            "hw.cpu.ncore": "4",
            "hw.ramSize": "2048",
            "hw.screen": "multi-touch",
            "hw.gpu.enabled": "true",
            "avd.name": self.name,
            "avd.id": self.name,
        }
        config.update(self.extra)
        return config


class _Servicer(pb_grpc.EmulatorControllerServicer):
    def __init__(self, double: ControllerDouble) -> None:
        self.double = double

    def getStatus(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.double._saw("getStatus", context)
        return self.double.status()

    def getScreenshot(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.double._saw("getScreenshot", context)
        self.double._check_format(request, context)
        return self.double.image(request, seq=0)

    def streamScreenshot(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        self.double._saw("streamScreenshot", context)
        self.double._check_format(request, context)
        yield from self.double.frames(request, context)

    def sendTouch(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.double._saw("sendTouch", context)
        _wait_handled(self.double.touch_frame(request.touches))
        return empty_pb2.Empty()

    def streamInputEvent(self, request_iterator: Iterator[Any], context: grpc.ServicerContext) -> Any:
        self.double._saw("streamInputEvent", context)
        handled: list[threading.Event] = []
        for event in request_iterator:
            if event.HasField("touch_event"):
                handled += self.double.touch_frame(event.touch_event.touches)
            elif event.HasField("key_event"):
                self.double.key(event.key_event)
            else:  # EmulatorService.cpp's answer to an event type it does not know
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, "Unknown event, is the emulator out of date?.")
        _wait_handled(handled)
        return empty_pb2.Empty()

    def sendKey(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.double._saw("sendKey", context)
        self.double.key(request)
        return empty_pb2.Empty()

    # --- the emulated hardware (issue 26): the double's hardware_* methods ---------------------

    def setBattery(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.double._saw("setBattery", context)
        self.double.hardware_set_battery(request)
        return empty_pb2.Empty()

    def getBattery(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.double._saw("getBattery", context)
        return self.double.hardware_battery()

    def setGps(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.double._saw("setGps", context)
        self.double.hardware_set_gps(request)
        return empty_pb2.Empty()

    def getGps(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.double._saw("getGps", context)
        return self.double.hardware_gps()

    def sendFingerprint(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.double._saw("sendFingerprint", context)
        self.double.hardware.sensors.fingerprint_touches.append((int(request.touchId), bool(request.isTouching)))
        return empty_pb2.Empty()

    def getPhysicalModel(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.double._saw("getPhysicalModel", context)
        if request.target != pb.PhysicalModelValue.POSTURE:
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "The virtual device models only the POSTURE")
        posture = self.double.hardware.sensors.posture
        return pb.PhysicalModelValue(target=request.target, value=pb.ParameterValue(data=[float(posture)]))

    def setPosture(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.double._saw("setPosture", context)
        self.double.hardware.sensors.posture = int(request.value)
        return empty_pb2.Empty()


class ControllerDouble:
    """The emulator controller of one virtual device. `start()` serves it, `stop()` ends it.

    `auth` is "token" (the `-grpc-use-token` emulator), "jwt" (no `-grpc` flag: the discovery
    file names a JWKS directory and every token is refused) or "none" (`-grpc <port>` alone).
    """

    def __init__(
        self,
        display: Any,
        *,
        serial: str = "emulator-5554",
        avd: AvdConfig | None = None,
        discovery_dir: Path | None = None,
        auth: str = "token",
        platform_config: bool = False,
        port: int | None = None,
        hardware: DeviceState | None = None,
    ) -> None:
        """`hardware`: the device state the emulated battery, GPS, fingerprint sensor and posture
        drive (the virtual device's `state`); a standalone one when the display has no device."""
        if auth not in ("token", "jwt", "none"):
            raise ValueError(f"auth is token, jwt or none, not {auth!r}")
        self.feed = DisplayFeed(display)
        self.hardware = hardware if hardware is not None else DeviceState(default_settings(), DeviceDisplay())
        self.serial = serial
        self.console_port = _console_port(serial)
        self.avd = avd or AvdConfig()
        self.auth = auth
        self.platform_config = platform_config
        self.token = secrets.token_hex(32) if auth == "token" else None
        self._wanted_port = port
        self._discovery_dir = discovery_dir
        self.port = 0
        self.discovery_path: Path | None = None
        self.peers: dict[str, set[str]] = {}
        #: every touch received, as (x, y, pressed, identifier)
        self.touches: list[tuple[int, int, bool, int]] = []
        #: the identifiers down on the guest's touchscreen: since when, and where they went down
        self._pressed: dict[int, tuple[float, int, int]] = {}
        #: how long each contact lifted where it went down was held, in seconds, as the reader got them
        self.still_holds: list[float] = []
        self._looper = threading.Lock()
        self.keys_delivered: list[Any] = []
        self.keys_dropped = 0
        self._server: grpc.Server | None = None
        self._executor: futures.ThreadPoolExecutor | None = None
        self._pid_holder: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._started_at = time.monotonic()
        self._lock = threading.Lock()

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> ControllerDouble:
        if self._server is not None:
            return self
        self._stopping.clear()
        self._executor = futures.ThreadPoolExecutor(max_workers=16, thread_name_prefix="virtual-controller")
        bearer = f"Bearer {self.token}" if self.token else None
        interceptors: list[Any] = [] if self.auth == "none" else [_BearerAuth(bearer)]
        server = grpc.server(
            self._executor,
            interceptors=interceptors,
            options=[("grpc.so_reuseport", 0), ("grpc.max_send_message_length", -1)],
        )
        pb_grpc.add_EmulatorControllerServicer_to_server(_Servicer(self), server)
        self.port = _bind(server, self._preferred_port())
        server.start()
        self._server = server
        self._started_at = time.monotonic()
        try:
            self.discovery_path = self._write_discovery_file()
        except BaseException:
            self.stop()
            raise
        log.info("virtual controller for %s on 127.0.0.1:%d", self.serial, self.port)
        return self

    def stop(self) -> None:
        self._stopping.set()
        server, self._server = self._server, None
        if server is not None:
            server.stop(grace=0.2).wait(timeout=5.0)
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
        self._remove_discovery_file()

    def __enter__(self) -> ControllerDouble:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # --- what the rpcs do ------------------------------------------------------------------

    def status(self) -> Any:
        width, height = self.feed.physical_size
        config = self.avd.hardware(width, height, self.feed.physical_density)
        uptime_ms = int((time.monotonic() - self._started_at) * 1000)
        status = pb.EmulatorStatus(
            version=f"{EMULATOR_VERSION} ({EMULATOR_VERSION} (build_id {EMULATOR_BUILD}))",
            uptime=uptime_ms,
            booted=True,
            vmConfig=pb.VmConfiguration(hypervisorType=pb.VmConfiguration.KVM, numberOfCpuCores=4,
                                        ramSizeBytes=2048 << 20),
            hardwareConfig=pb.EntryList(entry=[pb.Entry(key=k, value=v) for k, v in config.items()]),
            heartbeat=uptime_ms // 1000,
        )
        status.guestConfig.update({"androidVersion": "16", "multidisplay": "unavailable"})
        if self.platform_config:
            status.platformConfig.update(config)
        else:
            status.platformConfig.update({"avd.name": self.avd.name, "avd.id": self.avd.name})
        return status

    def image(self, request: Any, *, seq: int) -> Any:
        return self._image(request, seq)[0]

    def frames(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        """One frame at once (seq 0), then one each time the display changed; seq counts the
        display's changes since the stream began, so a reader that falls behind sees gaps."""
        image, shown = self._image(request, 0)
        base = shown
        yield image
        while context.is_active() and not self._stopping.is_set():
            now = self.feed.wait_change(shown, FRAME_POLL)
            if now == shown:
                continue
            image, shown = self._image(request, None, base=base)
            yield image

    def touch(self, x: int, y: int, pressed: bool, identifier: int = 0) -> None:
        """One touch as a frame of its own."""
        self.touch_frame([pb.Touch(x=x, y=y, identifier=identifier, pressure=1024 if pressed else 0)])

    def touch_frame(self, touches: Sequence[Any]) -> list[threading.Event]:
        """One TouchEvent's touches as one input frame: each identifier goes down, moves or lifts
        as it stands at the frame's end; one pressed and lifted within the frame does nothing.
        The touchscreen takes the frame at once and the app handles it later at that time, as the
        emulator's looper posts it to the guest's kernel without waiting for the app; returns the
        events set once the app handled it."""
        final: dict[int, tuple[int, int, bool]] = {}
        handled: list[threading.Event] = []
        with self._lock:
            for t in touches:
                self.touches.append((t.x, t.y, t.pressure > 0, t.identifier))
                final[t.identifier] = (t.x, t.y, t.pressure > 0)
        frame_of = getattr(self.feed.display, "touch_contacts", None)  # a display with several slots
        with self._looper:  # one frame at a time, in order, as on the emulator's looper
            frame: list[tuple[int, int, int, bool]] = []
            for identifier, (x, y, pressed) in final.items():
                was_down = identifier in self._pressed
                if pressed:
                    self._pressed.setdefault(identifier, (time.monotonic(), x, y))
                else:
                    held = _still_hold(identifier, self._pressed.pop(identifier, None), x, y)
                    if held is not None:
                        self.still_holds.append(held)
                if (pressed or was_down) and frame_of is not None:
                    frame.append((identifier, x, y, pressed))
                elif pressed or was_down:
                    done = self.feed.display.touch(x, y, pressed)
                    if done is not None:
                        handled.append(done)
            if frame and frame_of is not None:
                done = frame_of(frame)
                if done is not None:
                    handled.append(done)
        return handled

    def key(self, event: Any) -> None:
        """Accepted always; delivered to the display (when it takes keys) only with a keyboard."""
        if not self.avd.keyboard:
            with self._lock:
                self.keys_dropped += 1
            return
        with self._lock:
            self.keys_delivered.append(event)
        deliver = getattr(self.feed.display, "key", None)
        if callable(deliver):
            deliver(event.key or event.text or event.keyCode)

    # --- the emulated hardware -------------------------------------------------------------
    # The goldfish battery and GPS the guest reads: the system sees a setBattery unless
    # `dumpsys battery set` stopped its updates, and a setGps as the gps provider's fix unless a
    # test provider replaces it (android/battery.py, android/location.py).

    def hardware_set_battery(self, request: Any) -> None:
        charger = int(request.charger)
        self.hardware.battery.set_hardware(HealthInfo(
            ac=charger == pb.BatteryState.AC, usb=charger == pb.BatteryState.USB,
            wireless=charger == pb.BatteryState.WIRELESS, status=int(request.status) + 1,
            health=_HEALTH_TO_FRAMEWORK.get(int(request.health), 2), present=bool(request.isPresent),
            level=int(request.chargeLevel)))

    def hardware_battery(self) -> Any:
        info = self.hardware.battery.hardware
        charger = (pb.BatteryState.AC if info.ac else pb.BatteryState.USB if info.usb
                   else pb.BatteryState.WIRELESS if info.wireless else pb.BatteryState.NONE)
        health: Any = next((proto for proto, framework in _HEALTH_TO_FRAMEWORK.items() if framework == info.health), 0)
        status: Any = max(0, info.status - 1)
        return pb.BatteryState(hasBattery=True, isPresent=info.present, charger=charger, chargeLevel=info.level,
                               health=health, status=status)

    def hardware_set_gps(self, request: Any) -> None:
        self.hardware.location.hardware_fix = Fix(float(request.latitude), float(request.longitude),
                                                  float(request.altitude), accuracy=5.0)

    def hardware_gps(self) -> Any:
        fix = self.hardware.location.hardware_fix
        return pb.GpsState(passiveUpdate=True, latitude=fix.latitude, longitude=fix.longitude,
                           altitude=fix.altitude or 0.0, satellites=9)

    # --- helpers ---------------------------------------------------------------------------

    def _image(self, request: Any, seq: int | None, *, base: int = 0) -> tuple[Any, int]:
        data, counter, width, height = self.feed.encoded(request.format, request.width, request.height)
        fmt = pb.ImageFormat(
            format=request.format,
            width=width,
            height=height,
            display=request.display,
            rotation=pb.Rotation(rotation=pb.Rotation.PORTRAIT),
        )
        image = pb.Image(
            format=fmt,
            image=data,
            seq=(counter - base) if seq is None else seq,
            timestampUs=int(time.time() * 1_000_000),
        )
        return image, counter

    def _check_format(self, request: Any, context: grpc.ServicerContext) -> None:
        if request.display != 0:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"Invalid display: {request.display}")
        if request.transport.channel == pb.ImageTransport.MMAP:
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, "The virtual device does not offer the MMAP transport")

    def _saw(self, method: str, context: grpc.ServicerContext) -> None:
        with self._lock:
            self.peers.setdefault(method, set()).add(context.peer())

    def _preferred_port(self) -> int:
        if self._wanted_port is not None:
            return self._wanted_port
        return self.console_port + 3000 if self.console_port else 0

    # --- the discovery file ------------------------------------------------------------------

    def _write_discovery_file(self) -> Path:
        directory = self._discovery_dir or discovery.candidate_dirs()[0]
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        pid = self._claim_pid(directory)
        path = directory / f"pid_{pid}.ini"
        tmp = directory / f".pid_{pid}.ini.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            for key, value in self._discovery_props().items():
                out.write(f"{key}={value}\n")
        os.replace(tmp, path)
        return path

    def _discovery_props(self) -> dict[str, str]:
        console = self.console_port or 5554
        cmdline = [sys.executable, "-m", "pytest_mobile_agent.virtual", "-avd", self.avd.name,
                   "-port", str(console), "-grpc", str(self.port)]
        if self.auth == "token":
            cmdline.append("-grpc-use-token")
        props = {
            "port.serial": str(console),
            "port.adb": str(console + 1),
            "emulator.version": EMULATOR_VERSION,
            "emulator.build": EMULATOR_BUILD,
            "avd.name": self.avd.display_name,
            "avd.id": self.avd.name,
            "avd.dir": str(Path.home() / ".android" / "avd" / f"{self.avd.name}.avd"),
            "cmdline": " ".join(f'"{arg}"' for arg in cmdline),
            "grpc.port": str(self.port),
        }
        if self.token:
            props["grpc.token"] = self.token
        if self.auth == "jwt":
            jwks = (self._discovery_dir or Path(".")) / str(os.getpid()) / "jwks"
            props["grpc.jwks"] = str(jwks / "virtual")
            props["grpc.jwk_active"] = str(jwks / "virtual" / "active.jwk")
        return props

    def _claim_pid(self, directory: Path) -> int:
        """Our own pid, unless another double in this process holds that file: then a small
        child process stands in as this device's engine process, so each file names a live pid."""
        with _CLAIMED_LOCK:
            pid = os.getpid()
            if (directory / f"pid_{pid}.ini") in _CLAIMED:
                self._pid_holder = subprocess.Popen(
                    [sys.executable, "-c", "import sys; sys.stdin.read()"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                pid = self._pid_holder.pid
            _CLAIMED.add(directory / f"pid_{pid}.ini")
            return pid

    def _remove_discovery_file(self) -> None:
        path, self.discovery_path = self.discovery_path, None
        if path is not None:
            with _CLAIMED_LOCK:
                _CLAIMED.discard(path)
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        holder, self._pid_holder = self._pid_holder, None
        if holder is not None:
            assert holder.stdin is not None
            holder.stdin.close()
            try:
                holder.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                holder.kill()
                holder.wait(timeout=2.0)


_CLAIMED: set[Path] = set()
_CLAIMED_LOCK = threading.Lock()


def _still_hold(identifier: int, press: tuple[float, int, int] | None, x: int, y: int) -> float | None:
    """How long a contact lifted where it went down was held (None: it moved, or was never down). One held
    past Android's long-press timeout is logged: meant as a long press, or a tap whose two messages came
    that far apart (on a starved host), which the app takes for one."""
    if press is None:
        return None
    pressed_at, down_x, down_y = press
    if (x, y) != (down_x, down_y):
        return None
    held = time.monotonic() - pressed_at
    if held >= LONG_PRESS_S:
        log.info("contact %d was held still for %.0f ms between its press and its lift: past the long-press "
                 "timeout", identifier, held * 1000)
    return held


def _wait_handled(handled: Sequence[threading.Event]) -> None:
    """The double answers once the app handled a call's touches, so that a look at the screen right
    after sees them (the emulator answers once they are on its looper: a later answer tells a client
    nothing false)."""
    deadline = time.monotonic() + HANDLED_WAIT
    for done in handled:
        if not done.wait(max(0.0, deadline - time.monotonic())):
            log.warning("the app had not handled a touch %.0f s after it arrived", HANDLED_WAIT)
            return


def _console_port(serial: str) -> int | None:
    name, _, number = serial.partition("-")
    return int(number) if name == "emulator" and is_decimal(number) else None


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # as grpc binds: connections of an earlier server in TIME_WAIT do not hold the port, a listener does
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _bind(server: grpc.Server, preferred: int) -> int:
    if preferred and _port_free(preferred):
        try:
            bound = server.add_insecure_port(f"127.0.0.1:{preferred}")
        except RuntimeError:
            bound = 0
        if bound:
            return int(bound)
    return int(server.add_insecure_port("127.0.0.1:0"))
