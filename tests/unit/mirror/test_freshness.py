"""The mirror's freshness policy (mirror/freshness.py) on times it is given: what read is owed and
when the poll, the probes and the frame reads fall due (no I/O, no clock: as HostSession is tested)."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.mirror.freshness import FRAME_QUIET, FRAME_READ_INTERVAL, Freshness
from pytest_mobile_agent.session.backends import FrameEvent, ReadReason

POLL, PROBE = 1.0, 0.1


def fresh() -> Freshness:
    """A policy whose first read (ATTACH, at 0.0) was answered, unchanged, at 0.1."""
    policy = Freshness(POLL, PROBE)
    reason, _ = policy.take_read()
    policy.read_answered(reason, 0.0, 0.1, changed=False)
    return policy


def frame(hash: int, received_at: float, changed_at: float = 0.0) -> FrameEvent:
    return FrameEvent(hash=hash, captured_at=received_at, received_at=received_at, seq=0, width=540, height=1200,
                      changed_at=changed_at)


def test_the_first_read_is_owed_for_attach_and_taking_it_leaves_nothing_owed() -> None:
    policy = Freshness(POLL, PROBE)
    assert policy.dirty is ReadReason.ATTACH
    assert policy.take_read() == (ReadReason.ATTACH, [])
    assert policy.dirty is None
    assert policy.take_read() == (ReadReason.POLL, [])  # a read asked for with nothing owed is a poll


def test_the_stronger_reason_wins_and_the_windows_add_up_sorted() -> None:
    policy = fresh()
    policy.mark(ReadReason.MOVED, [7])
    policy.mark(ReadReason.EVENT, [3])  # weaker than MOVED: the reason stays, the window is added
    policy.mark(ReadReason.ACTION)
    assert policy.take_read() == (ReadReason.ACTION, [3, 7])


def test_the_poll_counts_from_the_last_read_but_an_animation_read() -> None:
    policy = fresh()
    assert policy.next_poll() == pytest.approx(0.1 + POLL)
    policy.read_answered(ReadReason.EVENT, 0.5, 0.6, changed=False)
    assert policy.next_poll() == pytest.approx(0.6 + POLL)
    policy.read_answered(ReadReason.ANIMATION, 0.9, 1.0, changed=False)  # from the agent's cache
    assert policy.next_poll() == pytest.approx(0.6 + POLL)


def test_a_frame_change_is_read_once_the_frames_stay_the_same_and_meanwhile_every_read_interval() -> None:
    policy = fresh()
    policy.frame(frame(1, 1.0, changed_at=1.0))
    assert policy.burst_since == 1.0 and policy.last_change_at == 1.0
    assert policy.next_frame_read() == pytest.approx(1.0 + FRAME_QUIET)
    assert policy.frame_read_due(1.0 + FRAME_QUIET / 2) is None
    assert policy.frame_read_due(1.0 + FRAME_QUIET) is ReadReason.FRAME
    for at in (1.05, 1.1, 1.15, 1.2, 1.25):  # the frames keep changing: a spinner
        policy.frame(frame(1, at, changed_at=at))
    assert policy.burst_since == 1.0  # the burst began at the first change no fresh read saw
    assert policy.frame_read_due(1.0 + FRAME_READ_INTERVAL) is ReadReason.ANIMATION
    policy.read_answered(ReadReason.ANIMATION, 1.25, 1.26, changed=True)
    assert policy.burst_since == 1.0, "a read from the agent's cache does not end the burst"
    assert policy.frame_read_due(1.3) is None
    assert policy.next_frame_read() == pytest.approx(min(1.25 + FRAME_QUIET, 1.26 + FRAME_READ_INTERVAL))


def test_a_fresh_read_begun_after_the_last_change_ends_the_burst_and_dates_a_change_at_the_frames() -> None:
    policy = fresh()
    policy.frame(frame(1, 1.0, changed_at=1.0))
    policy.read_answered(ReadReason.FRAME, 1.1, 1.2, changed=True)
    assert policy.burst_since is None and policy.frame_read_due(5.0) is None
    assert policy.last_change_at == 1.0, "a FRAME read's change happened when the frames changed"
    policy.read_answered(ReadReason.POLL, 2.0, 2.1, changed=True)
    assert policy.last_change_at == 2.1, "any other read's change is dated when it was answered"


def test_a_frame_drawn_before_a_fresh_read_began_is_no_news_when_it_arrives_after() -> None:
    policy = fresh()
    policy.read_answered(ReadReason.POLL, 2.0, 2.1, changed=False)
    policy.frame(frame(5, 2.2, changed_at=1.9))
    assert policy.burst_since is None
    assert policy.frame_change_at == 1.9 and policy.last_change_at == float("-inf")


def test_a_frame_that_does_not_date_its_change_is_news_when_its_hash_differs_timed_by_its_arrival() -> None:
    policy = fresh()
    policy.frame(frame(5, 1.0))
    assert policy.burst_since == 1.0
    policy.read_answered(ReadReason.FRAME, 1.2, 1.3, changed=False)
    policy.frame(frame(5, 1.4))  # the same picture again
    assert policy.burst_since is None and policy.frame_change_at == 1.0


def test_unanswered_probes_back_off_twice_as_far_each_time_up_to_the_poll_and_an_answer_resets_them() -> None:
    policy = fresh()
    assert policy.next_probe() == pytest.approx(0.1 + PROBE)
    waits = [policy.probe_unanswered(at) for at in (1.0, 2.0, 3.0, 4.0, 5.0)]
    assert waits == pytest.approx([0.2, 0.4, 0.8, 1.0, 1.0])
    assert policy.next_probe() == pytest.approx(5.0 + POLL)
    policy.probe_started(6.0)
    policy.probe_answered(6.0)
    assert policy.next_probe() == pytest.approx(6.0 + PROBE)


def test_a_settle_counts_its_quiet_from_the_last_change_or_input_and_probing_needs_a_look_after_it() -> None:
    policy = fresh()
    policy.read_answered(ReadReason.EVENT, 1.0, 1.0, changed=True)
    policy.input_sent(1.2, awaits_frames=False)
    policy.take_read()  # the ACTION read the input owes
    assert policy.quiet_from(0.3) == pytest.approx(1.5)
    assert not policy.settled(1.4, 0.3, probing=False)
    assert policy.settled(1.5, 0.3, probing=False)
    assert not policy.settled(1.6, 0.3, probing=True), "no look began after the quiet's end"
    policy.probe_started(1.7)
    policy.probe_unanswered(2.0)
    assert not policy.settled(2.0, 0.3, probing=True), "an unanswered probe saw nothing"
    policy.probe_answered(1.7)
    assert policy.settled(2.0, 0.3, probing=True)
    policy.mark(ReadReason.EVENT)
    assert not policy.settled(2.0, 0.3, probing=False), "a read is owed"


def test_an_input_owes_an_action_read_but_a_controller_gesture_with_frames_waits_for_them_to_go_still() -> None:
    policy = fresh()
    policy.input_sent(1.0, awaits_frames=False)
    assert policy.dirty is ReadReason.ACTION and policy.controller_input_at is None
    policy.take_read()
    policy.input_sent(2.0, awaits_frames=True)
    assert policy.dirty is None and policy.controller_input_at == 2.0 and not policy.frames_still()
    assert policy.still_at(2.0) == pytest.approx(2.0 + FRAME_QUIET)
    policy.frame(frame(3, 2.3, changed_at=2.3))
    assert policy.still_at(2.0) == pytest.approx(2.3 + FRAME_QUIET)
    policy.mark(ReadReason.MOVED, [4])
    policy.gesture_read(frames_live=True)
    assert policy.take_read() == (ReadReason.FRAME, [4]), "fresh for every window: it covers a probe's read"
    policy.input_sent(3.0, awaits_frames=True)
    policy.mark(ReadReason.RESYNC)
    policy.gesture_read(frames_live=True)
    assert policy.dirty is ReadReason.RESYNC, "a stronger reason than MOVED stays"
    policy.take_read()
    policy.input_sent(4.0, awaits_frames=True)
    policy.gesture_read(frames_live=False)  # the frames stopped meanwhile
    assert policy.dirty is ReadReason.ACTION and policy.controller_input_at is None
