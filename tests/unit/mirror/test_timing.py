"""The mirror under a real device's timing (issue 19), on simulated time: continuous animation,
frames that lag behind a skewed clock, an agent that stops answering, probes nobody answers."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.errors import Timeout, WaitTimeout
from pytest_mobile_agent.mirror.mirror import FRAME_QUIET, READ_GRACE, SCROLL_QUIET
from pytest_mobile_agent.session import backends as b
from pytest_mobile_agent.session.backends import ReadReason
from tests.support.mirror_fakes import Rig, list_screen, login_screen

R = ReadReason
EVICTING = (R.POLL, R.FRAME)


def frame(hash: int, at: float, lag: float = 0.0) -> b.FrameEvent:
    """A frame that arrived at `at`; `lag` is how far behind the emulator's timestamp put it."""
    return b.FrameEvent(hash=hash, captured_at=at - lag, received_at=at, seq=0, width=540, height=1200)


def animate(rig: Rig, seconds: float, every: float = 0.04, lag: float = 0.0, start: float | None = None) -> float:
    """Frames with a new hash every `every` seconds from now (or `start`) for `seconds`: a spinner.
    Returns the arrival time of the last one."""
    t0 = rig.clock.now if start is None else start
    count = int(seconds / every)
    for k in range(count):
        rig.events.at(t0 + k * every, frame(1000 + k, t0 + k * every, lag))
    return t0 + (count - 1) * every


def test_continuous_animation_is_read_at_most_four_times_a_second_and_never_emptied_per_frame() -> None:
    """Item 1: a 3 s wait_for made a read per frame (180 on Login) while anything animated."""
    rig = Rig(login_screen(), live_frames=True, can_probe=False)
    rig.mirror.snapshot()
    animate(rig, 4.0)
    start = rig.clock.now
    with pytest.raises(WaitTimeout):
        rig.mirror.wait_for(text="never", timeout=3.0)
    reads = rig.reasons[1:]
    assert rig.clock.now - start == pytest.approx(3.0, abs=0.05)
    assert len(reads) <= 4 * 3  # at most 4 reads a second, the poll included
    assert sum(1 for r in reads if r in EVICTING) <= 3  # the agent's Compose cache emptied once a second at most
    assert R.ANIMATION in reads and R.FRAME not in reads  # never still, so never read as settled


def test_a_screen_that_goes_still_is_read_afresh_within_150_ms() -> None:
    rig = Rig(login_screen(), live_frames=True, can_probe=False)
    rig.mirror.snapshot()
    still_at = animate(rig, 1.3)  # still at 1.26 s: between two polls
    composed = [False]

    def read(n: int) -> None:  # the agent serves the event-less window from its cache unless evicted
        if rig.clock.now >= still_at and rig.tree.reads[-1][0] in EVICTING:
            composed[0] = True
        rig.tree.screen = login_screen(welcome=composed[0])

    rig.tree.on_read = read
    found = rig.mirror.wait_for(text="Welcome, ada", timeout=3.0)
    assert found.exists
    assert rig.reasons[-1] is R.FRAME  # read afresh: the agent evicts the event-less windows for it
    read_at = rig.tree.read_times[-1]
    assert FRAME_QUIET <= read_at - still_at <= 0.15  # once the frames stayed the same, within 150 ms


def test_a_burst_that_ends_is_read_once_for_it() -> None:
    rig = Rig(login_screen(), live_frames=True, can_probe=False)
    rig.mirror.snapshot()
    start = rig.clock.now
    animate(rig, 0.12, every=0.02)  # six frames of a short transition
    assert rig.mirror.settle(timeout=2.0)
    assert rig.reasons[1:] == [R.FRAME]
    assert rig.clock.now - start == pytest.approx(0.1 + 0.3, abs=0.02)  # at the end of quiet, not the next poll


@pytest.mark.parametrize(("lag", "quiet"), [(1.0, 0.3), (0.2, 0.15)])
def test_frames_that_lag_never_make_a_moving_screen_look_settled(lag: float, quiet: float) -> None:
    """Item 2: with the clock 2 s behind (the lag capped at 1 s), and with 0.2 s lag at the quiet
    scroll_until uses, settle returned True at once while the screen moved."""
    rig = Rig(login_screen(), live_frames=True, can_probe=False)
    rig.mirror.snapshot()
    animate(rig, 3.0, every=0.05, lag=lag)
    assert rig.mirror.settle(timeout=1.0, quiet=quiet) is False


def test_a_read_during_a_wait_takes_the_time_left_not_the_whole_read_deadline() -> None:
    """Item 5: wait_for(timeout=0.5) during a 2.5 s agent stop took 2.45 s."""
    rig = Rig(login_screen(), can_probe=False)
    rig.mirror.snapshot()
    rig.tree.answer_after = 2.5  # the agent is stopped for 2.5 s
    rig.events.put(b.ProtocolEvent(1, "window_changed", {"window": 12}, rig.clock.now))
    start = rig.clock.now
    with pytest.raises(WaitTimeout, match="not answered in time") as info:
        rig.mirror.wait_for(text="Welcome, ada", timeout=0.5)
    assert rig.clock.now - start <= 0.5 + READ_GRACE + 1e-9
    assert rig.tree.read_timeouts[-1] == pytest.approx(0.5 + READ_GRACE)
    assert "Login" in info.value.tree  # the replica as it last was
    rig.tree.answer_after = 0.0
    assert rig.mirror.snapshot().node_count == 5  # the read still owed is made on the next look
    assert rig.tree.read_timeouts[-1] is None  # outside a wait: the tree's own deadline


def test_a_read_that_times_out_with_time_left_is_the_agents_timeout() -> None:
    rig = Rig(login_screen(), can_probe=False)
    rig.mirror.snapshot()
    rig.tree.answer_after = 12.0  # longer than the tree's own 10 s deadline
    rig.events.put(b.ProtocolEvent(1, "window_changed", {"window": 12}, rig.clock.now))
    with pytest.raises(Timeout) as info:
        rig.mirror.wait_for(text="Welcome, ada", timeout=30.0)
    assert not isinstance(info.value, WaitTimeout)


def test_probes_nobody_answers_are_spaced_out() -> None:
    """Item 11: probes that timed out went on at 1.8 a second, none answered."""
    rig = Rig(login_screen())
    rig.mirror.snapshot()

    def late(node_id: int) -> b.Bounds:
        rig.clock.now += 0.5  # the probe's deadline passes
        raise Timeout("the agent request bounds", 0.5)

    rig.tree.bounds_now = late
    with pytest.raises(WaitTimeout):
        rig.mirror.wait_for(text="never", timeout=6.0)
    assert len(rig.tree.probes) <= 6  # was 11: one every 0.6 s
    assert all(t is not None and t <= 6.0 + READ_GRACE for t in rig.tree.probe_timeouts)


def test_events_the_stream_left_out_make_the_mirror_read_everything_again() -> None:
    rig = Rig(login_screen())
    rig.mirror.snapshot()
    rig.events.put(b.EventsLost(count=501, at=rig.clock.now))
    rig.mirror.snapshot()
    assert rig.reasons == [R.ATTACH, R.RESYNC]


def _controller_swipe(rig: Rig, motion_after_lift: float) -> tuple[float, float]:
    """A resting swipe through the controller (0.3 s of moves, 60 ms at rest), the list moving in
    the frames from its touch-down until `motion_after_lift` past the lift. Returns the lift's time
    and the last frame change's."""
    rig.input.path = "controller"
    t0 = rig.clock.now
    lifted = t0 + 0.36
    last = animate(rig, 0.36 + motion_after_lift, every=0.016, start=t0)

    def gesture(call: tuple[object, ...]) -> None:
        rig.clock.now = lifted  # the gesture's moves take their time
        rig.tree.screen = list_screen(3)

    rig.input.on_input = gesture
    rig.mirror.swipe(540, 1800, 540, 600, 0.3, resting=True)
    return lifted, last


@pytest.mark.parametrize("motion_after_lift", [0.0, 0.15])
def test_after_a_controller_swipe_the_screen_is_read_once_when_the_frames_went_still(motion_after_lift: float) -> None:
    """Issue 16 item 7: after a controller gesture the mirror read at once with the agent's idle
    wait (an ACTION read, on a real emulator after the tree's fixed 200 ms for foreign input), and
    again once the frames went still: two cold Compose reads, 1.9 s a swipe against 0.77 s through
    the agent. Now one fresh read, FRAME_QUIET after the frames' last change, and the settle ends
    its quiet after that change, not after the read that caught up with it."""
    rig = Rig(list_screen(0), live_frames=True, can_probe=False)
    rig.mirror.snapshot()
    lifted, last_change = _controller_swipe(rig, motion_after_lift)
    assert rig.mirror.settle(timeout=2.0, quiet=SCROLL_QUIET)
    assert rig.reasons[1:] == [R.FRAME]  # fresh, evicting, no idle wait
    assert rig.tree.read_times[-1] == pytest.approx(max(lifted, last_change) + FRAME_QUIET)
    assert rig.clock.now == pytest.approx(max(lifted, last_change) + SCROLL_QUIET, abs=0.02)
    assert rig.mirror.find(text="Item 3").exists and rig.reasons[1:] == [R.FRAME]


def test_right_after_a_controller_swipe_a_query_waits_for_the_frames_to_go_still() -> None:
    """The replica from before the swipe is never served as the screen after it."""
    rig = Rig(list_screen(0), live_frames=True, can_probe=False)
    rig.mirror.snapshot()
    lifted, last_change = _controller_swipe(rig, 0.1)
    assert rig.mirror.find(text="Item 3").exists
    assert rig.reasons[1:] == [R.FRAME] and rig.tree.read_times[-1] == pytest.approx(last_change + FRAME_QUIET)


def test_frames_that_never_go_still_after_a_controller_swipe_wait_no_longer_than_the_idle_bound() -> None:
    rig = Rig(list_screen(0), live_frames=True, can_probe=False)
    rig.mirror.snapshot()
    lifted, _ = _controller_swipe(rig, 5.0)  # a spinner beside the list
    assert rig.mirror.find(text="Item 3").exists
    assert rig.reasons[1:] == [R.FRAME]
    assert rig.tree.read_times[-1] - lifted <= 0.5 + 0.02  # the agent's idle bound (idle_timeout_ms)


def test_without_live_frames_a_controller_swipe_is_read_with_the_idle_wait() -> None:
    rig = Rig(list_screen(0), live_frames=False, can_probe=False)
    rig.mirror.snapshot()
    _controller_swipe(rig, 0.0)
    assert rig.mirror.find(text="Item 3").exists
    assert rig.reasons[1:] == [R.ACTION]
