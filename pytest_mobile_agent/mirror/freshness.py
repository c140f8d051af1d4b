"""When the mirror's replica must be read again: the freshness policy, on times it is given.

No I/O and no clock of its own, as `agent.protocol.HostSession`: the mirror (mirror/mirror.py) tells
it what happened and when (a read begun and answered, a frame, a probe, an input sent), asks it what
is due at a time (a read and why, the next poll, probe or frame read, whether a quiet was seen), and
does the reading, probing and waiting itself. The policy is the module docstring of mirror/mirror.py
(design D8, issues 16 and 19); the times here are the host's monotonic clock, never the emulator's.
"""

from __future__ import annotations

from collections.abc import Iterable

from pytest_mobile_agent.session.backends import FrameEvent, ReadReason

FRAME_QUIET = 0.1
"""Frames unchanged this long after a change: the screen went still, and is read afresh."""
FRAME_READ_INTERVAL = 0.25
"""While frames keep changing, a read at most this long after the last one: 4 a second at most."""
STILL_WAIT = 0.5
"""After a controller gesture, the longest the read waits for the frames to go still: the agent's
idle bound (idle_timeout_ms), which the read after the agent's own input may take."""
FRESH_READS = frozenset({ReadReason.FRAME, ReadReason.POLL, ReadReason.ACTION, ReadReason.ATTACH,
                         ReadReason.RESYNC})
"""Reads that see every window as it is now (the others may serve event-less windows from the
agent's cache): one that started after the latest frame change has read the burst."""
PRIORITY = {
    ReadReason.ANIMATION: -1,
    ReadReason.POLL: 0,
    ReadReason.FRAME: 1,
    ReadReason.EVENT: 2,
    ReadReason.MOVED: 3,
    ReadReason.ATTACH: 4,
    ReadReason.RESYNC: 5,
    ReadReason.ACTION: 6,
}
"""Of two reasons to read, the one a read takes: the higher."""

_NEVER = float("-inf")


class Freshness:
    """What the replica owes the device: the read it is due (its reason and windows), and the clocks
    that decide when the next poll, probe and frame read fall due and when a quiet was seen."""

    def __init__(self, poll_interval: float, probe_interval: float) -> None:
        """`poll_interval` is the read-again period while waiting; `probe_interval` the bounds probes'
        period without frames."""
        self.poll_interval = poll_interval
        self.probe_interval = probe_interval
        self.dirty: ReadReason | None = ReadReason.ATTACH
        """The reason of the read the replica is owed (None: it is current)."""
        self.dirty_windows: set[int] = set()
        self.last_change_at = _NEVER
        """When the replica last changed (for a FRAME read: when the frames changed)."""
        self.last_input_at = _NEVER
        self.controller_input_at: float | None = None
        """A controller gesture's end, not read since."""
        self.burst_since: float | None = None
        """The first frame change no fresh read has seen."""
        self.frame_change_at = _NEVER
        """The latest frame change, when it was drawn."""
        self._last_hash: int | None = None
        self._last_read_at = _NEVER
        self._poll_from = _NEVER  # the latest read but an ANIMATION one: the poll counts from it
        self._last_probe_at = _NEVER
        self._looked_at = _NEVER  # when the latest answered read or probe began
        self._probe_backoff = 0.0  # after unanswered probes, the wait before the next
        self._fresh_read_started = _NEVER  # when the latest read that saw every window began

    # --- what is owed -------------------------------------------------------------------------------

    def mark(self, reason: ReadReason, windows: Iterable[int] = ()) -> None:
        """A read is owed for `reason` (the stronger of two reasons wins), of `windows` as well."""
        if self.dirty is None or PRIORITY[reason] > PRIORITY[self.dirty]:
            self.dirty = reason
        self.dirty_windows.update(windows)

    def take_read(self) -> tuple[ReadReason, list[int]]:
        """The read owed, its reason and windows, now no longer owed (`mark` them again if it fails)."""
        reason = self.dirty or ReadReason.POLL
        windows = sorted(self.dirty_windows)
        self.dirty = None
        self.dirty_windows.clear()
        return reason, windows

    def read_answered(self, reason: ReadReason, started: float, now: float, changed: bool) -> None:
        """A read begun at `started` was answered at `now`; `changed`: the replica changed."""
        self._last_read_at = now
        self._last_probe_at = now
        self._looked_at = max(self._looked_at, started)
        if reason is not ReadReason.ANIMATION:
            self._poll_from = now  # reads from the agent's cache while frames change must not starve the poll
        if reason in FRESH_READS:
            self._fresh_read_started = max(self._fresh_read_started, started)
            if self.burst_since is not None and started >= self.frame_change_at:
                self.burst_since = None
        if changed:
            # what a read after the frames went still finds, the frames showed: it changed then
            self.last_change_at = max(self.last_change_at, self.frame_change_at) if reason is ReadReason.FRAME else now

    # --- input --------------------------------------------------------------------------------------

    def input_sent(self, now: float, awaits_frames: bool) -> None:
        """An input was sent at `now`; `awaits_frames`: a controller gesture with frames coming, read
        once they went still (`still_at`), else an ACTION read is owed."""
        self.last_input_at = now
        if awaits_frames:
            self.controller_input_at = now
        else:
            self.mark(ReadReason.ACTION)

    def still_at(self, since: float) -> float:
        """When the frames will have stayed the same FRAME_QUIET past `since` and their last change."""
        return max(self.frame_change_at, since) + FRAME_QUIET

    def gesture_read(self, frames_live: bool) -> None:
        """The wait after a controller gesture is over: with frames, a FRAME read, fresh for every
        window (it covers an event's or a probe's read); without them (they stopped), an ACTION read."""
        self.controller_input_at = None
        if not frames_live:
            self.mark(ReadReason.ACTION)
        elif self.dirty is None or PRIORITY[self.dirty] <= PRIORITY[ReadReason.MOVED]:
            self.dirty = ReadReason.FRAME

    # --- frames -------------------------------------------------------------------------------------

    def frame(self, event: FrameEvent) -> None:
        """A frame: news when it carries a change later than the last one seen (or, for a frame
        that does not say, a hash unlike the last one, timed by its arrival), unless a fresh read
        began after the change was drawn."""
        if event.changed_at:
            changed, at = event.changed_at > self.frame_change_at, event.changed_at
        else:
            changed, at = event.hash != self._last_hash, event.received_at
        self._last_hash = event.hash
        if not changed:
            return
        if event.changed_at and at < self._fresh_read_started:
            # drawn before a fresh read began, arrived after it: that read already saw it
            self.frame_change_at = max(self.frame_change_at, at)
            return
        self.frame_change_at = max(self.frame_change_at, at)
        self.last_change_at = max(self.last_change_at, at)
        if self.burst_since is None:
            self.burst_since = at

    def frame_read_due(self, now: float) -> ReadReason | None:
        """FRAME once the frames went still, ANIMATION while they keep changing and one is due."""
        if self.burst_since is None:
            return None
        if now >= self.frame_change_at + FRAME_QUIET:
            return ReadReason.FRAME
        if now >= self._next_animation_read():
            return ReadReason.ANIMATION
        return None

    def next_frame_read(self) -> float:
        if self.burst_since is None:
            return float("inf")
        return min(self.frame_change_at + FRAME_QUIET, self._next_animation_read())

    def _next_animation_read(self) -> float:
        assert self.burst_since is not None
        return max(self._last_read_at, self.burst_since) + FRAME_READ_INTERVAL

    def frames_still(self) -> bool:
        """Whether the frames show nothing moving since the latest read (and no gesture unread)."""
        return self.burst_since is None and self.controller_input_at is None

    def last_frame_change(self) -> float:
        """When the screen last changed, as the frames and the replica saw it."""
        return max(self.frame_change_at, self.last_change_at)

    # --- the poll and the probes --------------------------------------------------------------------

    def next_poll(self) -> float:
        return self._poll_from + self.poll_interval

    def next_probe(self) -> float:
        return self._last_probe_at + (self._probe_backoff or self.probe_interval)

    def probe_started(self, now: float) -> None:
        self._last_probe_at = now

    def looked(self, started: float) -> None:
        """A look begun at `started` saw the screen: a probe answered (or none needed: nothing to probe)."""
        self._looked_at = max(self._looked_at, started)

    def probe_answered(self, started: float) -> None:
        self._probe_backoff = 0.0
        self.looked(started)

    def probe_unanswered(self, now: float) -> float:
        """A probe went unanswered at `now`: the next waits twice as long as the last, up to the poll
        interval; that wait."""
        self._last_probe_at = now
        self._probe_backoff = min(self.poll_interval, 2 * max(self._probe_backoff, self.probe_interval))
        return self._probe_backoff

    # --- quiet --------------------------------------------------------------------------------------

    def quiet_from(self, quiet: float) -> float:
        """When the screen will have been quiet for `quiet` seconds, counting from its last change or input."""
        return max(self.last_change_at, self.last_input_at) + quiet

    def settled(self, now: float, quiet: float, probing: bool) -> bool:
        """Nothing owed, no burst, and `quiet` seconds with no change or input by `now`, seen (`seen_quiet_until`)."""
        if self.dirty is not None or self.burst_since is not None:
            return False
        return now >= self.quiet_from(quiet) and self.seen_quiet_until(self.quiet_from(quiet), probing)

    def seen_quiet_until(self, until: float, probing: bool) -> bool:
        """Probing, a quiet counts once a look that began after its end was answered: a probe that went
        unanswered (a starved host) saw nothing, and the screen may have moved meanwhile."""
        return not probing or self._looked_at >= until
