"""Several fingers, to the agent or to the emulator's controller.

Through the agent a gesture is one `gesture` request (docs/protocol.md): every finger's path of
(x, y, t_ms), which the agent injects as MotionEvents with their own event times, so the gesture's
timing on the device does not depend on this host. It needs the agent's `multi_touch` capability.

Through the controller the same paths become input frames of the emulator's touchscreen, one
TouchEvent per frame, each contact an identifier (lowest free first, as fingers take pointer ids):
at each time, first a frame that moves the fingers that moved, then a frame that lifts the fingers
that end (pressure 0) and presses those that start. That is the order InputReader gives the app:
ACTION_MOVE, then the POINTER_UPs, then the POINTER_DOWNs (TouchInputMapper::dispatchTouches), the
order the agent injects. A frame that presses a finger goes out in one streamInputEvent call with
the frame after it when that one follows within 100 ms (a tap's lift, a pinch's first move), so no
stall of this host turns a press into a long press; the other frames go out one call each, at their
own time counted from the first call's answer (the emulator has read its frames by then), so a
first call that was slow to go out does not shorten a drag's hold on the device, and a double tap's
second press follows the first lift by its gap plus the host's latency, not more. Every finger still down
when something fails is lifted (best effort).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_mobile_agent.errors import ControllerError, MobileAgentError, NotSupported

log = logging.getLogger("pytest_mobile_agent.session")

MULTI_TOUCH_CAPABILITY = "multi_touch"
TOGETHER_S = 0.1
"""A frame that presses a finger goes out with the next one when that comes this soon after it
(ViewConfiguration's TAP_TIMEOUT, 100 ms): a tap's lift, a pinch's first move; a drag's first move
after its hold goes out at its own time."""

Point = tuple[float, float, float]
Contact = tuple[int, int, bool, int]
"""x, y, pressed, identifier: one contact of a TouchEvent."""


class FrameSender(Protocol):
    def touch_frames(self, frames: Sequence[Sequence[Contact]]) -> None: ...


@dataclass(frozen=True)
class Frame:
    at: float
    """Seconds from the gesture's start."""
    contacts: tuple[Contact, ...]

    starts: bool = False
    """A finger goes down in this frame."""


def wire_paths(paths: Sequence[Sequence[Point]]) -> list[list[list[int]]]:
    """The `gesture` request's paths: whole pixels and milliseconds."""
    return [[[round(x), round(y), round(t * 1000)] for x, y, t in path] for path in paths]


def contact_frames(paths: Sequence[Sequence[Point]]) -> list[Frame]:
    """The touchscreen frames of the paths (module doc), in whole pixels."""
    pixel_paths = [[(round(x), round(y), round(t * 1000)) for x, y, t in path] for path in paths]
    times = sorted({t for path in pixel_paths for _, _, t in path})
    ids: dict[int, int] = {}  # path index -> identifier
    at: dict[int, tuple[int, int]] = {}
    frames: list[Frame] = []
    for t in times:
        moves = []
        for i in sorted(ids, key=ids.__getitem__):
            point = next(((x, y) for x, y, pt in reversed(pixel_paths[i][1:]) if pt == t), None)
            if point is not None and point != at[i]:
                at[i] = point
                moves.append((point[0], point[1], True, ids[i]))
        if moves:
            frames.append(Frame(t / 1000, tuple(moves)))
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
            frames.append(Frame(t / 1000, tuple(changes), starts=starting))
    return frames


def agent_gesture(request: Callable[[str, Mapping[str, Any], float], dict[str, Any]], capabilities: Sequence[str],
                  paths: Sequence[Sequence[Point]], timeout: float) -> dict[str, Any]:
    """One `gesture` request; Unsupported when the agent does not speak it."""
    if MULTI_TOUCH_CAPABILITY not in capabilities:
        raise NotSupported("the agent on the device does not inject gestures of several fingers (no `multi_touch` "
                          "capability): let the driver deploy its own agent again (it replaces an older one), or "
                          "attach the emulator's controller (--emulator-controller auto)")
    return request("gesture", {"paths": wire_paths(paths)}, timeout)


class ControllerGesture:
    """The frames of one gesture sent on their schedule (module doc)."""

    def __init__(self, controller: FrameSender, clock: Callable[[], float], sleep: Callable[[float], None]) -> None:
        self.controller, self.clock, self.sleep = controller, clock, sleep
        self.down: dict[int, tuple[int, int]] = {}

    def send(self, frames: Sequence[Frame], not_landed: Callable[[BaseException], BaseException | None]) -> int:
        """Sends the frames; returns how many went out. A first call the emulator refused before
        reading any of it is what `not_landed` makes of its failure (the agent may take the gesture);
        any other failure may have left fingers down: they are lifted, and the failure raised."""
        start: float | None = None  # when the first call was answered (its frames read), less their time
        i = 0
        with self._lifting():
            while i < len(frames):
                together = frames[i].starts and i + 1 < len(frames) and frames[i + 1].at - frames[i].at <= TOGETHER_S
                burst = list(frames[i:i + 2]) if together else [frames[i]]
                left = 0.0 if start is None else start + burst[0].at - self.clock()
                if left > 0:
                    self.sleep(left)
                try:
                    self.controller.touch_frames([f.contacts for f in burst])
                except Exception as exc:
                    handed_on = not_landed(exc) if i == 0 else None
                    if handed_on is not None:
                        raise handed_on from exc
                    self._note(burst)  # they may have landed: lifted on the way out
                    if isinstance(exc, MobileAgentError):
                        raise
                    raise ControllerError(f"emulator controller touch failed during a gesture: {exc}") from exc
                self._note(burst)
                if start is None:
                    start = self.clock() - burst[-1].at
                i += len(burst)
        return len(frames)

    def _note(self, burst: Sequence[Frame]) -> None:
        for frame in burst:
            for x, y, pressed, ident in frame.contacts:
                if pressed:
                    self.down[ident] = (x, y)
                else:
                    self.down.pop(ident, None)

    @contextlib.contextmanager
    def _lifting(self) -> Iterator[None]:
        try:
            yield
        except BaseException:
            if self.down:
                lift = [(x, y, False, ident) for ident, (x, y) in self.down.items()]
                try:
                    self.controller.touch_frames([lift])
                except Exception as exc:
                    log.warning("lifting the fingers after a failed gesture failed too: %s", exc)
            raise
