"""The `gesture` method: several finger paths injected as one stream of MotionEvents (the Java
agent's `input/MultiTouch`, docs/protocol.md "gesture").

Each path is a finger: it goes down at its first point, moves through the others and lifts at its
last one, every point `[x, y, t_ms]` at its time from the gesture's start. The events are built as
InputReader builds them from a touchscreen's frames (ui/pointers.py): at each time, first one
ACTION_MOVE carrying every pointer down if any moved, then the fingers that lift (ACTION_POINTER_UP,
or ACTION_UP for the last one; lowest pointer id first), then the fingers that go down
(ACTION_DOWN for the first one, else ACTION_POINTER_DOWN), each taking the lowest pointer id not in
use. Every event has the pointers down ordered by id, the changed pointer's index in its action,
and the gesture's event times, so InputDispatcher takes the stream as it takes a touchscreen's.
"""

from __future__ import annotations

import json
import time
from typing import Any

from pytest_mobile_agent.virtual.agent.params import RequestError
from pytest_mobile_agent.virtual.ui.pointers import MAX_POINTERS, MotionEvent, PointerSet

GESTURE_MAX_MS = 60_000  # as every gesture of core/Agent.java
COORDINATE_MAX = 2**31 - 1

Path = list[tuple[int, int, int]]


def paths_param(params: dict[str, Any]) -> list[Path]:
    """`paths`: 1 to 10 paths of at least two points [x, y, t_ms] each, integers, times not going
    back and the last after the first, within 60,000 ms (anything else is `invalid_params`)."""
    paths = params.get("paths")
    if not isinstance(paths, list) or not paths:
        raise RequestError("invalid_params", "`paths` must be a non-empty list of finger paths")
    if len(paths) > MAX_POINTERS:
        raise RequestError("invalid_params", f"at most {MAX_POINTERS} paths (fingers), not {len(paths)}")
    return [_path(i, path) for i, path in enumerate(paths)]


def _path(index: int, path: Any) -> Path:
    if not isinstance(path, list) or len(path) < 2:
        raise RequestError("invalid_params", f"path {index} must be a list of at least two points [x, y, t_ms]")
    points: Path = []
    for point in path:
        if (not isinstance(point, list) or len(point) != 3
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in point)):
            raise RequestError("invalid_params", f"path {index}: a point is [x, y, t_ms], integers")
        x, y, t = point
        if not (0 <= x <= COORDINATE_MAX and 0 <= y <= COORDINATE_MAX and 0 <= t <= GESTURE_MAX_MS):
            raise RequestError("invalid_params", f"path {index}: point {_json(point)} is out of range")
        if points and t < points[-1][2]:
            raise RequestError("invalid_params", f"path {index}: its times go back at {_json(point)}")
        points.append((x, y, t))
    if points[-1][2] <= points[0][2]:
        raise RequestError("invalid_params", f"path {index} lifts at its touch-down's time: give it a later last point")
    return points


def _json(point: list[int]) -> str:
    """A point as the Java agent's message writes it (org.json's JSONArray.toString)."""
    return json.dumps(point, separators=(",", ":"))


def motion_events(paths: list[Path], t0: float) -> list[MotionEvent]:
    """The MotionEvents of the paths (module doc), their times `t0` plus each point's."""
    times = sorted({t for path in paths for _, _, t in path})
    pointers = PointerSet()
    ids: dict[int, int] = {}  # path index -> pointer id
    events: list[MotionEvent] = []
    for t in times:
        moved = {ids[i]: _at(path, t) for i, path in enumerate(paths) if i in ids and _has(path, t)}
        move = pointers.move(moved, t0 + t)
        if move is not None:
            events.append(move)
        ending = sorted((i for i in ids if paths[i][-1][2] == t), key=lambda i: ids[i])
        for i in ending:
            events.append(pointers.lift(ids.pop(i), t0 + t))
        for i, path in enumerate(paths):
            if path[0][2] == t and i not in ids and path[-1][2] > t:
                ids[i] = pointers.free_id()
                x, y, _ = path[0]
                events.append(pointers.press(ids[i], x, y, t0 + t))
    return events


def _has(path: Path, t: int) -> bool:
    return any(pt == t for _, _, pt in path[1:])


def _at(path: Path, t: int) -> tuple[int, int]:
    """The path's last position at time t."""
    x, y = next((x, y) for x, y, pt in reversed(path) if pt == t)
    return x, y


def fits_deadline(paths: list[Path], deadline: float) -> None:
    span = max(p[-1][2] for p in paths)  # from the request: the fingers start at their own times
    if time.monotonic() + span / 1000.0 > deadline:
        raise RequestError("deadline_exceeded", f"a {span} ms gesture does not fit the deadline", retryable=True)
