"""What Android's input dispatcher accepts of a touchscreen's MotionEvent stream, to check the
gestures the virtual device's app was handed (`UiModel.motion.log`).

The rules are AOSP's (frameworks/native, Android 14-16):
- InputDispatcher's `validateMotionEvent` (services/inputflinger/dispatcher/InputDispatcher.cpp):
  1 to MAX_POINTERS (16) pointers, ids within 0..MAX_POINTER_ID (31) and none twice, an
  ACTION_POINTER_DOWN/UP's index within the event's pointers, ACTION_DOWN and ACTION_UP of one pointer;
- the InputVerifier (libs/input/rust/input_verifier.rs, `process_movement`): ACTION_DOWN when no
  pointer is down; ACTION_POINTER_DOWN carries the pointers down plus the new one at its index, an id
  not down yet; ACTION_MOVE and ACTION_POINTER_UP carry exactly the pointers down; ACTION_UP the last
  one; its newer versions also hold every event of a gesture to the DOWN's down time;
- and the event times of a stream never go back (InputReader stamps them in order; the dispatcher
  delivers an injected stream in order).
"""

from __future__ import annotations

from collections.abc import Iterable

from pytest_mobile_agent.virtual.ui.pointers import (
    ACTION_DOWN,
    ACTION_MOVE,
    ACTION_POINTER_DOWN,
    ACTION_POINTER_UP,
    ACTION_UP,
    MotionEvent,
)

MAX_POINTERS = 16
MAX_POINTER_ID = 31


def verify(events: Iterable[MotionEvent]) -> list[str]:
    """Every rule the stream breaks, in order (empty: the dispatcher takes all of it)."""
    problems: list[str] = []
    down: set[int] = set()
    down_time: float | None = None
    last_time: float | None = None
    for n, event in enumerate(events):
        where = f"event {n} {event.describe()}"
        ids = [pid for pid, _, _ in event.pointers]
        if not 1 <= len(ids) <= MAX_POINTERS or len(set(ids)) != len(ids) or any(
                not 0 <= pid <= MAX_POINTER_ID for pid in ids):
            problems.append(f"{where}: pointer ids {ids} (validateMotionEvent)")
        if last_time is not None and event.event_ms < last_time:
            problems.append(f"{where}: its time goes back from {last_time:g}")
        last_time = event.event_ms
        action = event.masked
        if action == ACTION_DOWN:
            if down or len(ids) != 1:
                problems.append(f"{where}: ACTION_DOWN while {sorted(down)} are down, or not of one pointer")
            down, down_time = set(ids), event.event_ms
            continue
        if down_time is not None and event.down_ms != down_time:
            problems.append(f"{where}: down time {event.down_ms:g}, not the gesture's {down_time:g}")
        if action == ACTION_POINTER_DOWN:
            if event.index >= len(ids) or ids[event.index] in down or set(ids) - {ids[event.index]} != down:
                problems.append(f"{where}: POINTER_DOWN's pointers {ids} do not add one to {sorted(down)}")
            else:
                down.add(ids[event.index])
        elif action in (ACTION_MOVE, ACTION_POINTER_UP):
            if set(ids) != down or (action == ACTION_POINTER_UP and event.index >= len(ids)):
                problems.append(f"{where}: pointers {ids} are not those down, {sorted(down)}")
            elif action == ACTION_POINTER_UP:
                down.discard(ids[event.index])
        elif action == ACTION_UP:
            if len(ids) != 1 or set(ids) != down:
                problems.append(f"{where}: ACTION_UP of {ids} while {sorted(down)} are down")
            down, down_time = set(), None
        else:
            problems.append(f"{where}: an action a touchscreen does not send")
    if down:
        problems.append(f"the stream ends with {sorted(down)} still down")
    return problems


def gestures(events: Iterable[MotionEvent]) -> list[list[MotionEvent]]:
    """The stream cut into gestures, each from an ACTION_DOWN to its ACTION_UP."""
    out: list[list[MotionEvent]] = []
    for event in events:
        if event.masked == ACTION_DOWN or not out:
            out.append([])
        out[-1].append(event)
    return out
