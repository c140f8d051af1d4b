"""A scripted backend for the mirror's unit tests, on simulated time: waiting for an event moves
the clock on instead of sleeping."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from pytest_mobile_agent.mirror.replica import Replica, View
from pytest_mobile_agent.session import backends as b
from pytest_mobile_agent.session.tree import parse_snapshot
from tests.support.session_fakes import node  # the agent's NODE as docs/protocol.md gives it

__all__ = ["node"]

SCALE = 2.625




def tree(*nodes: dict[str, Any]) -> list[dict[str, Any]]:
    """Fill in parents' children lists from the nodes' parents (pre-order)."""
    by_id = {n["id"]: n for n in nodes}
    for n in nodes:
        n["children"] = []
    for n in nodes:
        if n["parent"] is not None:
            by_id[n["parent"]]["children"].append(n["id"])
    return list(nodes)


def window(id: int, nodes: list[dict[str, Any]], *, events: bool = False, type: str = "application",
           title: str = "Compose fixture", package: str = "dev.mobileagent.fixture") -> dict[str, Any]:
    return {"id": id, "type": type, "title": title, "package": package, "layer": 1, "focused": True,
            "active": True, "bounds": [0, 0, 1080, 2400], "sends_change_events": events, "owner": None,
            "modal": False, "node_count": len(nodes), "nodes": nodes}


def view_of(*windows: dict[str, Any]) -> View:
    """The replica's view of a snapshot of these windows (top-most first)."""
    raw = {"windows": list(windows), "node_count": sum(len(w["nodes"]) for w in windows), "truncated": False,
           "idle": {"waited_ms": 0, "idle": True}, "seq": 0,
           "display": {"width": 1080, "height": 2400, "density": 420, "rotation": 0}}
    replica = Replica()
    replica.apply(parse_snapshot(raw, scale=SCALE, reason=b.ReadReason.POLL, read_at=0.0))
    assert replica.view is not None
    return replica.view


def login_screen(first: int = 1, welcome: bool = False) -> dict[str, Any]:
    i = first
    nodes = [
        node(i, None, 0),
        node(i + 1, i, 1, text="Login", cls="android.widget.TextView", bounds=(0, 210, 360, 336),
             clickable=True, res="dev.mobileagent.fixture:id/tab_login"),
        node(i + 2, i, 1, text="Big", cls="android.widget.TextView", bounds=(360, 210, 720, 336),
             clickable=True, res="tab_big"),
        node(i + 3, i, 1, cls="android.widget.EditText", bounds=(60, 500, 1020, 640), editable=True,
             clickable=True, focusable=True, hint="User name", res="user"),
        node(i + 4, i, 1, cls="android.widget.Button", bounds=(60, 700, 1020, 840), desc="Sign in",
             clickable=True),
    ]
    if welcome:
        nodes.append(node(i + 5, i, 1, text="Welcome, ada", cls="android.widget.TextView", bounds=(60, 900, 1020, 980)))
    return {"windows": [window(12, tree(*nodes))], "node_count": len(nodes), "truncated": False,
            "idle": {"waited_ms": 0, "idle": True}, "seq": 0,
            "display": {"width": 1080, "height": 2400, "density": 420, "rotation": 0}}


def list_screen(first_item: int, count: int = 10, items: int = 50) -> dict[str, Any]:
    scroll = {"horizontal": False, "vertical": True, "can_back": first_item > 0,
              "can_forward": first_item + count < items, "items": items, "first": first_item,
              "last": first_item + count - 1}
    nodes = [node(1, None, 0), node(2, 1, 1, cls="androidx.compose.ui.platform.ComposeView",
                                    bounds=(0, 336, 1080, 2400), scrollable=True, scroll=scroll)]
    for k in range(count):
        top = 336 + k * 200
        nodes.append(node(10 + k, 2, 2, text=f"Item {first_item + k}", cls="android.widget.TextView",
                          bounds=(0, top, 1080, top + 200)))
    return {"windows": [window(12, tree(*nodes))], "node_count": len(nodes), "truncated": False,
            "idle": {"waited_ms": 0, "idle": True}, "seq": 0,
            "display": {"width": 1080, "height": 2400, "density": 420, "rotation": 0}}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeTree:
    def __init__(self, clock: Clock, screen: dict[str, Any], *, can_probe: bool = True) -> None:
        self.clock = clock
        self.screen = screen
        self.reads: list[tuple[b.ReadReason, list[int]]] = []
        self._can_probe = can_probe
        self.probes: list[list[int]] = []
        self.bounds_now: Callable[[int], b.Bounds | None] | None = None
        self.on_read: Callable[[int], None] | None = None
        self.read_timeouts: list[float | None] = []
        self.probe_timeouts: list[float | None] = []
        #: seconds the agent takes to answer a read (a stopped or slow agent); a shorter timeout fails
        self.answer_after = 0.0
        self.read_times: list[float] = []  # the clock when each read was answered

    @property
    def can_probe(self) -> bool:
        return self._can_probe

    def read(self, reason: b.ReadReason, windows: Sequence[int] = (), timeout: float | None = None) -> b.Snapshot:
        self.read_timeouts.append(timeout)
        if self.answer_after:
            limit = 10.0 if timeout is None else min(10.0, timeout)
            self.clock.now += min(self.answer_after, limit)
            if self.answer_after > limit:
                from pytest_mobile_agent.errors import Timeout

                raise Timeout("the agent request snapshot", limit)
        self.reads.append((reason, list(windows)))
        self.read_times.append(self.clock.now)
        if self.on_read is not None:
            self.on_read(len(self.reads))
        return parse_snapshot(self.screen, scale=SCALE, reason=reason, read_at=self.clock())

    def probe(self, node_ids: Sequence[int], timeout: float | None = None) -> b.ProbedBounds:
        self.probe_timeouts.append(timeout)
        self.probes.append(list(node_ids))
        out: dict[int, dict[int, b.Bounds]] = {}
        for w in self.screen["windows"]:
            for n in w["nodes"]:
                if n["id"] in node_ids:
                    bounds = self.bounds_now(n["id"]) if self.bounds_now else tuple(n["bounds"])
                    if bounds is not None:
                        out.setdefault(w["id"], {})[n["id"]] = bounds  # type: ignore[assignment]
        return out


class FakeEvents:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.queue: deque[b.SessionEvent] = deque()
        self.scheduled: list[tuple[float, b.SessionEvent]] = []
        self.waits: list[float] = []

    def put(self, event: b.SessionEvent) -> None:
        self.queue.append(event)

    def at(self, when: float, event: b.SessionEvent) -> None:
        self.scheduled.append((when, event))
        self.scheduled.sort(key=lambda pair: pair[0])

    def next_event(self, timeout: float) -> b.SessionEvent | None:
        self.waits.append(timeout)
        if not self.queue:
            until = self.clock.now + timeout
            if self.scheduled and self.scheduled[0][0] <= until:
                when, event = self.scheduled.pop(0)
                self.clock.now = max(self.clock.now, when)
                return event
            self.clock.now = until
            return None
        return self.queue.popleft()

    def drain(self) -> list[b.SessionEvent]:
        out = list(self.queue)
        self.queue.clear()
        while self.scheduled and self.scheduled[0][0] <= self.clock.now:
            out.append(self.scheduled.pop(0)[1])
        return out

    @property
    def ended(self) -> bool:
        return any(isinstance(e, b.Disconnection) for e in self.queue)


class FakeInput:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.on_input: Callable[[tuple[Any, ...]], None] | None = None
        self.accepted = True
        self.path = "agent"  # "controller": the gesture went through the emulator's controller

    def _record(self, *call: Any) -> b.Ack:
        self.calls.append(call)
        if self.on_input is not None:
            self.on_input(call)
        return b.Ack(accepted=self.accepted, path=self.path, method="direct" if call[0] == "text" else None)

    def tap(self, x: float, y: float) -> b.Ack:
        return self._record("tap", x, y)

    def long_press(self, x: float, y: float, hold: float) -> b.Ack:
        return self._record("long_press", x, y, hold)

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration: float,
              release: b.Release = b.Release.MOVING) -> b.Ack:
        return self._record("swipe", x1, y1, x2, y2, duration, release)

    def key(self, code: int, meta: int = 0) -> b.Ack:
        return self._record("key", code, meta)

    def text(self, text: str, node: int | None = None, method: str = "auto") -> b.Ack:
        return self._record("text", text, node, method)

    ime_offered = False
    """Whether `ime_enter` finds ACTION_IME_ENTER offered (an agent before it: never)."""

    def ime_enter(self, node: int | None = None) -> b.Ack | None:
        if not self.ime_offered:
            return None
        return self._record("ime_enter", node)

    def gesture(self, paths: Any) -> b.Ack:
        return self._record("gesture", [tuple(path) for path in paths])


class FakeFrames:
    def __init__(self, live: bool = False) -> None:
        self.live = live

    def frames(self) -> list[b.FrameEvent]:
        return []

    def jpeg(self, frame: b.FrameEvent | None = None, quality: int = 80, width: int | None = None) -> bytes:
        raise AssertionError("not used")

    def screenshot(self, format: str = "png") -> b.Screenshot:
        return b.Screenshot(format=format, width=1080, height=2400, rotation=0, data=b"\x89PNG-shot")


class Rig:
    """A mirror on a scripted backend."""

    def __init__(self, screen: dict[str, Any], *, live_frames: bool = False, can_probe: bool = True) -> None:
        from pytest_mobile_agent.mirror import Mirror

        self.clock = Clock()
        self.tree = FakeTree(self.clock, screen, can_probe=can_probe)
        self.events = FakeEvents(self.clock)
        self.input = FakeInput()
        self.frames = FakeFrames(live_frames)
        self.backend = b.Backend(tree=self.tree, events=self.events, input=self.input, frames=self.frames,
                                 scale=SCALE)
        self.mirror = Mirror(self.backend, clock=self.clock)

    @property
    def reasons(self) -> list[b.ReadReason]:
        return [reason for reason, _ in self.tree.reads]
