"""Frames, with a controller only, and screenshots from the agent.

A daemon thread subscribes to 540-pixel-wide RGB888 frames and puts each on the event stream as a
Frame whose hash leaves the top 6 % of rows out (the status bar, whose clock changes on its own),
and whose capture time is its arrival minus the lag the emulator's timestamp shows, at most a
second. The last four frames are kept; `jpeg` turns one upright (clockwise, by the display's
quarter turns), scales it by area average and encodes it. A failed stream is subscribed to again
and the failure counted for the status report.
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
from typing import Any, Protocol

from PIL import Image

from pytest_mobile_agent.emulator.frame import FrameHasher
from pytest_mobile_agent.errors import InvalidArgument, MobileAgentError, ProtocolError
from pytest_mobile_agent.session.backends import Frame, Screenshot
from pytest_mobile_agent.session.tree import Requester

log = logging.getLogger("pytest_mobile_agent.session")

FRAME_WIDTH = 540
KEPT_FRAMES = 4
MAX_LAG = 1.0
SCREENSHOT_TIMEOUT = 10.0
RESUBSCRIBE_BACKOFF = 0.25
NEXT_TIMEOUT = 0.25
"""How long one wait for a frame lasts, so that stop() is seen promptly (a still screen sends none)."""


class RawFrame(Protocol):
    """What the frame source needs of `emulator.Frame`."""

    width: int
    height: int
    data: bytes
    seq: int
    timestamp_us: int


class FrameStreamLike(Protocol):
    def next(self, timeout: float) -> Any: ...


class FrameController(Protocol):
    def stream(self, width: int = FRAME_WIDTH) -> Any: ...


_HASHER = FrameHasher()


def capture_time(arrival: float, timestamp_us: int, wall_now: float) -> float:
    """The arrival time (monotonic) minus the lag the emulator's timestamp shows, at most a second."""
    lag = wall_now - timestamp_us / 1_000_000 if timestamp_us else 0.0
    return arrival - min(MAX_LAG, max(0.0, lag))


@dataclass(frozen=True)
class KeptFrame:
    event: Frame
    raw: Any
    rotation: int


class FrameSource:
    """The FrameBackend: kept controller frames, their JPEG encoding, and agent screenshots."""

    def __init__(
        self,
        connection: Requester,
        controller: FrameController | None = None,
        *,
        put: Callable[[Frame], None] | None = None,
        rotation: Callable[[], int] = lambda: 0,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._connection = connection
        self._controller = controller
        self._put = put
        self._rotation = rotation
        self._clock = clock
        self._wall = wall
        self._kept: deque[KeptFrame] = deque(maxlen=KEPT_FRAMES)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._stream: Any = None
        self.received = 0
        self.failures = 0
        self.last_failure: BaseException | None = None

    @property
    def live(self) -> bool:
        return self._controller is not None

    def start(self) -> None:
        if self._controller is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="mobile-agent-frames", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        _close_quietly(self._stream)
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def accept(self, raw: Any) -> Frame:
        """Take one frame from the controller: hash it, time it, keep it, put it on the stream."""
        arrival = getattr(raw, "received_at", 0.0) or self._clock()
        event = Frame(
            hash=_HASHER.key(raw),
            captured_at=capture_time(arrival, int(getattr(raw, "timestamp_us", 0) or 0), self._wall()),
            received_at=arrival,
            seq=int(getattr(raw, "seq", 0) or 0),
            width=raw.width,
            height=raw.height,
        )
        with self._lock:
            self._kept.append(KeptFrame(event, raw, int(getattr(raw, "rotation", self._rotation()) or 0)))
        if self._put is not None:
            self._put(event)
        with self._lock:
            self.received += 1  # counted once it is on the stream, so a reader of the count finds it there
        return event

    def frames(self) -> list[Frame]:
        with self._lock:
            return [kept.event for kept in self._kept]

    def jpeg(self, frame: Frame | None = None, quality: int = 80, width: int | None = None) -> bytes:
        kept = self._find(frame)
        image = upright(kept.raw.width, kept.raw.height, kept.raw.data, kept.rotation)
        if width is not None and width != image.width:
            image = scale_area_average(image, width)
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=quality)
        return out.getvalue()

    def screenshot(self, format: str = "png") -> Screenshot:
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

    # --- the subscription ------------------------------------------------------------------------

    def _find(self, frame: Frame | None) -> KeptFrame:
        with self._lock:
            kept = list(self._kept)
        if not kept:
            raise MobileAgentError("no controller frame has arrived yet", advice="take a screenshot through the agent instead")
        if frame is None:
            return kept[-1]
        for candidate in kept:
            if candidate.event == frame:
                return candidate
        raise MobileAgentError("that frame is no longer kept (only the last four are)")

    def _run(self) -> None:
        assert self._controller is not None
        while not self._stop.is_set():
            try:
                self._stream = self._controller.stream(width=FRAME_WIDTH)
                while not self._stop.is_set():
                    raw = self._stream.next(NEXT_TIMEOUT)
                    if raw is not None and raw.width and raw.height:
                        self.accept(raw)
            except Exception as exc:  # a failed stream is subscribed to again
                if self._stop.is_set():
                    break
                self.failures += 1
                self.last_failure = exc
                log.warning("the controller's frame stream failed, subscribing again: %s", exc)
                self._stop.wait(RESUBSCRIBE_BACKOFF)
            finally:
                _close_quietly(self._stream)
                self._stream = None


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


def _close_quietly(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if close is None:
        return
    try:
        close()
    except Exception:
        log.debug("closing the frame stream failed", exc_info=True)
