"""Frames, with a controller only, and screenshots from the agent.

A daemon thread subscribes to 540-pixel-wide RGB888 frames (the emulator's `Frame`) and puts each on
the event stream as a FrameEvent whose hash leaves the top 6 % of rows out (the status bar, whose
clock changes on its own). Its times are the host's clock when it arrived (`received_at`, stamped by
the stream's reader as it came off the wire) and when the latest change was drawn (`changed_at`, the
capture time of the first frame that showed it: quiet is decided on these); its capture time
estimates when the emulator drew it: the arrival minus the
lag its timestamp shows beyond the smallest lag seen so far (which is the clocks' skew, as far as
the host can tell), at most a second. The last four frames are kept; `jpeg` turns one upright (clockwise, by the
display's quarter turns), scales it by area average and encodes it.

A failed stream is subscribed to again, the attempts spaced out exponentially up to half a second
(the controller's channel reconnects as promptly), each failure counted for the status report, and
logged at most once every LOG_EVERY seconds. `live` is true only while a stream is open: during an
outage the mirror probes the agent as it does without a controller.
"""

from __future__ import annotations

import base64
import binascii
import io
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from PIL import Image

from pytest_mobile_agent.emulator.frame import Frame, FrameHasher
from pytest_mobile_agent.errors import InvalidArgument, MobileAgentError, ProtocolError
from pytest_mobile_agent.session.backends import FrameEvent, ImageFormat, Screenshot
from pytest_mobile_agent.session.tree import Requester

log = logging.getLogger("pytest_mobile_agent.session")

FRAME_WIDTH = 540
KEPT_FRAMES = 4
MAX_LAG = 1.0
SCREENSHOT_TIMEOUT = 10.0
RESUBSCRIBE_FIRST = 0.05
RESUBSCRIBE_MAX = 0.5
LOG_EVERY = 10.0
NEXT_TIMEOUT = 0.25
"""How long one wait for a frame lasts, so that stop() is seen promptly (a still screen sends none)."""


class FrameStreamLike(Protocol):
    """What the frame source needs of `emulator.FrameStream`."""

    def next(self, timeout: float) -> Frame | None: ...

    def close(self) -> None: ...


class FrameController(Protocol):
    """What the frame source needs of `emulator.Controller`."""

    def stream(self, width: int = FRAME_WIDTH) -> FrameStreamLike: ...


_HASHER = FrameHasher()


def capture_time(arrival: float, timestamp_us: int, wall_at_arrival: float, skew: float = 0.0) -> float:
    """The arrival time (monotonic) minus the lag the emulator's timestamp shows beyond `skew` (the
    smallest lag seen: the clocks' offset), at most a second."""
    lag = wall_at_arrival - timestamp_us / 1_000_000 - skew if timestamp_us else 0.0
    return arrival - min(MAX_LAG, max(0.0, lag))


class _Outage:
    """Failed subscriptions in a row: how many, since when, and when one was last logged."""

    def __init__(self, now: float) -> None:
        self.since = now
        self.failures = 0
        self.logged_at = float("-inf")
        self.backoff = RESUBSCRIBE_FIRST


@dataclass(frozen=True)
class KeptFrame:
    event: FrameEvent
    raw: Frame


class FrameSource:
    """The FrameBackend: kept controller frames, their JPEG encoding, and agent screenshots."""

    def __init__(
        self,
        connection: Requester,
        controller: FrameController | None = None,
        *,
        put: Callable[[FrameEvent], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._connection = connection
        self._controller = controller
        self._put = put
        self._clock = clock
        self._wall = wall
        self._kept: deque[KeptFrame] = deque(maxlen=KEPT_FRAMES)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._stream: FrameStreamLike | None = None
        self._open = False
        self._last_hash: int | None = None
        self._changed_at = 0.0
        self._skew: float | None = None
        self._observers: list[Callable[[Frame], None]] = []
        self.received = 0
        self.failures = 0
        self.last_failure: BaseException | None = None

    @property
    def live(self) -> bool:
        """Whether frames can arrive now: a controller, and its stream open."""
        return self._controller is not None and self._open

    def start(self) -> None:
        if self._controller is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="mobile-agent-frame-source", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        _close_quietly(self._stream)
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def accept(self, raw: Frame) -> FrameEvent:
        """Take one frame from the controller: hash it, time it, keep it, put it on the stream."""
        now = self._clock()
        arrival = raw.received_at or now
        digest = _HASHER.key(raw)
        captured = self._captured_at(arrival, raw.timestamp_us, now)
        if digest != self._last_hash:
            self._last_hash = digest
            # when the emulator drew the change, not when a starved host got to it: a read that
            # started after that has seen it (mirror.py)
            self._changed_at = max(self._changed_at, captured)
        event = FrameEvent(
            hash=digest,
            captured_at=captured,
            received_at=arrival,
            seq=raw.seq,
            width=raw.width,
            height=raw.height,
            changed_at=self._changed_at,
        )
        with self._lock:
            self._kept.append(KeptFrame(event, raw))
        if self._put is not None:
            self._put(event)
        with self._lock:
            self.received += 1  # counted once it is on the stream, so a reader of the count finds it there
            observers = list(self._observers)
        for observer in observers:
            try:
                observer(raw)
            except Exception:  # an observer's bug must not stop the frames
                log.exception("a frame observer failed")
        return event

    def observe(self, observer: Callable[[Frame], None]) -> Callable[[], None]:
        """Call `observer` with each raw frame once it is on the event stream (on the frame source's
        thread: it must hand the frame on and return, never encode it there), starting with the
        latest kept frame, handed over at once (a still screen sends no new one); returns the call
        that stops it. The step trace and the video take their frames here."""
        with self._lock:
            self._observers.append(observer)
            latest = self._kept[-1].raw if self._kept else None
        if latest is not None:
            observer(latest)

        def stop() -> None:
            with self._lock:
                if observer in self._observers:
                    self._observers.remove(observer)

        return stop

    def frames(self) -> list[FrameEvent]:
        with self._lock:
            return [kept.event for kept in self._kept]

    def jpeg(self, frame: FrameEvent | None = None, quality: int = 80, width: int | None = None) -> bytes:
        kept = self._find(frame)
        image = upright(kept.raw.width, kept.raw.height, kept.raw.data, kept.raw.rotation)
        if width is not None and width != image.width:
            image = scale_area_average(image, width)
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=quality)
        return out.getvalue()

    def screenshot(self, format: ImageFormat = "png") -> Screenshot:
        if format not in ("png", "jpeg"):
            raise InvalidArgument(f"a screenshot's format is png or jpeg, not {format!r}")
        result = self._connection.request("screenshot", {"format": format}, SCREENSHOT_TIMEOUT)
        try:
            data = base64.b64decode(result["data"], validate=True)
            return Screenshot(
                format=str(result.get("format", format)),
                width=int(result["width"]),
                height=int(result["height"]),
                rotation=int(result.get("rotation", 0)),
                data=data,
            )
        except (KeyError, TypeError, ValueError, binascii.Error) as exc:
            raise ProtocolError(f"malformed screenshot from the agent: {exc}") from None

    def _captured_at(self, arrival: float, timestamp_us: int, now: float) -> float:
        if not timestamp_us:
            return arrival
        wall_at_arrival = self._wall() - (now - arrival)  # the wall clock when it arrived, not now
        lag = wall_at_arrival - timestamp_us / 1_000_000
        self._skew = lag if self._skew is None else min(self._skew, lag)
        return capture_time(arrival, timestamp_us, wall_at_arrival, self._skew)

    # --- the subscription ------------------------------------------------------------------------

    def _find(self, frame: FrameEvent | None) -> KeptFrame:
        with self._lock:
            kept = list(self._kept)
        if not kept:
            raise MobileAgentError(
                "no controller frame has arrived yet", advice="take a screenshot through the agent instead"
            )
        if frame is None:
            return kept[-1]
        for candidate in kept:
            if candidate.event == frame:
                return candidate
        raise MobileAgentError("that frame is no longer kept (only the last four are)")

    def _run(self) -> None:
        assert self._controller is not None
        outage: _Outage | None = None
        while not self._stop.is_set():
            attempt = time.monotonic()
            try:
                self._stream = stream = self._controller.stream(width=FRAME_WIDTH)
                self._open = True
                if outage is not None:
                    log.info("the controller's frame stream is back after %d failed subscriptions in %.1f s",
                             outage.failures, time.monotonic() - outage.since)
                    outage = None
                while not self._stop.is_set():
                    raw = stream.next(NEXT_TIMEOUT)
                    if raw is not None and raw.width and raw.height:
                        self.accept(raw)
            except Exception as exc:  # a failed stream is subscribed to again
                self._open = False
                if self._stop.is_set():
                    break
                outage = outage or _Outage(attempt)
                self._failed(exc, outage)
                # at most one attempt per backoff; an attempt that waited (for the channel) waits no more
                self._stop.wait(max(0.0, outage.backoff - (time.monotonic() - attempt)))
                outage.backoff = min(RESUBSCRIBE_MAX, outage.backoff * 2)
            finally:
                self._open = False
                _close_quietly(self._stream)
                self._stream = None

    def _failed(self, exc: BaseException, outage: _Outage) -> None:
        self.failures += 1
        self.last_failure = exc
        outage.failures += 1
        now = time.monotonic()
        if now - outage.logged_at >= LOG_EVERY:
            outage.logged_at = now
            log.warning("the controller's frame stream failed (%d in a row), subscribing again: %s",
                        outage.failures, exc)


def upright(width: int, height: int, data: bytes, rotation: int) -> Image.Image:
    """An RGB888 frame (top row first) turned clockwise by `rotation` quarter turns."""
    image = Image.frombytes("RGB", (width, height), bytes(data))
    turns = rotation % 4
    if turns == 1:
        return image.transpose(Image.Transpose.ROTATE_270)
    if turns == 2:
        return image.transpose(Image.Transpose.ROTATE_180)
    if turns == 3:
        return image.transpose(Image.Transpose.ROTATE_90)
    return image


def scale_area_average(image: Image.Image, width: int) -> Image.Image:
    """Scale to `width`, the height keeping the aspect ratio, each pixel the average of its area."""
    if width <= 0:
        raise ValueError(f"a frame's width must be positive, not {width}")
    height = max(1, round(image.height * width / image.width))
    return image.resize((width, height), Image.Resampling.BOX)


def _close_quietly(stream: FrameStreamLike | None) -> None:
    if stream is None:
        return
    try:
        stream.close()
    except Exception:
        log.debug("closing the frame stream failed", exc_info=True)
