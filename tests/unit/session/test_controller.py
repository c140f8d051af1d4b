"""session::controller::tests: controller frames on the event stream, kept, turned, scaled, encoded."""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image

from pytest_mobile_agent.errors import ControllerError, MobileAgentError
from pytest_mobile_agent.session import backends as b
from pytest_mobile_agent.session.events import EventStream
from pytest_mobile_agent.session.frames import (
    FrameSource,
    capture_time,
    scale_area_average,
    upright,
)
from tests.support.session_fakes import FakeConnection, FakeController, rgb_frame


def source(controller: FakeController | None = None, stream: EventStream | None = None,
           clock: float = 50.0, wall: float = 1_000.0) -> FrameSource:
    return FrameSource(FakeConnection(), controller or FakeController(), put=stream.put if stream else None,
                       clock=lambda: clock, wall=lambda: wall)


def test_a_change_in_the_status_bar_keeps_the_hash_and_one_below_it_changes_it() -> None:
    frames = source()
    plain = frames.accept(rgb_frame())
    clock_moved = frames.accept(rgb_frame(status_color=(255, 255, 255)))
    content = bytearray(rgb_frame().data)
    content[-1] ^= 1  # one pixel, bottom right
    changed = frames.accept(rgb_frame().__class__(width=540, height=1200, data=bytes(content)))
    assert plain.hash == clock_moved.hash
    assert changed.hash != plain.hash


def test_the_capture_time_is_the_arrival_minus_the_lag_beyond_the_smallest_seen_at_most_a_second() -> None:
    """The smallest lag seen is the clocks' skew (issue 19 item 2: a clock 2 s behind must not
    make every frame look a second old); what a frame lags beyond it is its own lateness."""
    times = {"clock": 50.0, "wall": 1_000.0}
    frames = FrameSource(FakeConnection(), FakeController(), clock=lambda: times["clock"], wall=lambda: times["wall"])
    first = frames.accept(rgb_frame(timestamp_us=998_000_000))  # the emulator's clock 2 s behind ours
    assert first.received_at == 50.0 and first.captured_at == 50.0  # all skew, as far as the host can tell
    times.update(clock=51.0, wall=1_001.0)
    late = frames.accept(rgb_frame(timestamp_us=998_750_000))  # 250 ms later than the skew says
    assert late.captured_at == pytest.approx(50.75)
    stale = frames.accept(rgb_frame(timestamp_us=990_000_000))  # 9 s late: capped at a second
    assert stale.captured_at == pytest.approx(50.0)
    times.update(clock=52.0, wall=1_002.0)
    queued = frames.accept(rgb_frame(timestamp_us=1_000_000_000, received_at=51.8))  # arrived 0.2 s ago
    assert queued.received_at == 51.8 and queued.captured_at == pytest.approx(51.8)  # the wall clock at arrival
    assert capture_time(10.0, 0, 1_000.0) == 10.0  # no timestamp: the arrival


def test_a_frame_without_a_timestamp_carries_the_arrival_of_the_latest_change() -> None:
    times = {"clock": 10.0}
    frames = FrameSource(FakeConnection(), FakeController(), clock=lambda: times["clock"], wall=lambda: 0.0)
    changes = []
    for t, color in ((10.0, (1, 1, 1)), (10.1, (1, 1, 1)), (10.2, (2, 2, 2)), (10.3, (1, 1, 1)), (10.4, (1, 1, 1))):
        times["clock"] = t
        changes.append(frames.accept(rgb_frame(color=color)).changed_at)
    assert changes == [10.0, 10.0, 10.2, 10.3, 10.3]  # the blink back to the first picture is a change too


def test_a_change_is_timed_by_when_the_emulator_drew_it_not_by_a_late_arrival() -> None:
    times = {"clock": 10.0, "wall": 1_000.0}
    frames = FrameSource(FakeConnection(), FakeController(), clock=lambda: times["clock"], wall=lambda: times["wall"])
    frames.accept(rgb_frame(color=(1, 1, 1), timestamp_us=1_000_000_000))  # on time: the skew is 0
    times.update(clock=11.0, wall=1_001.0)
    late = frames.accept(rgb_frame(color=(2, 2, 2), timestamp_us=1_000_600_000))  # drawn 0.4 s before it arrived
    assert late.received_at == 11.0 and late.changed_at == pytest.approx(10.6)


def test_a_frame_is_turned_clockwise_by_the_display_rotation() -> None:
    # 2x1: a red pixel left of a blue one
    data = bytes((255, 0, 0, 0, 0, 255))
    assert upright(2, 1, data, 0).size == (2, 1)
    turned = upright(2, 1, data, 1)  # a quarter turn clockwise: the left pixel goes to the top
    assert turned.size == (1, 2)
    assert turned.getpixel((0, 0)) == (255, 0, 0) and turned.getpixel((0, 1)) == (0, 0, 255)
    half = upright(2, 1, data, 2)
    assert half.getpixel((0, 0)) == (0, 0, 255)
    three = upright(2, 1, data, 3)
    assert three.getpixel((0, 0)) == (0, 0, 255) and three.getpixel((0, 1)) == (255, 0, 0)


def test_scaling_averages_each_area() -> None:
    image = Image.new("RGB", (4, 2))
    for x, y, value in ((0, 0, 0), (1, 0, 100), (0, 1, 200), (1, 1, 100)):
        image.putpixel((x, y), (value, value, value))
    for x in (2, 3):
        for y in (0, 1):
            image.putpixel((x, y), (40, 40, 40))
    small = scale_area_average(image, 2)
    assert small.size == (2, 1)
    assert small.getpixel((0, 0)) == (100, 100, 100) and small.getpixel((1, 0)) == (40, 40, 40)
    with pytest.raises(ValueError):
        scale_area_average(image, 0)


def test_the_jpeg_has_the_requested_size() -> None:
    frames = source()
    frames.accept(rgb_frame(rotation=1))
    jpeg = frames.jpeg(width=300, quality=70)
    with Image.open(io.BytesIO(jpeg)) as decoded:
        assert decoded.format == "JPEG" and decoded.size == (300, 135)  # 1200x540 upright, scaled
    with Image.open(io.BytesIO(frames.jpeg())) as full:
        assert full.size == (1200, 540)


def test_the_last_four_frames_are_kept() -> None:
    frames = source()
    with pytest.raises(MobileAgentError, match="no controller frame"):
        frames.jpeg()
    accepted = [frames.accept(rgb_frame(seq=seq)) for seq in range(6)]
    assert [f.seq for f in frames.frames()] == [2, 3, 4, 5]
    assert frames.received == 6
    frames.jpeg(accepted[3])
    with pytest.raises(MobileAgentError, match="last four"):
        frames.jpeg(accepted[0])


def test_frames_reach_the_event_stream_and_a_failed_stream_is_subscribed_to_again() -> None:
    stream = EventStream()
    controller = FakeController(streams=[[rgb_frame(seq=0), RuntimeError("stream reset")],
                                         [rgb_frame(seq=1, color=(200, 0, 0))]])
    frames = FrameSource(FakeConnection(), controller, put=stream.put)
    frames.start()
    try:
        got: list[b.SessionEvent] = []
        deadline = time.monotonic() + 3.0
        while len(got) < 2 and time.monotonic() < deadline:
            event = stream.next_event(0.1)
            if event is not None:
                got.append(event)
    finally:
        frames.stop()
    assert [type(e) for e in got] == [b.FrameEvent, b.FrameEvent]
    assert got[0].hash != got[1].hash  # type: ignore[union-attr]
    assert controller.subscriptions == [540, 540] and frames.failures == 1
    assert str(frames.last_failure) == "stream reset" and frames._thread is None


def test_without_a_controller_no_frames_arrive_and_no_thread_runs() -> None:
    frames = FrameSource(FakeConnection(), None)
    frames.start()
    assert not frames.live and frames._thread is None and frames.frames() == []


class _Failing(FakeController):
    """A controller whose subscriptions fail while `away` is set (an outage)."""

    def __init__(self, streams: list[list[Any]] | None = None) -> None:
        super().__init__(streams=streams)
        self.away = True
        self.attempts: list[float] = []

    def stream(self, width: int = 540) -> Any:
        self.attempts.append(time.monotonic())
        if self.away:
            raise ControllerError("streamScreenshot failed: UNAVAILABLE: Connection refused", code="UNAVAILABLE")
        return super().stream(width)


def _until(condition: Callable[[], bool], timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.005)


def test_frames_are_live_only_while_a_stream_is_open() -> None:
    """Item 3: `live` stayed true through an outage, so the mirror never probed."""
    controller = _Failing(streams=[[rgb_frame()]])
    frames = FrameSource(FakeConnection(), controller)
    frames.start()
    try:
        _until(lambda: len(controller.attempts) >= 2)
        assert not frames.live and frames.failures >= 2
        controller.away = False
        _until(lambda: frames.received == 1)
        assert frames.live
        assert frames._thread is not None and frames._thread.name == "mobile-agent-frame-source"
    finally:
        frames.stop()
    assert not frames.live


def test_an_outage_is_retried_ever_more_slowly_and_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    """Item 3: 79 failed resubscriptions in a 20 s outage, each with its own warning."""
    controller = _Failing()
    frames = FrameSource(FakeConnection(), controller)
    with caplog.at_level(logging.INFO, logger="pytest_mobile_agent.session"):
        frames.start()
        try:
            time.sleep(1.5)
            failures = frames.failures
            controller.away = False
            _until(lambda: frames.live)
        finally:
            frames.stop()
    gaps = [b - a for a, b in zip(controller.attempts, controller.attempts[1:], strict=False)]
    assert 3 <= failures <= 9 and gaps[-1] > gaps[0]  # exponentially spaced, up to half a second
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "frame stream failed" in warnings[0].getMessage()
    assert any("is back after" in r.getMessage() for r in caplog.records if r.levelno == logging.INFO)
