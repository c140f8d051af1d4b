"""The emulator's gRPC controller: status, screenshots and frames on one HTTP/2 connection,
touches on a second one, so a large frame in flight never holds up a touch.

Every unary call has a deadline, both as the gRPC timeout and on the client side; so do the
connection and the opening of the frame stream. Once open, the stream waits as long as
`FrameStream.next` is told to, since a still screen sends nothing.

After an outage the channels reconnect within half a second of the endpoint's return: gRPC's own
reconnect backoff starts at 1 s and grows to 120 s (a 20 s outage brought frames back 7.1 s late),
so the channels set it to 100 ms growing to 500 ms, and the frame stream is opened with
`wait_for_ready`, so a subscription made during the outage waits for the channel (up to its open
timeout) instead of failing at once; one the going endpoint dropped as it opened is opened again.
"""

from __future__ import annotations

import collections
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from google.protobuf import empty_pb2

from pytest_mobile_agent.emulator._proto import emulator_controller_pb2 as pb
from pytest_mobile_agent.emulator._proto import emulator_controller_pb2_grpc as pb_grpc
from pytest_mobile_agent.emulator.endpoint import Endpoint
from pytest_mobile_agent.emulator.frame import Frame
from pytest_mobile_agent.emulator.hardware import Hardware
from pytest_mobile_agent.emulator.hardware_state import (
    EmulatedBattery,
    GpsFix,
    PostureName,
    posture_message,
    posture_name,
)
from pytest_mobile_agent.errors import (
    Closed,
    ControllerError,
    MobileAgentError,
    Timeout,
    Unavailable,
)

log = logging.getLogger("pytest_mobile_agent.emulator")

CONNECT_TIMEOUT = 2.0
CALL_TIMEOUT = 5.0
PRESSED = 1024  # any pressure > 0 touches; 0 lifts the identifier
WORKING_WIDTH = 540
TRANSPORT_ERROR = "transport error: "  # the seed's words before a connect failure's own
STREAM_QUEUE = 4  # frames kept for a slow reader; older ones are dropped and counted
REOPEN_PAUSE_S = 0.05  # between openings of a frame stream the going endpoint dropped

CHANNEL_OPTIONS: tuple[tuple[str, Any], ...] = (
    # one 1080x2400 RGB888 frame is 7,776,000 bytes, above gRPC's default 4 MiB
    ("grpc.max_receive_message_length", -1),
    ("grpc.max_send_message_length", 16 << 20),
    # a channel of its own means a connection of its own: no sharing through the global pool
    ("grpc.use_local_subchannel_pool", 1),
    # the emulator is on loopback: never through an http_proxy from the environment
    ("grpc.enable_http_proxy", 0),
    ("grpc.enable_retries", 0),
    # back within half a second of the endpoint's return, not after gRPC's default 1 s to 120 s
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 500),
)

T = TypeVar("T")
Contact = tuple[int, int, bool, int]
"""One touch of an input frame: x, y (physical pixels), pressed (False lifts), identifier."""


@dataclass(frozen=True)
class StreamStats:
    received: int
    dropped: int  # device frames the emulator never sent (gaps in seq)
    overflowed: int  # frames that arrived while the reader was behind, left out of next()


class Controller:
    """A connected controller. Use `Controller.connect`; `close()` (or `with`) releases it."""

    def __init__(
        self,
        endpoint: Endpoint,
        main: grpc.Channel,
        touch: grpc.Channel,
        hardware: Hardware,
        *,
        call_timeout: float = CALL_TIMEOUT,
        connect_timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        self.endpoint = endpoint
        self.hardware = hardware
        self.call_timeout = call_timeout
        self.connect_timeout = connect_timeout
        self._main = main
        self._touch = touch
        self._stub = pb_grpc.EmulatorControllerStub(main)
        self._touch_stub = pb_grpc.EmulatorControllerStub(touch)
        self._metadata = _metadata(endpoint.token)
        self._streams: list[FrameStream] = []
        self._lock = threading.Lock()
        self._closed = False
        self.touches_sent = 0

    # --- connecting --------------------------------------------------------------------------

    @classmethod
    def connect(
        cls, endpoint: Endpoint, timeout: float = CONNECT_TIMEOUT, *, call_timeout: float = CALL_TIMEOUT
    ) -> Controller:
        """Open both connections and read the hardware through getStatus, all within `timeout`
        (the getStatus call within `call_timeout` too). Raises errors.Unavailable with the
        fallback warning when the endpoint cannot be used."""
        deadline = time.monotonic() + timeout
        _probe_tcp(endpoint, timeout)
        main = grpc.insecure_channel(endpoint.target, options=CHANNEL_OPTIONS)
        touch = grpc.insecure_channel(endpoint.target, options=(*CHANNEL_OPTIONS, ("mobile_agent.role", "touch")))
        try:
            for channel in (main, touch):
                _wait_ready(channel, endpoint, deadline, timeout)
            stub = pb_grpc.EmulatorControllerStub(main)
            remaining = max(0.001, min(call_timeout, deadline - time.monotonic()))
            status = _unary(
                stub.getStatus, empty_pb2.Empty(), remaining, _metadata(endpoint.token), "getStatus", endpoint
            )
            hardware = Hardware.from_status(status)
        except MobileAgentError as exc:
            main.close()
            touch.close()
            if isinstance(exc, Unavailable):
                raise
            raise _unavailable(endpoint, f"connecting to {endpoint.url}: {exc}") from exc
        except BaseException:
            main.close()
            touch.close()
            raise
        log.info("controller %s connected: %dx%d, %d dpi, keyboard %s", endpoint.url, hardware.width,
                 hardware.height, hardware.density, hardware.keyboard)
        return cls(endpoint, main, touch, hardware, call_timeout=call_timeout, connect_timeout=timeout)

    # --- calls ---------------------------------------------------------------------------------

    @property
    def keys_supported(self) -> bool:
        """Whether the AVD declares a keyboard; without one the emulator drops keys. The client
        itself sends no keys: the driver routes keys and text to the agent."""
        return self.hardware.keyboard

    def status(self, timeout: float | None = None) -> Any:
        """A fresh EmulatorStatus message."""
        return self._call(self._stub.getStatus, empty_pb2.Empty(), timeout, "getStatus")

    def screenshot(self, width: int = 0, height: int = 0, *, timeout: float | None = None) -> Frame:
        """One RGB888 frame; zeros (the default) ask for the display's full resolution."""
        request = pb.ImageFormat(format=pb.ImageFormat.RGB888, width=width, height=height)
        image = self._call(self._stub.getScreenshot, request, timeout, "getScreenshot")
        return self._frame(image, time.monotonic())

    def touch(self, x: int, y: int, pressed: bool, identifier: int = 0, *, timeout: float | None = None) -> None:
        """One contact at (x, y) in physical pixels; `pressed=False` sends pressure 0, which lifts it."""
        self.touches([(x, y, pressed, identifier)], timeout=timeout)

    def touches(self, contacts: Sequence[Contact], *, timeout: float | None = None) -> None:
        """Several contacts in one event: (x, y, pressed, identifier) each. On the second connection.
        The emulator makes them one input frame on the guest: a press and a lift of one identifier
        in the same call leave no contact for Android to see (`tap` says why)."""
        self._call(self._touch_stub.sendTouch, _touch_event(contacts), timeout, "sendTouch")
        self.touches_sent += 1

    def tap(self, x: int, y: int, identifier: int = 0, *, timeout: float | None = None) -> None:
        """A press at (x, y) and its lift in one streamInputEvent call: two TouchEvents, written one
        after the other with no answer waited for between them, so the press is as short as the
        emulator takes to read two messages that travel together, whatever this host does between
        its calls. The emulator hands each streamed event to its TouchEventSender as it reads it,
        and each TouchEvent becomes one input frame ending in its own SYN_REPORT
        (aosp-mirror/platform_external_qemu, android/android-grpc/services/emulator-controller/
        server/src/android/emulation/control/EmulatorService.cpp, streamInputEvent;
        keyboard/TouchEventSender.cpp, doSend). One sendTouch carrying both would be one frame
        whose slot ends released: InputReader's MultiTouchMotionAccumulator marks a slot whose
        tracking id goes to -1 not in use, so Android would see no touch at all."""
        self.touch_frames([[(x, y, True, identifier)], [(x, y, False, identifier)]], timeout=timeout)

    def touch_frames(self, frames: Sequence[Sequence[Contact]], *, timeout: float | None = None) -> None:
        """Input frames in one streamInputEvent call on the second connection, each frame one
        TouchEvent of its contacts, delivered in order."""
        events = [pb.InputEvent(touch_event=_touch_event(frame)) for frame in frames]
        self._call(self._touch_stub.streamInputEvent, iter(events), timeout, "streamInputEvent")
        self.touches_sent += len(frames)

    def paced_frames(self, frames: Sequence[tuple[float, Sequence[Contact]]], *, timeout: float | None = None) -> None:
        """Input frames in one streamInputEvent call, each written its gap (seconds, from the
        frames' times) after the one before it was: the emulator hands each streamed event to its
        TouchEventSender as it reads it (EmulatorService.cpp, streamInputEvent), so no answer is
        waited for between frames, and a frame that went out late delays the next one rather than
        bringing it closer (a double tap's lift and second press stay at least their gap apart, over
        GestureDetector's 40 ms minimum). The call's deadline is the call timeout plus the frames' span."""
        first = frames[0][0] if frames else 0.0

        def paced() -> Iterator[Any]:
            written, previous = 0.0, first
            for at, contacts in frames:
                left = written + (at - previous) - time.monotonic()
                if written and left > 0:
                    time.sleep(left)
                written, previous = time.monotonic(), at
                yield pb.InputEvent(touch_event=_touch_event(contacts))

        span = frames[-1][0] - first if frames else 0.0
        budget = (self.call_timeout if timeout is None else timeout) + span
        self._call(self._touch_stub.streamInputEvent, paced(), budget, "streamInputEvent")
        self.touches_sent += len(frames)

    # --- the emulated hardware (hardware_state.py) ----------------------------------------------

    def battery(self, *, timeout: float | None = None) -> EmulatedBattery:
        """getBattery: the emulated battery as the emulator holds it."""
        return EmulatedBattery.of(self._call(self._stub.getBattery, empty_pb2.Empty(), timeout, "getBattery"))

    def set_battery(self, battery: EmulatedBattery, *, timeout: float | None = None) -> None:
        """setBattery: the emulated battery's level, charger, status and health."""
        self._call(self._stub.setBattery, battery.message(), timeout, "setBattery")

    def gps(self, *, timeout: float | None = None) -> GpsFix:
        """getGps: the last fix setGps (or the location UI) gave the emulated GPS."""
        return GpsFix.of(self._call(self._stub.getGps, empty_pb2.Empty(), timeout, "getGps"))

    def set_gps(self, fix: GpsFix, *, timeout: float | None = None) -> None:
        """setGps: the emulated GPS reports this fix (the guest samples it about once a second)."""
        self._call(self._stub.setGps, fix.message(), timeout, "setGps")

    def send_fingerprint(self, touch_id: int, touching: bool, *, timeout: float | None = None) -> None:
        """sendFingerprint: the registered finger `touch_id` touches (or leaves) the sensor."""
        self._call(self._stub.sendFingerprint, pb.Fingerprint(isTouching=touching, touchId=touch_id), timeout,
                   "sendFingerprint")

    def posture(self, *, timeout: float | None = None) -> PostureName | None:
        """getPhysicalModel(POSTURE): the posture now; None when the AVD reports none (no hinge)."""
        request = pb.PhysicalModelValue(target=pb.PhysicalModelValue.POSTURE)
        reply = self._call(self._stub.getPhysicalModel, request, timeout, "getPhysicalModel")
        return posture_name(int(reply.value.data[0])) if reply.value.data else None

    def set_posture(self, posture: PostureName | None, *, timeout: float | None = None) -> None:
        """setPosture: a foldable's posture (closed, half_opened, opened, flipped, tent; None for
        POSTURE_UNKNOWN, what a phone reports)."""
        self._call(self._stub.setPosture, posture_message(posture), timeout, "setPosture")

    def stream(
        self, width: int | None = WORKING_WIDTH, *, open_timeout: float | None = None, queue: int = STREAM_QUEUE
    ) -> FrameStream:
        """Subscribe to RGB888 frames `width` pixels wide (None: full resolution), both dimensions
        set (scaled_size). The stream is open once the emulator answered, within `open_timeout`:
        by default a call's deadline, since the answer is the emulator's first frame, a screenshot
        (connect has already shown that the endpoint answers)."""
        self._check_open()
        w, h = self.hardware.requested_size(width)
        request = pb.ImageFormat(format=pb.ImageFormat.RGB888, width=w, height=h)
        deadline = time.monotonic() + (self.call_timeout if open_timeout is None else open_timeout)
        while True:
            call = self._stub.streamScreenshot(request, metadata=self._metadata, wait_for_ready=True)
            stream = FrameStream(call, self._frame, self.endpoint, queue=queue)
            try:
                stream.wait_open(max(0.0, deadline - time.monotonic()))
                break
            except ControllerError as failure:
                stream.close()
                if not _dropped_by_a_going_endpoint(failure) or time.monotonic() >= deadline:
                    raise
                time.sleep(REOPEN_PAUSE_S)
            except BaseException:
                stream.close()
                raise
        with self._lock:
            self._streams = [s for s in self._streams if not s.closed]
            self._streams.append(stream)
        return stream

    def stats(self) -> StreamStats:
        """Frames received, dropped and overflowed over every stream this controller opened."""
        with self._lock:
            streams = list(self._streams)
        return StreamStats(
            received=sum(s.received for s in streams),
            dropped=sum(s.dropped for s in streams),
            overflowed=sum(s.overflowed for s in streams),
        )

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            streams = list(self._streams)
        for stream in streams:
            stream.close()
        self._main.close()
        self._touch.close()

    def __enter__(self) -> Controller:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Controller({self.endpoint.url}, {self.hardware.width}x{self.hardware.height})"

    # --- helpers -------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise Closed(f"the controller at {self.endpoint.url} is closed")

    def _call(self, method: Any, request: Any, timeout: float | None, name: str) -> Any:
        self._check_open()
        return _unary(method, request, self.call_timeout if timeout is None else timeout,
                      self._metadata, name, self.endpoint)

    def _frame(self, image: Any, received_at: float) -> Frame:
        return Frame.from_image(image, received_at=received_at)


def _dropped_by_a_going_endpoint(failure: ControllerError) -> bool:
    """A call sent on a connection the endpoint was closing: `wait_for_ready` waits only while the
    channel has no connection, and one whose GOAWAY the client had not read yet still takes the call,
    which the GOAWAY then ends as UNAVAILABLE. Opened again, the call waits for the endpoint's return."""
    return failure.code == "UNAVAILABLE"


class FrameStream:
    """Frames of one streamScreenshot call, read on a daemon thread.

    `seq` counts the device's frames since the stream began, so a gap is frames the emulator
    dropped (`dropped`). A reader that falls behind gets the newest `queue` frames (`overflowed`).
    """

    def __init__(
        self,
        call: Any,
        to_frame: Callable[[Any, float], Frame],
        endpoint: Endpoint,
        *,
        queue: int = STREAM_QUEUE,
    ) -> None:
        self._call = call
        self._to_frame = to_frame
        self._endpoint = endpoint
        self._frames: collections.deque[Frame] = collections.deque()
        self._limit = max(1, queue)
        self._cond = threading.Condition()
        self._opened = threading.Event()
        self._error: MobileAgentError | None = None
        self._ended = False
        self.closed = False
        self.received = 0
        self.dropped = 0
        self.overflowed = 0
        self._last_seq: int | None = None
        self._thread = threading.Thread(target=self._read, name=f"mobile-agent-frame-stream {endpoint.url}",
                                        daemon=True)
        self._thread.start()

    def wait_open(self, timeout: float) -> None:
        if not self._opened.wait(timeout):
            raise Timeout(f"opening the frame stream of {self._endpoint.url}", timeout)
        with self._cond:
            if self._error is not None and not self._frames:
                raise self._error

    def next(self, timeout: float) -> Frame | None:
        """The next frame, waiting up to `timeout` seconds; None when none came (a still screen).
        Raises the stream's error once it failed, errors.Closed once it ended or was closed."""
        deadline = time.monotonic() + max(0.0, timeout)
        with self._cond:
            while not self._frames:
                if self._error is not None:
                    raise self._error
                if self._ended or self.closed:
                    raise Closed(f"the frame stream of {self._endpoint.url} ended")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._cond.wait(remaining)
            return self._frames.popleft()

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()
        self._call.cancel()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)

    def __enter__(self) -> FrameStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read(self) -> None:
        try:
            for image in self._call:  # open at the first frame, the emulator's answer (its headers come
                self._accept(self._to_frame(image, time.monotonic()))  # with it); ended, at its error
                self._opened.set()
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED or not self.closed:
                self._fail(_rpc_error(exc, "streamScreenshot", self._endpoint))
        except MobileAgentError as exc:
            self._fail(exc)
            self._call.cancel()
        except Exception as exc:  # a bug or a malformed message: said, not a silent "ended"
            log.exception("the frame stream of %s failed", self._endpoint.url)
            self._fail(ControllerError(f"the frame stream of {self._endpoint.url} failed: {type(exc).__name__}: {exc}"))
            self._call.cancel()
        finally:
            with self._cond:
                self._ended = True
                self._cond.notify_all()
            self._opened.set()

    def _accept(self, frame: Frame) -> None:
        with self._cond:
            if self._last_seq is not None and frame.seq > self._last_seq + 1:
                self.dropped += frame.seq - self._last_seq - 1
            self._last_seq = frame.seq
            self.received += 1
            self._frames.append(frame)
            while len(self._frames) > self._limit:
                self._frames.popleft()
                self.overflowed += 1
            self._cond.notify_all()

    def _fail(self, error: MobileAgentError) -> None:
        with self._cond:
            self._error = error
            self._cond.notify_all()


# --- module helpers ------------------------------------------------------------------------------


def _touch_event(contacts: Sequence[Contact]) -> Any:
    return pb.TouchEvent(
        touches=[
            pb.Touch(x=int(x), y=int(y), identifier=int(ident), pressure=PRESSED if pressed else 0)
            for x, y, pressed, ident in contacts
        ]
    )


def _metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),) if token else ()


def _probe_tcp(endpoint: Endpoint, timeout: float) -> None:
    """A plain TCP connect first: a closed port is refused at once, with the OS's own words.

    The reason reads as the seed's does (tonic's transport error around hyper's connect error):
    `connecting to URL: transport error: tcp connect error: Connection refused (os error 61)`.
    """
    try:
        with socket.create_connection((endpoint.host, endpoint.port), timeout=timeout):
            pass
    except OSError as exc:
        if isinstance(exc, (socket.timeout, TimeoutError)):
            detail = f"tcp connect timed out after {timeout:g} s"
        else:
            detail = f"tcp connect error: {exc.strerror or exc} (os error {exc.errno})"
        raise _unavailable(endpoint, f"connecting to {endpoint.url}: {TRANSPORT_ERROR}{detail}") from exc


def _wait_ready(channel: grpc.Channel, endpoint: Endpoint, deadline: float, timeout: float) -> None:
    try:
        grpc.channel_ready_future(channel).result(timeout=max(0.001, deadline - time.monotonic()))
    except grpc.FutureTimeoutError:
        raise _unavailable(
            endpoint,
            f"connecting to {endpoint.url}: no HTTP/2 answer within the {timeout:g} s deadline "
            "(the port accepts TCP and never answers)",
        ) from None


def _unary(method: Any, request: Any, timeout: float, metadata: Any, name: str, endpoint: Endpoint) -> Any:
    """The call with `timeout` as its grpc-timeout, and the same deadline held on the client side."""
    future = method.future(request, timeout=timeout, metadata=metadata)
    try:
        return future.result(timeout=timeout)
    except grpc.FutureTimeoutError:
        future.cancel()
        raise Timeout(f"the controller's {name} at {endpoint.url}", timeout) from None
    except grpc.RpcError as exc:
        raise _rpc_error(exc, name, endpoint) from None


def _rpc_error(exc: grpc.RpcError, name: str, endpoint: Endpoint) -> MobileAgentError:
    code = exc.code() if hasattr(exc, "code") else None
    details = _scrub(str(exc.details() if hasattr(exc, "details") else exc), endpoint.token)
    code_name = code.name if code is not None else "UNKNOWN"
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return Timeout(f"the controller's {name} at {endpoint.url}", None, detail=details)
    return ControllerError(f"the controller's {name} at {endpoint.url} failed: {code_name}: {details}", code=code_name)


def _scrub(text: str, token: str | None) -> str:
    return text.replace(token, "<token>") if token else text


def _unavailable(endpoint: Endpoint, reason: str) -> Unavailable:
    return Unavailable(endpoint.name, _scrub(reason, endpoint.token), console_port=endpoint.console_port)
