"""Several fingers, to the agent or to the emulator's controller.

Through the agent a gesture is one `gesture` request (docs/protocol.md): every finger's path of
(x, y, t_ms), which the agent injects as MotionEvents with their own event times, so the gesture's
timing on the device does not depend on this host. It needs the agent's `multi_touch` capability.

Through the controller the same paths become input frames of the emulator's touchscreen, one
TouchEvent per frame, each contact an identifier (lowest free first, as fingers take pointer ids):
at each time, first a frame that moves the fingers that moved, then a frame that lifts the fingers
that end (pressure 0) and presses those that start. That is the order InputReader gives the app:
ACTION_MOVE, then the POINTER_UPs, then the POINTER_DOWNs (TouchInputMapper::dispatchTouches), the
order the agent injects. The frames go in streamInputEvent calls, each frame written its gap after
the one before it (`emulator.Controller.paced_frames`): the emulator hands each streamed event to
the guest as it reads it, so a drag's hold is at least the path's own, with no answer of the
emulator waited for between two frames (waiting for one after every frame made a starved host's
double tap miss GestureDetector's 300 ms in 1 of 8 runs under a 25% CPU quota; pacing every frame
from the first instead brought a late lift too close to the next press, under its 40 ms minimum, in
4 of 6). A press that follows a lift after a gap (a double tap's second press) starts a call of its
own, written once the call before has been answered (the emulator has read the lift) and at least
half the gap after that: a host whose gRPC threads were starved could otherwise have the emulator
read the lift and the press together, 0.2 ms apart, seen once in a suite run on 2 busy cores; the
half keeps most of the gap's room under GestureDetector's 300 ms for a late answer. The timing on
the device is still this host's: a host starved for half a second stretches a gap by as much
(docs/performance.md); the agent's path has no such limit. A failure may have left fingers down:
each finger the gesture presses is lifted (best effort).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_mobile_agent.errors import ControllerError, MobileAgentError, NotSupported

log = logging.getLogger("pytest_mobile_agent.session")

MULTI_TOUCH_CAPABILITY = "multi_touch"

Point = tuple[float, float, float]
Contact = tuple[int, int, bool, int]
"""x, y, pressed, identifier: one contact of a TouchEvent."""


class FrameSender(Protocol):
    def paced_frames(self, frames: Sequence[tuple[float, Sequence[Contact]]]) -> None: ...


@dataclass(frozen=True)
class ContactFrame:
    at: float
    """Seconds from the gesture's start."""
    contacts: tuple[Contact, ...]

    starts: bool = False
    """A finger goes down in this frame."""


def wire_paths(paths: Sequence[Sequence[Point]]) -> list[list[list[int]]]:
    """The `gesture` request's paths: whole pixels and milliseconds."""
    return [[[round(x), round(y), round(t * 1000)] for x, y, t in path] for path in paths]


def contact_frames(paths: Sequence[Sequence[Point]]) -> list[ContactFrame]:
    """The touchscreen frames of the paths (module doc), in whole pixels."""
    pixel_paths = [[(round(x), round(y), round(t * 1000)) for x, y, t in path] for path in paths]
    times = sorted({t for path in pixel_paths for _, _, t in path})
    ids: dict[int, int] = {}  # path index -> identifier
    at: dict[int, tuple[int, int]] = {}
    frames: list[ContactFrame] = []
    for t in times:
        moves = []
        for i in sorted(ids, key=ids.__getitem__):
            point = next(((x, y) for x, y, pt in reversed(pixel_paths[i][1:]) if pt == t), None)
            if point is not None and point != at[i]:
                at[i] = point
                moves.append((point[0], point[1], True, ids[i]))
        if moves:
            frames.append(ContactFrame(t / 1000, tuple(moves)))
        changes = []
        for i in sorted((i for i in ids if pixel_paths[i][-1][2] == t), key=ids.__getitem__):
            x, y = at.pop(i)
            changes.append((x, y, False, ids.pop(i)))
        starting = False
        for i, path in enumerate(pixel_paths):
            if path[0][2] == t and i not in ids and path[-1][2] > t:
                ids[i] = next(n for n in range(len(paths) + 1) if n not in ids.values())
                at[i] = (path[0][0], path[0][1])
                changes.append((path[0][0], path[0][1], True, ids[i]))
                starting = True
        if changes:
            frames.append(ContactFrame(t / 1000, tuple(changes), starts=starting))
    return frames


def agent_gesture(request: Callable[[str, Mapping[str, Any], float], dict[str, Any]], capabilities: Sequence[str],
                  paths: Sequence[Sequence[Point]], timeout: float) -> dict[str, Any]:
    """One `gesture` request; Unsupported when the agent does not speak it."""
    if MULTI_TOUCH_CAPABILITY not in capabilities:
        raise NotSupported("the agent on the device does not inject gestures of several fingers (no `multi_touch` "
                          "capability): let the driver deploy its own agent again (it replaces an older one), or "
                          "attach the emulator's controller (--emulator-controller auto)")
    return request("gesture", {"paths": wire_paths(paths)}, timeout)


def calls_of(frames: Sequence[ContactFrame]) -> list[list[ContactFrame]]:
    """The frames cut before each press that follows a lift after a gap: one streamInputEvent call
    each (module doc)."""
    calls: list[list[ContactFrame]] = []
    for frame in frames:
        previous = calls[-1][-1] if calls else None
        if previous is None or (frame.starts and frame.at > previous.at and _lifts(previous)):
            calls.append([frame])
        else:
            calls[-1].append(frame)
    return calls


def _lifts(frame: ContactFrame) -> bool:
    return any(not pressed for _, _, pressed, _ in frame.contacts)


class ControllerGesture:
    """The frames of one gesture in paced streamInputEvent calls (module doc)."""

    def __init__(self, controller: FrameSender, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.controller = controller
        self._clock = clock
        self._sleep = sleep

    def send(self, frames: Sequence[ContactFrame], not_landed: Callable[[BaseException], BaseException | None]) -> int:
        """Sends the frames; returns how many went out. A call the emulator refused before reading
        any of it is what `not_landed` makes of its failure (the agent may take the gesture); any
        other failure may have left fingers down: every finger the frames press is lifted, and the
        failure raised."""
        try:
            self._send_calls(calls_of(frames))
        except Exception as exc:
            handed_on = not_landed(exc)
            if handed_on is not None:
                raise handed_on from exc
            self._lift_all(frames)
            if isinstance(exc, MobileAgentError):
                raise
            raise ControllerError(f"emulator controller touch failed during a gesture: {exc}") from exc
        return len(frames)

    def _send_calls(self, calls: Sequence[Sequence[ContactFrame]]) -> None:
        started = answered = 0.0
        for n, call in enumerate(calls):
            if n:
                gap = call[0].at - calls[n - 1][-1].at
                self._sleep_until(max(started + call[0].at - calls[n - 1][0].at, answered + gap / 2))
            started = self._clock()
            self.controller.paced_frames([(frame.at, frame.contacts) for frame in call])
            answered = self._clock()

    def _sleep_until(self, moment: float) -> None:
        left = moment - self._clock()
        if left > 0:
            self._sleep(left)

    def _lift_all(self, frames: Sequence[ContactFrame]) -> None:
        """Lift every finger the frames press, where its last frame put it (best effort)."""
        last: dict[int, tuple[int, int]] = {}
        for frame in frames:
            for x, y, _, ident in frame.contacts:
                last[ident] = (x, y)
        try:
            self.controller.paced_frames([(0.0, [(x, y, False, ident) for ident, (x, y) in last.items()])])
        except Exception as exc:
            log.warning("lifting the fingers after a failed gesture failed too: %s", exc)
