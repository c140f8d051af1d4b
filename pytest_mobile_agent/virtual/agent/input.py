"""Taps, long presses, swipes and keys (the Java agent's `input/Gestures`).

A gesture is a list of steps, each a touch event at a time from the touch-down, as the Java agent's
Gestures.tap and Gestures.swipe build them. A swipe goes down at its start, moves every 8 ms along
its line (at least once), and with a rest stays still that long at the end, then moves one pixel on
in the swipe's direction and lifts there. Every event carries its event time (t0 + its time), as the
Java agent's injected MotionEvents do, so the UI model sees the gesture's own timing however late
this host's threads run. Input runs one action at a time: two gestures would interleave their touches.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pytest_mobile_agent.virtual.agent import multitouch
from pytest_mobile_agent.virtual.agent.idle import IdleTracker
from pytest_mobile_agent.virtual.agent.params import RequestError, int_param
from pytest_mobile_agent.virtual.agent.platform import Gate
from pytest_mobile_agent.virtual.agent.tree import Tree
from pytest_mobile_agent.virtual.ui import UiModel, injection
from pytest_mobile_agent.virtual.ui.injection import DOWN, MOVE, UP, Call

SWIPE_STEP_MS = 8
GESTURE_MAX_MS = 60_000  # core/Agent.java: hold_ms, duration_ms and rest_ms within 0..60,000
KEY_CODE_MAX = 10_000  # core/Agent.java: a key code within 0..10,000


class Injector:
    """What every action shares: one action at a time, none while the process is stopped, the
    injecting call (and what it costs, `ui/injection.py`), and what the agent does after its own
    input."""

    #: how events go out: the input service's asynchronous injection, as the Java agent's
    #: wrappers/InputInjection and scrcpy do, never waiting for window animations or for the app
    call = Call.INPUT_MANAGER_ASYNC

    def __init__(self, ui: UiModel, gate: Gate, idle: IdleTracker, tree: Tree) -> None:
        self.ui = ui
        self.gate = gate
        self.idle = idle
        self.tree = tree
        self._lock = threading.Lock()

    def touch(self, x: int, y: int, action: str, t_ms: float | None) -> None:
        """One touch event, paying what the injecting call blocks for around it."""
        self._block(injection.before_ms(self.call, action, self.ui.now_ms(), self.ui.animations_end_ms()))
        self.ui.touch(x, y, action != UP, t_ms)
        self._block(injection.after_ms(self.call, action, self.ui.now_ms(), self.ui.animations_end_ms()))

    def play(self, steps: list[Step]) -> None:
        """Injects the steps on time from now, each with its event time, and returns at the last
        one's. The asynchronous call hands the touch-down and the step after it to the input
        dispatcher together, as the Java agent does on the device's own CPU (Gestures.perform: no
        wait between a tap's DOWN and UP, 8 ms to a swipe's first move): they are queued at once, so
        a tap is a tap and a swipe moves before the long-press timeout however slowly this host runs.
        The later steps of a swipe go out in real time, so a stopped process stops the gesture
        where it is. A call that blocks (UiAutomation's) injects each step by itself."""
        start, t0 = time.monotonic(), self.ui.now_ms()
        ahead = steps[:2] if self.call is Call.INPUT_MANAGER_ASYNC else steps[:0]
        if ahead:
            self.ui.touches([(s.x, s.y, s.action != UP, t0 + s.at_ms) for s in ahead])
        for step in steps[len(ahead):]:
            self.gate.sleep_until(start + step.at_ms / 1000.0)
            self.touch(step.x, step.y, step.action, t0 + step.at_ms)
        self.gate.sleep_until(start + steps[-1].at_ms / 1000.0)

    def play_motions(self, paths: list[multitouch.Path]) -> int:
        """Injects a gesture's MotionEvents (virtual/agent/multitouch.py) on time from now, each with
        its event time, as `play` does: the first two queued at once, the others in real time.
        Returns how many events went out."""
        start, t0 = time.monotonic(), self.ui.now_ms()
        events = multitouch.motion_events(paths, t0)
        ahead = events[:2] if self.call is Call.INPUT_MANAGER_ASYNC else events[:1]
        self.ui.motions(ahead)
        for event in events[len(ahead):]:
            self.gate.sleep_until(start + (event.event_ms - t0) / 1000.0)
            self.ui.motions([event])
        self.gate.sleep_until(start + (events[-1].event_ms - t0) / 1000.0)
        return len(events)

    def key(self, code: int, meta: int) -> bool:
        """One key press (DOWN and UP), paying what the injecting call blocks for around it. The
        asynchronous call returns once the press is queued: the app handles it afterwards, as
        InputDispatcher delivers to the focused window (the Java fake platform's AppThread); a
        synchronous UiAutomation call waits for the app to finish it."""
        waits = self.call is Call.UI_AUTOMATION_WAIT_FOR_ANIMATIONS_SYNC
        self._block(injection.before_ms(self.call, DOWN, self.ui.now_ms(), self.ui.animations_end_ms()))
        accepted = self.ui.key(code, meta) if waits else self.ui.inject_key(code, meta)
        self._block(injection.after_ms(self.call, DOWN, self.ui.now_ms(), self.ui.animations_end_ms())
                    + injection.after_ms(self.call, UP, self.ui.now_ms(), self.ui.animations_end_ms()))
        return accepted

    def key_and_wait(self, code: int, meta: int, wait_ms: float) -> bool | None:
        """One key press injected waiting for the app to finish it (INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH,
        the Java agent's Platform.injectKeyAndWait): handled, with the keys queued before it, when
        this returns True or False; None when the busy app had not finished it within `wait_ms`
        (the bound the Java agent's helper thread puts on InputManagerService's 30 s wait): the key
        stays queued for the app."""
        finished = self.ui.key_finished(code, meta)
        if finished is None:
            self._block(wait_ms)
        return finished

    def _block(self, ms: float) -> None:
        if ms > 0:
            self.gate.sleep_until(time.monotonic() + ms / 1000.0)

    @contextlib.contextmanager
    def injecting(self) -> Iterator[None]:
        with self._lock:
            self.gate.pause()
            yield

    def own_input(self) -> None:
        """After injecting: the idle wait starts again, and event-less windows are read anew."""
        with self.ui.lock:
            self.idle.note_own_input()
            self.tree.drop_event_less()


class Gestures:
    def __init__(self, injector: Injector) -> None:
        self.injector = injector
        self.ui = injector.ui
        self.gate = injector.gate

    def tap(self, params: dict[str, Any], deadline: float) -> dict[str, Any]:
        x, y = int_param(params, "x"), int_param(params, "y")
        hold = int_param(params, "hold_ms", maximum=GESTURE_MAX_MS, default=0)
        if time.monotonic() + hold / 1000.0 > deadline:
            raise RequestError("deadline_exceeded", f"a {hold} ms press does not fit the deadline", retryable=True)
        with self.injector.injecting():
            self.injector.play(tap_steps(x, y, hold))
            self.injector.own_input()
        return {"accepted": True}

    def swipe(self, params: dict[str, Any], deadline: float) -> dict[str, Any]:
        x1, y1 = int_param(params, "x1"), int_param(params, "y1")
        x2, y2 = int_param(params, "x2"), int_param(params, "y2")
        duration = int_param(params, "duration_ms", maximum=GESTURE_MAX_MS, default=300)
        rest = int_param(params, "rest_ms", maximum=GESTURE_MAX_MS, default=0)
        if time.monotonic() + (duration + rest) / 1000.0 > deadline:
            raise RequestError("deadline_exceeded", f"a {duration + rest} ms swipe does not fit the deadline",
                               retryable=True)
        steps = swipe_steps(x1, y1, x2, y2, duration, rest)
        with self.injector.injecting():
            self.injector.play(steps)
            self.injector.own_input()
        return {"accepted": True, "moves": sum(1 for s in steps if s.action == MOVE)}

    def gesture(self, params: dict[str, Any], deadline: float) -> dict[str, Any]:
        """Several finger paths as one stream of MotionEvents (docs/protocol.md, "gesture")."""
        paths = multitouch.paths_param(params)
        multitouch.fits_deadline(paths, deadline)
        with self.injector.injecting():
            events = self.injector.play_motions(paths)
            self.injector.own_input()
        return {"accepted": True, "events": events}

    def key(self, params: dict[str, Any], deadline: float) -> dict[str, Any]:
        code = int_param(params, "code", maximum=KEY_CODE_MAX)
        meta = int_param(params, "meta", default=0)
        with self.injector.injecting():
            accepted = self.injector.key(code, meta)
            self.injector.own_input()
        return {"accepted": accepted}


@dataclass(frozen=True)
class Step:
    """One touch event `at_ms` after the touch-down (the Java agent's Gestures.Step)."""

    action: str
    at_ms: int
    x: int
    y: int


def tap_steps(x: int, y: int, hold_ms: int) -> list[Step]:
    return [Step(DOWN, 0, x, y), Step(UP, hold_ms, x, y)]


def swipe_steps(x1: int, y1: int, x2: int, y2: int, duration_ms: int, rest_ms: int) -> list[Step]:
    """Down at the start, a move every 8 ms along the line (at least one), and with a rest the
    resting release: still for `rest_ms`, one pixel on, lifted there (Gestures.swipe)."""
    moves = max(1, math.ceil(duration_ms / SWIPE_STEP_MS))
    steps = [Step(DOWN, 0, x1, y1)]
    for i in range(1, moves + 1):
        f = i / moves
        steps.append(Step(MOVE, min(i * SWIPE_STEP_MS, duration_ms), round(x1 + (x2 - x1) * f),
                          round(y1 + (y2 - y1) * f)))
    if rest_ms > 0:
        x, y = one_pixel_on(x1, y1, x2, y2)
        end = duration_ms + rest_ms
        steps += [Step(MOVE, end, x, y), Step(UP, end, x, y)]
    else:
        steps.append(Step(UP, duration_ms, x2, y2))
    return steps


def one_pixel_on(x1: int, y1: int, x2: int, y2: int) -> tuple[int, int]:
    """One pixel past the end of the line, in the swipe's direction."""
    dx, dy = x2 - x1, y2 - y1
    if abs(dy) >= abs(dx):
        return x2, y2 + (1 if dy >= 0 else -1)
    return x2 + (1 if dx >= 0 else -1), y2
