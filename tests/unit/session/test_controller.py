"""session::controller::tests: controller frames on the event stream, kept, turned, scaled, encoded."""

from __future__ import annotations

import io
import time

import pytest
from PIL import Image

from pytest_mobile_agent.errors import MobileAgentError
from pytest_mobile_agent.session import backends as b
from pytest_mobile_agent.session.events import EventStream
from pytest_mobile_agent.session.frames import (
    FrameSource,
    capture_time,
    scale_area_average,
    upright,
)

from .fakes import FakeConnection, FakeController, rgb_frame


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


def test_the_capture_time_is_the_arrival_minus_the_timestamps_lag_at_most_a_second() -> None:
    frames = source(clock=50.0, wall=1_000.0)
    lagging = frames.accept(rgb_frame(timestamp_us=999_750_000))  # 250 ms old when it arrived
    assert lagging.received_at == 50.0 and lagging.captured_at == pytest.approx(49.75)
    stale = frames.accept(rgb_frame(timestamp_us=990_000_000))  # 10 s: clock skew, capped
    assert stale.captured_at == pytest.approx(49.0)
    ahead = frames.accept(rgb_frame(timestamp_us=1_000_500_000))  # a clock ahead of ours: no lag
    assert ahead.captured_at == 50.0
    assert capture_time(10.0, 0, 1_000.0) == 10.0  # no timestamp: the arrival


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
    assert [type(e) for e in got] == [b.Frame, b.Frame]
    assert got[0].hash != got[1].hash  # type: ignore[union-attr]
    assert controller.subscriptions == [540, 540] and frames.failures == 1
    assert str(frames.last_failure) == "stream reset" and frames._thread is None


def test_without_a_controller_no_frames_arrive_and_no_thread_runs() -> None:
    frames = FrameSource(FakeConnection(), None)
    frames.start()
    assert not frames.live and frames._thread is None and frames.frames() == []
