"""A device test's video (`--android-video`): from the emulator controller's frames when the session
has a controller, else from `screenrecord` on the device.

With a controller the frames the session already receives are encoded (PyAV, the `video` extra)
into MP4 (H.264) or WebM (VP8) on an encoder thread. The frame source hands each frame over
without waiting (`FrameSource.observe`): when the encoder falls behind, its queue is full and the
oldest waiting frame is left out of the video and counted (`dropped`); the session's event stream
is never held back. The video takes 30 pictures a second at most (MAX_FRAME_RATE), always the
newest. The frames come as the screen changes, so each is stamped with its arrival time and the
video has a variable frame rate; the last frame is repeated at the end, so the video lasts until
the test's teardown is over.

Without a controller, `screenrecord` runs over a shell stream into /data/local/tmp. One recording
lasts at most `--time-limit`, 180 s by default on every API level (AOSP's kMaxTimeLimitSec,
frameworks/av/cmds/screenrecord/screenrecord.cpp, Android 13 to 15; Android 14, API 34, added
`--time-limit 0`, no limit, which older devices refuse as outside [1,180]), so the recording is
made of segments, which work on every level: the next starts OVERLAP seconds before
the previous one's limit, so there is no gap between them. It is stopped by SIGINT (the tool's
signalCatcher then writes the file's index), pulled, and deleted from the device whatever happens:
a Ctrl-C of the run stops and deletes them too (`abort_all`, called at the session's finish).
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import secrets
import shlex
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from pytest_mobile_agent.errors import MobileAgentError

log = logging.getLogger("pytest_mobile_agent.evidence.video")

QUEUE_FRAMES = 8
"""Frames waiting for the encoder; past this, frames are dropped from the video and counted."""
MAX_FRAME_RATE = 30
"""Pictures a second the video takes at most (the emulator sends up to 60). A frame that comes sooner
after the last one encoded waits for its slot; a newer one replaces it (counted as `merged`); a frame
still waiting when its slot comes, or at the end, is encoded, so the video never ends on a stale picture."""

FINISH_TIMEOUT = 15.0
SEGMENT_SECONDS = 180
OVERLAP = 3.0
STOP_TIMEOUT = 10.0
REMOTE_DIR = "/data/local/tmp"
CODECS = {"mp4": "libx264", "webm": "libvpx"}
MISSING_AV = ("video from the emulator's frames needs PyAV: pip install 'pytest-mobile-agent[video]' "
              "(or --android-video off)")

_ACTIVE: set[Any] = set()
_ACTIVE_LOCK = threading.Lock()


@dataclass
class VideoResult:
    written: bool
    notes: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)


def start(video_format: str, *, session: Any, device: Any) -> Recording:
    """The test's recording, started now: the controller's frames when the session has a controller."""
    if session is not None and session.controller is not None:
        recording: ControllerVideo | ScreenRecording = ControllerVideo(session.frames.observe, video_format)
    elif device is not None:
        recording = ScreenRecording(device)
    else:
        raise MobileAgentError("no device to record")
    with _ACTIVE_LOCK:
        _ACTIVE.add(recording)
    return recording


def abort_all() -> None:
    """Stop every recording still running (an interrupted run): no screenrecord left on a device."""
    with _ACTIVE_LOCK:
        running = list(_ACTIVE)
        _ACTIVE.clear()
    for recording in running:
        with contextlib.suppress(Exception):
            recording.finish(None)


def _done(recording: Any) -> None:
    with _ACTIVE_LOCK:
        _ACTIVE.discard(recording)


class FramePacer:
    """Which frames the video takes: one per `interval` at most, and always the latest. A frame that
    comes before its slot waits, a newer one replaces it (`merged`), and a frame still waiting when
    its slot comes is taken then, or at the end (`left`)."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.merged = 0
        self._next_slot = float("-inf")
        self._waiting: Any = None

    def offer(self, item: Any, now: float) -> Any:
        """`item` when it is to be encoded now, else None (it waits for its slot)."""
        if self._waiting is not None:
            self.merged += 1
        self._waiting = item
        return self.take(now)

    def take(self, now: float) -> Any:
        """The waiting frame when its slot has come, else None."""
        if self._waiting is None or now < self._next_slot:
            return None
        item, self._waiting = self._waiting, None
        self._next_slot = now + self.interval
        return item

    def wait_for(self, now: float) -> float | None:
        """How long the encoder may wait for the next frame: until the waiting one's slot, else for ever."""
        return None if self._waiting is None else max(0.0, self._next_slot - now)

    def left(self) -> Any:
        """The frame still waiting at the end: the screen's last picture."""
        item, self._waiting = self._waiting, None
        return item


# --- the controller's frames -----------------------------------------------------------------------


class ControllerVideo:
    """Encodes the frames the session receives, on its own thread, into a temporary file."""

    def __init__(self, observe: Callable[[Callable[[Any], None]], Callable[[], None]], video_format: str,
                 clock: Callable[[], float] = time.monotonic) -> None:
        try:
            import av
        except ImportError:
            raise MobileAgentError(MISSING_AV) from None
        self._av = av
        self.extension = video_format
        self._clock = clock
        self.started = time.time()
        self._started_at = clock()
        self._queue: queue.Queue[tuple[Any, float] | None] = queue.Queue(QUEUE_FRAMES)
        self.dropped = 0
        self._pacer = FramePacer(1 / MAX_FRAME_RATE)
        self.encoded = 0
        self.failure: BaseException | None = None
        handle, name = tempfile.mkstemp(prefix="mobile-agent-video-", suffix=f".{video_format}")
        os.close(handle)
        self._file = Path(name)
        self._thread = threading.Thread(target=self._run, name="mobile-agent-video-encoder", daemon=True)
        self._thread.start()
        self._stop_observing = observe(self._offer)

    def _offer(self, frame: Any) -> None:
        """On the frame source's thread: hand the frame over without waiting. When the encoder is behind,
        the oldest waiting frame is left out (counted as dropped), so the video still ends on the newest."""
        item = (frame, frame.received_at or self._clock())
        for _ in range(2):
            try:
                self._queue.put_nowait(item)
                return
            except queue.Full:
                self._drop_oldest()
        self.dropped += 1  # still no room: finish's end took it

    def _drop_oldest(self) -> None:
        try:
            oldest = self._queue.get_nowait()
        except queue.Empty:  # the encoder took it meanwhile
            return
        if oldest is None:  # finish's end stays the last thing queued
            self._queue.put_nowait(None)
        else:
            self.dropped += 1

    def _run(self) -> None:
        try:
            with self._av.open(str(self._file), mode="w") as container:
                self._encode_all(container)
        except Exception as exc:  # noqa: BLE001 - a failed encoder costs the video, never the test
            self.failure = exc
            log.warning("the video encoder failed: %s", exc)
            while self._queue.get() is not None:  # keep taking frames until finish, so none waits
                self.dropped += 1

    def _encode_all(self, container: Any) -> None:
        track, pacer = _Track(container), self._pacer
        while True:
            try:
                item = self._queue.get(timeout=pacer.wait_for(self._clock()))
            except queue.Empty:  # the waiting frame's slot came first
                due = pacer.take(self._clock())
            else:
                if item is None:
                    break
                due = pacer.offer(item, self._clock())
            if due is not None:
                self._add(track, *due)
        if (last := pacer.left()) is not None:
            self._add(track, *last)
        self._close(track)

    @property
    def merged(self) -> int:
        """Frames replaced by a newer one within the same slot (FramePacer)."""
        return self._pacer.merged

    def _add(self, track: _Track, frame: Any, arrived: float) -> None:
        if track.stream is None or track.converter is None:
            track.stream = _open_stream(track.container, CODECS[self.extension], _upright_size(frame))
            track.converter = PictureConverter(self._av, track.stream.width, track.stream.height)
        pts = max(track.last[1] + 1 if track.last else 0, round((arrived - self._started_at) * 1000))
        picture = track.converter.picture(frame)
        self._encode(track.container, track.stream, picture, pts)
        track.last = (picture, pts)

    def _close(self, track: _Track) -> None:
        if track.stream is None:
            return
        end = round((self._clock() - self._started_at) * 1000)
        if track.last is not None and end > track.last[1]:
            self._encode(track.container, track.stream, track.last[0], end)  # the last picture lasts until the end
        for packet in track.stream.encode(None):
            track.container.mux(packet)

    def _encode(self, container: Any, stream: Any, picture: Any, pts: int) -> None:
        picture.pts = pts
        picture.time_base = Fraction(1, 1000)
        for packet in stream.encode(picture):
            container.mux(packet)
        self.encoded += 1

    def finish(self, path: Path | None) -> VideoResult:
        """Stop taking frames, let the encoder close the file, and move it to `path` (None: delete it)."""
        _done(self)
        self._stop_observing()
        notes: list[str] = []
        try:
            self._queue.put(None, timeout=FINISH_TIMEOUT)
        except queue.Full:
            notes.append("the encoder stopped taking frames")
        self._thread.join(FINISH_TIMEOUT)
        if self._thread.is_alive():
            notes.append(f"the encoder did not finish within {FINISH_TIMEOUT:g} s")
        if self.failure is not None:
            notes.append(f"the encoder failed: {self.failure}")
        if self.dropped:
            notes.append(f"{self.dropped} frames left out of the video: the encoder was behind")
        facts = {"started": self.started, "frames": self.encoded, "dropped": self.dropped, "merged": self.merged,
                 "source": "controller"}
        written = path is not None and self.failure is None and not self._thread.is_alive() and self.encoded > 0
        if written and path is not None:
            _move_private(self._file, path)
            facts["segments"] = [{"file": path.name, "started": self.started}]
        else:
            self._file.unlink(missing_ok=True)
        dropped_only = [n for n in notes if "left out" not in n]
        return VideoResult(written, dropped_only if written else notes, facts)


@dataclass
class _Track:
    """The video's stream, opened with the first frame's size, and the last picture put into it."""

    container: Any
    stream: Any = None
    converter: PictureConverter | None = None
    last: tuple[Any, int] | None = None


def _open_stream(container: Any, codec: str, size: tuple[int, int]) -> Any:
    stream = container.add_stream(codec, rate=60)
    stream.width, stream.height = size[0] - size[0] % 2, size[1] - size[1] % 2
    stream.pix_fmt = "yuv420p"
    stream.codec_context.time_base = Fraction(1, 1000)
    stream.options = {"preset": "ultrafast", "tune": "zerolatency"} if codec == "libx264" else {
        "deadline": "realtime", "cpu-used": "8"}
    if codec == "libx264":
        stream.codec_context.thread_count = 1  # x264's threads cost more CPU than they save at 540x1200
    return stream


class PictureConverter:
    """Turns the controller's RGB888 frames into the encoder's yuv420p pictures of the stream's size.

    The cheap way (docs/performance.md, "Video"): the frame's bytes are read in place as an array (no
    copy into an image first), turned upright only when the display is rotated, and converted by one
    swscale context kept for the whole video; the encoder then takes the picture as it is, with no
    conversion of its own. A frame of another size (the display turned mid-test) is scaled to the
    stream's size by the same context."""

    def __init__(self, av: Any, width: int, height: int) -> None:
        from av.video.reformatter import VideoReformatter

        self._av = av
        self.width, self.height = width, height
        self._reformatter = VideoReformatter()
        # PyAV 17 gave swscale threads of its own (0: one a core); on this small a picture they cost
        # more CPU than they save, so one thread, as before 17
        self.reformat_options: dict[str, int] = {"threads": 1} if int(av.__version__.split(".")[0]) >= 17 else {}

    def picture(self, frame: Any) -> Any:
        """The frame upright (clockwise by its quarter turns) as a yuv420p picture of the stream's size."""
        import numpy

        pixels = numpy.frombuffer(frame.data, numpy.uint8).reshape(frame.height, frame.width, 3)
        if frame.rotation % 4:
            pixels = numpy.ascontiguousarray(numpy.rot90(pixels, k=-(frame.rotation % 4)))
        rgb = self._av.VideoFrame.from_ndarray(pixels, format="rgb24")
        return self._reformatter.reformat(rgb, width=self.width, height=self.height, format="yuv420p",
                                          **self.reformat_options)


def _upright_size(frame: Any) -> tuple[int, int]:
    return (frame.height, frame.width) if frame.rotation % 2 else (frame.width, frame.height)


# --- screenrecord ----------------------------------------------------------------------------------


@dataclass
class Segment:
    remote: str
    stream: Any
    pid: str
    started: float


class ScreenRecording:
    """`screenrecord` on the device, in segments that overlap, pulled and deleted at the end."""

    extension = "mp4"

    def __init__(self, device: Any, segment_seconds: float | None = None) -> None:
        self._device = device
        self._seconds = segment_seconds or SEGMENT_SECONDS
        self._token = secrets.token_hex(4)
        self.segments: list[Segment] = []
        self.started = time.time()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._start_segment()
        self._roller = threading.Thread(target=self._roll, name="mobile-agent-screenrecord", daemon=True)
        self._roller.start()

    def _start_segment(self) -> None:
        remote = f"{REMOTE_DIR}/mobile-agent-{self._token}-{len(self.segments) + 1}.mp4"
        limit = max(1, round(self._seconds))
        stream = self._device.shell_stream(f"echo $$; exec screenrecord --time-limit {limit} {shlex.quote(remote)}")
        pid = (stream.read_line(5.0) or "").strip()
        if not pid.isdigit():
            stream.close()
            raise MobileAgentError(f"screenrecord did not start on {self._device.serial}")
        with self._lock:
            self.segments.append(Segment(remote, stream, pid, time.time()))

    def _roll(self) -> None:
        """The next segment, OVERLAP seconds before the current one reaches its time limit."""
        while not self._stop.wait(max(0.5, self._seconds - OVERLAP)):
            try:
                self._start_segment()
            except Exception as exc:  # noqa: BLE001 - the video has a gap from here; the test goes on
                log.warning("the next screenrecord segment did not start: %s", exc)
                return

    def finish(self, path: Path | None) -> VideoResult:
        """Stop every segment (SIGINT), pull them when `path` is given, delete them from the device."""
        _done(self)
        self._stop.set()
        self._roller.join(STOP_TIMEOUT)
        notes: list[str] = []
        with self._lock:
            segments = list(self.segments)
        try:
            self._stop_segments(segments, notes)
            written = path is not None and self._pull(segments, path, notes)
        finally:
            self._delete(segments, notes)
        facts = {"started": self.started, "source": "screenrecord",
                 "segments": [{"file": _segment_name(path, index), "started": s.started}
                              for index, s in enumerate(segments)] if path is not None else []}
        return VideoResult(written, notes, facts)

    def _stop_segments(self, segments: list[Segment], notes: list[str]) -> None:
        pids = " ".join(s.pid for s in segments)
        with contextlib.suppress(MobileAgentError, OSError):
            self._device.shell(f"kill -INT {pids} 2>/dev/null")
        for segment in segments:
            try:
                segment.stream.wait(STOP_TIMEOUT)
            except (MobileAgentError, OSError):
                notes.append(f"screenrecord {segment.pid} did not stop on SIGINT; killed")
                with contextlib.suppress(MobileAgentError, OSError):
                    self._device.shell(f"kill -9 {segment.pid} 2>/dev/null")
            finally:
                with contextlib.suppress(Exception):
                    segment.stream.close()

    def _pull(self, segments: list[Segment], path: Path, notes: list[str]) -> bool:
        pulled = 0
        for index, segment in enumerate(segments):
            target = path.with_name(_segment_name(path, index))
            temporary = target.with_name(f".{target.name}.{os.getpid()}.partial")
            try:
                self._device.pull(segment.remote, temporary)
                os.chmod(temporary, 0o600)
                os.replace(temporary, target)
                pulled += 1
            except (MobileAgentError, OSError) as exc:
                notes.append(f"segment {index + 1} could not be pulled: {exc}")
                temporary.unlink(missing_ok=True)
        return pulled == len(segments) and pulled > 0

    def _delete(self, segments: list[Segment], notes: list[str]) -> None:
        if not segments:
            return
        remotes = " ".join(shlex.quote(s.remote) for s in segments)
        try:
            self._device.shell(f"rm -f {remotes}")
        except (MobileAgentError, OSError) as exc:
            notes.append(f"the recordings on the device could not be deleted: {exc}")


def _segment_name(path: Path | None, index: int) -> str:
    if path is None:
        return ""
    return path.name if index == 0 else f"{path.stem}.{index + 1}{path.suffix}"


def _move_private(source: Path, target: Path) -> None:
    temporary = target.with_name(f".{target.name}.{os.getpid()}.partial")
    shutil.move(str(source), str(temporary))
    os.chmod(temporary, 0o600)
    os.replace(temporary, target)


Recording = ControllerVideo | ScreenRecording
"""A target's video while it records: `finish(path)` ends it and writes it (or drops it with None)."""
