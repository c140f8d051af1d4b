"""The step trace of one device test: a listener on the test's `Steps` (mirror/steps.py) that keeps
every step, and for each of the test's own actions the screen before and after it and the tree then.

What it costs while the test runs is a reference or two per step: the replica's view as the latest
read left it (immutable), and with the emulator's controller the raw frame in effect just after
that moment (the frame source hands each one over: `FrameSource.observe`; a frame arriving within
FRAME_LAG still shows the moment, since frames arrive a little after the screen changed). Nothing is encoded, serialized
or read from the device until the trace is kept (`build`). Without a controller a screen costs an
agent screenshot, taken only while the screenshots so far stay within SCREENSHOT_SHARE of the test's
time. The "after" of an action is the screen when the test made its next call (or the test's end):
what the action's effect looked like to the test.

The format is docs/trace-format.md (evidence/tracefile.py reads and writes it).
"""

from __future__ import annotations

import io
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pytest_mobile_agent.emulator.frame import Frame
from pytest_mobile_agent.evidence import tracefile
from pytest_mobile_agent.evidence.steptext import (
    describe_arguments,
    describe_outcome,
    mask_typed_text,
    step_line,
)
from pytest_mobile_agent.mirror.replica import View
from pytest_mobile_agent.mirror.steps import Step

ACTIONS = frozenset({
    "tap", "tap_at", "long_press", "swipe", "swipe_within", "scroll_until", "type_text", "press_key",
    "element.tap", "element.long_press", "element.type_text", "element.swipe", "element.scroll_until",
    "app.start", "app.stop", "app.clear",
})
"""The steps that change the screen: each gets a screen before and after it."""
SCREENSHOT_SHARE = 0.04
"""Without frames, agent screenshots may take at most this share of the test's time so far."""
FIRST_SCREENSHOT_ESTIMATE = 0.05
JPEG_QUALITY = 70
MAX_LIVE_VIEWS = 64
"""Replica views referenced by a test's steps before the oldest is serialized (a long test's memory)."""
FRAME_LAG = 0.1
"""A frame arriving this long after a moment still shows the screen of that moment (the mirror's FRAME_QUIET)."""


class Capture(Protocol):
    def key(self) -> int:
        """Equal for captures of the same picture: the trace holds each picture once."""
        ...

    def encode(self) -> tuple[str, bytes]:
        """The image's extension and bytes."""
        ...


@dataclass(eq=False)
class EncodedCapture:
    extension: str
    data: bytes

    def key(self) -> int:
        return id(self)

    def encode(self) -> tuple[str, bytes]:
        return self.extension, self.data


@dataclass(eq=False)
class FrameCapture:
    """The controller frame in effect FRAME_LAG after the moment `at`: a frame shows the screen as it
    was a little before it arrived, so the frame that settles a capture is the last one to arrive
    by then (set on the frame source's thread as frames come). Encoded on demand."""

    at: float
    frame: Frame
    _encoded: EncodedCapture | None = None

    def key(self) -> int:
        return id(self.frame)

    def encode(self) -> tuple[str, bytes]:
        if self._encoded is None:
            from pytest_mobile_agent.session.frames import upright

            frame = self.frame
            out = io.BytesIO()
            upright(frame.width, frame.height, frame.data, frame.rotation).save(out, format="JPEG",
                                                                                quality=JPEG_QUALITY)
            self._encoded = EncodedCapture("jpg", out.getvalue())
        return self._encoded.encode()


class ScreenSource(Protocol):
    def grab(self, *, forced: bool = False, settle: bool = True) -> Capture | None: ...

    def close(self) -> None: ...


class LiveFrames:
    """The frames the session receives (references, taken on the frame source's thread)."""

    def __init__(self, observe: Callable[[Callable[[Frame], None]], Callable[[], None]],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._latest: Frame | None = None
        self._unsettled: list[FrameCapture] = []
        self._lock = threading.Lock()
        self._stop = observe(self._take)

    def _take(self, frame: Frame) -> None:
        arrived = frame.received_at or self._clock()
        with self._lock:
            self._latest = frame
            for capture in self._unsettled:
                if arrived <= capture.at + FRAME_LAG:
                    capture.frame = frame
            self._unsettled = [c for c in self._unsettled if arrived <= c.at + FRAME_LAG]

    def grab(self, *, forced: bool = False, settle: bool = True) -> Capture | None:
        """The frame in effect now; settled by the frames arriving within FRAME_LAG (`settle`), or the
        last frame already here (a step's "before": a frame arriving after the step began may show
        its effect)."""
        with self._lock:
            if self._latest is None or not self._latest.width:
                return None
            capture = FrameCapture(self._clock(), self._latest)
            self._unsettled = [c for c in self._unsettled if self._clock() <= c.at + FRAME_LAG]
            if settle:
                self._unsettled.append(capture)
            return capture

    def close(self) -> None:
        self._stop()


class BudgetedScreenshots:
    """Agent screenshots (JPEG), taken only while they stay within their share of the test's time."""

    def __init__(self, take: Callable[[], bytes], clock: Callable[[], float] = time.monotonic,
                 share: float = SCREENSHOT_SHARE) -> None:
        self._take = take
        self._clock = clock
        self._share = share
        self._started = clock()
        self._spent = 0.0
        self._estimate = FIRST_SCREENSHOT_ESTIMATE
        self.taken = 0
        self.skipped = 0

    def grab(self, *, forced: bool = False, settle: bool = True) -> Capture | None:
        now = self._clock()
        if not forced and self._spent + self._estimate > self._share * (now - self._started):
            self.skipped += 1
            return None
        data = self._take()
        cost = self._clock() - now
        self._spent += cost
        self._estimate = cost
        self.taken += 1
        return EncodedCapture("jpg", data)

    def close(self) -> None:
        pass


@dataclass(eq=False)
class Recorded:
    step: Step
    index: int
    parent: int | None
    teardown: bool
    before: Capture | None = None
    after: Capture | None = None
    generation: tuple[int, int] | None = None
    """The screen's place and the replica's generation the step left, its tree kept by the recorder."""
    arguments: dict[str, str] = field(default_factory=dict)
    outcome: str = ""
    line: str = ""
    notes: dict[str, Any] = field(default_factory=dict)
    """What others add to the step's document (`TraceRecorder.annotate`): `a11y`, its findings."""


class TraceRecorder:
    """The StepListener: keeps the steps, their screens and trees; `build` makes the trace's files.

    `screen` and `view` are the test's first target's; a test of several targets adds each target's
    (`add_screen`), and a step tagged with a target (mirror/steps.py, `Step.screen`) takes its
    screens and trees from that target's."""

    def __init__(self, screen: ScreenSource | None = None, view: Callable[[], View | None] | None = None,
                 wall: Callable[[], float] = time.time) -> None:
        self.screen = screen
        self.view = view
        self._wall = wall
        self.started = wall()
        self.recorded: list[Recorded] = []
        self._open: list[Recorded] = []
        self._awaiting_after: Recorded | None = None
        self._body_over = False
        self._views: dict[tuple[int, int], View] = {}  # (screen, generation) -> the view, the latest MAX_LIVE_VIEWS
        self._trees: dict[tuple[int, int], bytes] = {}  # the same key -> its tree serialized (older, once dropped)
        self.screen_size: dict[str, int] | None = None
        self._labelled: dict[str, tuple[ScreenSource | None, Callable[[], View | None] | None]] = {}
        self._after_of: Recorded | None = None
        self.root: Path | None = None
        """The rootdir the steps' source files are written relative to."""
        self.screen_sizes: dict[str, dict[str, int]] = {}

    def add_screen(self, label: str, screen: ScreenSource | None, view: Callable[[], View | None] | None) -> None:
        """A target's screen source and replica; the first one added is also the test's default."""
        if not self._labelled and self.screen is None and self.view is None:
            self.screen, self.view = screen, view
        self._labelled[label] = (screen, view)

    def _sources(self, record: Recorded) -> tuple[ScreenSource | None, Callable[[], View | None] | None]:
        label = record.step.screen
        if label is not None and label in self._labelled:
            return self._labelled[label]
        return self.screen, self.view

    def _place(self, record: Recorded) -> int:
        """0 for the default screen, else the target's place among the screens added (1, 2, ...)."""
        label = record.step.screen
        if label is None or label not in self._labelled:
            return 0
        return list(self._labelled).index(label)

    # --- the listener ------------------------------------------------------------------------------

    def step_started(self, step: Step) -> None:
        parent = self._open[-1].index if self._open else None
        record = Recorded(step, len(self.recorded), parent, self._body_over)
        self.recorded.append(record)
        self._open.append(record)
        if step.depth == 0 and not self._body_over:
            after = self._grab_after()
            if step.name in ACTIONS:
                record.before = self._before(record, after)

    def _before(self, record: Recorded, after: Capture | None) -> Capture | None:
        """The screen before an action, as it was when the call began, before any of its input: the
        previous action's after when that is a picture of this screen taken now, else the last frame
        already here (never one that arrives later: it may show this action's effect)."""
        awaited = self._after_of
        if after is not None and not isinstance(after, FrameCapture) and awaited is not None \
                and awaited.step.screen == record.step.screen:
            return after
        return self._grab(record, settle=False)

    def step_ended(self, step: Step) -> None:
        record = self._open.pop() if self._open and self._open[-1].step is step else self._find(step)
        read_view = self._sources(record)[1]
        view = read_view() if read_view is not None else None
        if view is not None:
            record.generation = self._keep(self._place(record), view, record.step.screen)
        record.arguments = mask_typed_text(step, describe_arguments(step.arguments, view), view)
        record.outcome = describe_outcome(step, view)
        record.line = step_line(step, record.arguments, view)
        if step.depth == 0 and step.name in ACTIONS and not self._body_over:
            self._awaiting_after = record

    def annotate(self, step: Step, key: str, value: Any) -> None:
        """Add `key` to `step`'s document in the trace (the per-step accessibility audit's findings)."""
        for record in reversed(self.recorded):
            if record.step is step:
                record.notes[key] = value
                return

    @property
    def lines(self) -> list[str]:
        """One line per finished step, in the order the steps started (`-v` shows them for a failure)."""
        return [record.line for record in self.recorded if record.line]

    def body_ended(self, failed: bool) -> None:
        """The test's own code is over (its call phase): the last action's after, taken now (forced when
        it failed: that screen is the evidence); steps from here on are teardown's."""
        if self._body_over:
            return
        last = self._awaiting_after
        if failed and last is None and self.recorded:
            last = next((r for r in reversed(self.recorded) if r.step.depth == 0), None)
        if last is not None and last.after is None:
            last.after = self._grab(last, forced=failed)
        self._awaiting_after = None
        self._body_over = True

    def close(self) -> None:
        sources = {id(source): source for source, _ in self._labelled.values() if source is not None}
        if self.screen is not None:
            sources[id(self.screen)] = self.screen
        for source in sources.values():
            source.close()

    # --- the files ---------------------------------------------------------------------------------

    def build(self, test: dict[str, Any], extra: dict[str, Any]) -> tuple[dict[str, Any], dict[str, bytes]]:
        """The trace's manifest and members: images and trees serialized now, each once."""
        files: dict[str, bytes] = {}
        images: dict[int, str] = {}
        trees: dict[tuple[int, int], str] = {}
        counter = itertools.count(1)

        def image(capture: Capture | None) -> str | None:
            if capture is None:
                return None
            key = capture.key()
            if key not in images:
                extension, data = capture.encode()
                name = f"{tracefile.IMAGE_DIR}{next(counter)}.{extension}"
                files[name] = data
                images[key] = name
            return images[key]

        def tree(key: tuple[int, int] | None) -> str | None:
            if key is None:
                return None
            if key not in trees:
                place, generation = key
                name = f"{tracefile.TREE_DIR}{generation}.json" if place == 0 else \
                    f"{tracefile.TREE_DIR}{place}-{generation}.json"
                files[name] = self._tree_bytes(key)
                trees[key] = name
            return trees[key]

        steps = []
        for record in self.recorded:
            step_document = self._step_document(record, image(record.before), image(record.after),
                                                tree(record.generation))
            compared = _snapshot_images(record.step, files, next(counter))
            if compared:
                step_document["snapshot"] = compared
            steps.append(step_document)
        document = {"format": tracefile.FORMAT, "version": tracefile.VERSION, "test": test, "screen": self.screen_size,
                    "started": self.started, "steps": steps, **extra}
        if len(self._labelled) > 1:
            document["screens"] = {label: self.screen_sizes.get(label) for label in self._labelled}
        return document, files

    def _step_document(self, record: Recorded, before: str | None, after: str | None, tree_name: str | None
                       ) -> dict[str, Any]:
        step = record.step
        ended = None if step.ended_at is None else step.started_wall + (step.ended_at - step.started_at)
        error = None
        if step.error is not None:
            error = {"type": type(step.error).__name__, "message": str(step.error)[:4000]}
        return {
            "index": record.index, "parent": record.parent, "name": step.name, "depth": step.depth,
            "teardown": record.teardown, "arguments": record.arguments,
            "started": step.started_wall, "ended": ended, "ended_by": step.ended_by,
            "outcome": record.outcome, "error": error,
            "target": list(step.target) if step.target is not None else None,
            "polls": [[step.started_wall + (poll.at - step.started_at), poll.matched] for poll in step.polls],
            "before": before, "after": after, "tree": tree_name, "screen": step.screen,
            "source": tracefile.source_entry(step.source, self.root),
            **({"perf": step.measures["perf"]} if "perf" in step.measures else {}),
            **record.notes,
        }

    # --- helpers -----------------------------------------------------------------------------------

    def _keep(self, place: int, view: View, label: str | None) -> tuple[int, int]:
        """Keep a reference to the view (serialized only if the trace is kept); past MAX_LIVE_VIEWS the
        oldest is serialized now, so a long test's memory stays bounded."""
        display = view.snapshot.display
        size = {"width": display.width, "height": display.height}
        if self.screen_size is None or place == 0:
            self.screen_size = self.screen_size or size
        if label is not None:
            self.screen_sizes.setdefault(label, size)
        key = (place, view.generation)
        if key not in self._views and key not in self._trees:
            self._views[key] = view
            if len(self._views) > MAX_LIVE_VIEWS:
                oldest = next(iter(self._views))
                self._trees[oldest] = _json_bytes(tree_of(self._views.pop(oldest)))
        return key

    def _tree_bytes(self, key: tuple[int, int]) -> bytes:
        if key in self._trees:
            return self._trees[key]
        return _json_bytes(tree_of(self._views[key]))

    def _grab(self, record: Recorded, *, forced: bool = False, settle: bool = True) -> Capture | None:
        screen = self._sources(record)[0]
        if screen is None:
            return None
        try:
            return screen.grab(forced=forced, settle=settle)
        except Exception:  # noqa: BLE001 - a screen the trace cannot take is left out, never the test's failure
            return None

    def _grab_after(self) -> Capture | None:
        """The screen now, as the after of the action that awaits one."""
        waiting = self._awaiting_after
        self._after_of = waiting
        if waiting is None:
            return None
        self._awaiting_after = None
        waiting.after = self._grab(waiting)
        return waiting.after

    def _find(self, step: Step) -> Recorded:
        return next(r for r in reversed(self.recorded) if r.step is step)


def _snapshot_images(step: Step, files: dict[str, bytes], number: int) -> dict[str, str]:
    """A failed snapshot's expected, actual and diff images, as members of the trace."""
    images = getattr(step.error, "images", None)
    if not isinstance(images, dict):
        return {}
    names = {}
    for kind, path in images.items():
        try:
            data = path.read_bytes()
        except OSError:
            continue
        names[kind] = f"{tracefile.IMAGE_DIR}snapshot-{number}-{kind}.png"
        files[names[kind]] = data
    return names


def tree_of(view: View) -> list[dict[str, Any]]:
    """The replica's windows and nodes, as the viewer lists them (the same facts as `screen.dump()`)."""
    from pytest_mobile_agent.mirror.selectors import describe_entry

    windows = []
    for window in view.windows:
        nodes = [{"ref": entry.ref, "depth": entry.node.depth, "bounds": list(entry.node.bounds),
                  "label": describe_entry(entry)} for entry in view.by_window.get(window.id, ())]
        windows.append({"id": window.id, "type": window.type, "title": window.title, "package": window.package,
                        "bounds": list(window.bounds), "nodes": nodes})
    return windows


def _json_bytes(value: Any) -> bytes:
    import json

    return json.dumps(value, ensure_ascii=False).encode("utf-8")
