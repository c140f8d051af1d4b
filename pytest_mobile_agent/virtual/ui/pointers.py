"""Several pointers as Android's input pipeline hands them to an app: MotionEvents.

A MotionEvent (frameworks/base, core/java/android/view/MotionEvent.java, Android 13-16) carries
every pointer down at its time, each with its pointer id (PointerProperties.id) and its coordinates
(PointerCoords), ordered by pointer id; its action is one of ACTION_DOWN (the first pointer),
ACTION_POINTER_DOWN (another one, the index of the new pointer in the event shifted into the
action by ACTION_POINTER_INDEX_SHIFT, 8), ACTION_MOVE, ACTION_POINTER_UP (a pointer lifts while
others stay; the event still carries it, at its index) and ACTION_UP (the last pointer lifts).

Two sources make them here:

- the agent's injected gestures (virtual/agent/multitouch.py builds them from finger paths, as the
  Java agent's input/MultiTouch does), and
- the touchscreen's input frames (`FrameMapper`): the emulator's TouchEventSender writes each
  TouchEvent as one multi-touch frame (protocol B slots) ended by SYN_REPORT, and InputReader's
  TouchInputMapper::dispatchTouches turns a frame into MotionEvents in this order: one
  ACTION_POINTER_UP per lifted pointer (lowest id first), then one ACTION_MOVE when a pointer that
  stays moved, then one ACTION_POINTER_DOWN per new pointer (lowest id first); `dispatchMotion`
  makes the first pointer's POINTER_DOWN an ACTION_DOWN and the last one's POINTER_UP an ACTION_UP
  (frameworks/native, services/inputflinger/reader/mapper/TouchInputMapper.cpp). A new contact
  takes the lowest pointer id not in use (the id bits of the mapper's `mPointerIdBits` /
  `assignPointerIds`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

ACTION_DOWN = 0
ACTION_UP = 1
ACTION_MOVE = 2
ACTION_POINTER_DOWN = 5
ACTION_POINTER_UP = 6
ACTION_POINTER_INDEX_SHIFT = 8
ACTION_MASK = 0xFF
#: InputDispatcher's limit (MAX_POINTERS in frameworks/native include/input/Input.h is 16); the
#: emulator's touchscreen takes 10 contacts (emulator_controller.proto, Touch.identifier)
MAX_POINTERS = 10

Pointer = tuple[int, int, int]
"""A pointer of a MotionEvent: its id, x, y (physical pixels)."""


@dataclass(frozen=True)
class MotionEvent:
    """One MotionEvent: `action` with the pointer index in it, its pointers by id, its event time
    (model ms) and its gesture's down time."""

    action: int
    pointers: tuple[Pointer, ...]
    event_ms: float
    down_ms: float

    @property
    def masked(self) -> int:
        return self.action & ACTION_MASK

    @property
    def index(self) -> int:
        """The action's pointer index (getActionIndex)."""
        return (self.action >> ACTION_POINTER_INDEX_SHIFT) & 0xFF

    def position(self, pointer_id: int) -> tuple[int, int] | None:
        return next(((x, y) for pid, x, y in self.pointers if pid == pointer_id), None)

    def describe(self) -> str:
        names = {ACTION_DOWN: "DOWN", ACTION_UP: "UP", ACTION_MOVE: "MOVE", ACTION_POINTER_DOWN: "POINTER_DOWN",
                 ACTION_POINTER_UP: "POINTER_UP"}
        ids = ",".join(str(pid) for pid, _, _ in self.pointers)
        suffix = f"({self.index})" if self.masked in (ACTION_POINTER_DOWN, ACTION_POINTER_UP) else ""
        return f"{names.get(self.masked, self.masked)}{suffix}@{self.event_ms:g}[{ids}]"


def pointer_action(masked: int, index: int) -> int:
    return masked | (index << ACTION_POINTER_INDEX_SHIFT)


class PointerSet:
    """The pointers down now, by id, and the MotionEvents their changes make (TouchInputMapper's
    rules: module doc). No clock: every change comes with its event time."""

    def __init__(self) -> None:
        self.down: dict[int, tuple[int, int]] = {}
        self.down_ms = 0.0

    def free_id(self) -> int:
        """The lowest pointer id not in use."""
        return next(i for i in range(MAX_POINTERS + 1) if i not in self.down)

    def _event(self, masked: int, changed: int | None, t: float) -> MotionEvent:
        pointers = tuple((pid, x, y) for pid, (x, y) in sorted(self.down.items()))
        index = 0 if changed is None else [pid for pid, _, _ in pointers].index(changed)
        return MotionEvent(pointer_action(masked, index), pointers, t, self.down_ms)

    def press(self, pointer_id: int, x: int, y: int, t: float) -> MotionEvent:
        """A new pointer: ACTION_DOWN when it is the first, else ACTION_POINTER_DOWN at its index."""
        if not self.down:
            self.down_ms = t
        self.down[pointer_id] = (x, y)
        if len(self.down) == 1:
            return self._event(ACTION_DOWN, None, t)
        return self._event(ACTION_POINTER_DOWN, pointer_id, t)

    def move(self, positions: dict[int, tuple[int, int]], t: float) -> MotionEvent | None:
        """Pointers that moved: one ACTION_MOVE with every pointer down, or None when none moved."""
        moved = {pid: xy for pid, xy in positions.items() if pid in self.down and self.down[pid] != xy}
        if not moved:
            return None
        self.down.update(moved)
        return self._event(ACTION_MOVE, None, t)

    def lift(self, pointer_id: int, t: float) -> MotionEvent:
        """A pointer lifts where it is: ACTION_UP when it is the last, else ACTION_POINTER_UP at its
        index (the event still carries it)."""
        if len(self.down) == 1:
            event = self._event(ACTION_UP, None, t)
        else:
            event = self._event(ACTION_POINTER_UP, pointer_id, t)
        del self.down[pointer_id]
        return event


class FrameMapper:
    """The touchscreen's frames to MotionEvents (TouchInputMapper::dispatchTouches: module doc):
    contacts by the emulator's identifier, mapped to pointer ids as they go down."""

    def __init__(self) -> None:
        self.pointers = PointerSet()
        self._ids: dict[int, int] = {}  # contact identifier -> pointer id

    @property
    def active(self) -> bool:
        return bool(self._ids)

    def frame(self, contacts: Iterable[tuple[int, int, int, bool]], t: float) -> list[MotionEvent]:
        """One frame's contacts (identifier, x, y, pressed), each as it stands at the frame's end:
        ups first, then a move, then downs."""
        final = {ident: (x, y, pressed) for ident, x, y, pressed in contacts}
        events: list[MotionEvent] = []
        for ident in sorted((i for i, (_, _, p) in final.items() if not p and i in self._ids),
                            key=lambda i: self._ids[i]):
            events.append(self.pointers.lift(self._ids.pop(ident), t))
        moved = {self._ids[i]: (x, y) for i, (x, y, p) in final.items() if p and i in self._ids}
        move = self.pointers.move(moved, t)
        if move is not None:
            events.append(move)
        for ident in sorted(i for i, (_, _, p) in final.items() if p and i not in self._ids):
            x, y, _ = final[ident]
            pointer_id = self.pointers.free_id()
            self._ids[ident] = pointer_id
            events.append(self.pointers.press(pointer_id, x, y, t))
        return events
