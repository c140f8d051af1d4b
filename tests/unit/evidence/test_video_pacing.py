"""The controller video's pacing (evidence/video.FramePacer): 30 pictures a second at most, always the
newest, and a frame that waits for its slot is taken when the slot comes or at the end."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.evidence.video import MAX_FRAME_RATE, FramePacer

SLOT = 1 / MAX_FRAME_RATE


def test_frames_twice_as_fast_as_the_slots_are_taken_every_other_one() -> None:
    """The emulator sends up to 60 frames a second and the video takes 30 (times in binary fractions
    here, so that no rounding moves a frame across its slot)."""
    pacer = FramePacer(0.5)
    taken = [n for n in range(60) if pacer.offer(n, n * 0.25) is not None]
    assert taken == list(range(0, 60, 2))
    assert pacer.merged == 29, "each odd frame waited and was replaced by the next, taken at the slot"
    assert pacer.left() == 59, "the last frame waits for its slot and is the video's end"


def test_frames_slower_than_the_slot_are_all_taken() -> None:
    pacer = FramePacer(SLOT)
    assert [pacer.offer(n, n * 0.1) for n in range(5)] == [0, 1, 2, 3, 4]
    assert pacer.merged == 0 and pacer.left() is None and pacer.wait_for(1.0) is None


def test_a_burst_within_one_slot_keeps_its_newest_frame_and_takes_it_when_the_slot_comes() -> None:
    pacer = FramePacer(SLOT)
    assert pacer.offer("first", 10.0) == "first"
    assert [pacer.offer(f"burst {n}", 10.001 + n / 1000) for n in range(5)] == [None] * 5
    assert pacer.merged == 4
    assert pacer.wait_for(10.01) == pytest.approx(10.0 + SLOT - 10.01), "the encoder waits only until the slot"
    assert pacer.take(10.02) is None, "the slot has not come"
    assert pacer.take(10.0 + SLOT) == "burst 4"
    assert pacer.left() is None and pacer.wait_for(10.1) is None
