"""Scripted peers for the session's unit tests: an agent connection, an attached agent, a device
for `wm density`, and an emulator controller with a frame stream."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_mobile_agent.agent.deploy import Launched, Reused
from pytest_mobile_agent.agent.protocol import Hello, encode_json
from pytest_mobile_agent.emulator import Endpoint, Frame
from pytest_mobile_agent.errors import Closed

CAPS = ("events", "bounds", "window_metadata", "text_clipboard", "multi_touch", "a11y_fields")
SOCKET = "mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae"


# --- the agent's snapshot as it sends it ---------------------------------------------------------


def node(id: int, parent: int | None = None, depth: int = 0, *, text: str | None = None,
         cls: str = "android.view.View", bounds: tuple[int, int, int, int] = (0, 0, 1080, 2400),
         children: tuple[int, ...] = (), **flags: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": id, "parent": parent, "depth": depth, "class": cls, "text": text, "desc": None,
        "res": None, "hint": None, "package": "dev.mobileagent.fixture", "bounds": list(bounds),
        "clickable": False, "long_clickable": False, "focusable": False, "focused": False,
        "editable": False, "checkable": False, "checked": False, "enabled": True, "selected": False,
        "scrollable": False, "visible": True, "password": False, "scroll": None,
        "children": list(children),
    }
    base.update(flags)
    return base


def window(id: int, nodes: list[dict[str, Any]], *, events: bool = True, type: str = "application",
           owner: str | None = None, modal: bool = False, package: str = "dev.mobileagent.fixture",
           metadata: bool = True) -> dict[str, Any]:
    w: dict[str, Any] = {
        "id": id, "type": type, "title": "Compose fixture", "package": package, "layer": 1,
        "focused": True, "active": True, "bounds": [0, 0, 1080, 2400], "node_count": len(nodes),
        "nodes": nodes,
    }
    if metadata:
        w.update({"sends_change_events": events, "owner": owner, "modal": modal})
    return w


def snapshot(*windows: dict[str, Any], seq: int = 0, truncated: bool = False,
             node_count: int | None = None, density: int = 420) -> dict[str, Any]:
    return {
        "windows": list(windows),
        "node_count": sum(len(w["nodes"]) for w in windows) if node_count is None else node_count,
        "truncated": truncated,
        "idle": {"waited_ms": 0, "idle": True},
        "seq": seq,
        "display": {"width": 1080, "height": 2400, "density": density, "rotation": 0},
    }


def tabs_window(id: int = 12, *, events: bool = False, first_id: int = 1, login_top: int = 210) -> dict[str, Any]:
    """A Compose window: a root with the Login and Big tabs."""
    a, b, c = first_id, first_id + 1, first_id + 2
    return window(id, [
        node(a, None, 0, children=(b, c)),
        node(b, a, 1, text="Login", cls="android.widget.TextView", bounds=(0, login_top, 360, login_top + 126),
             clickable=True, res="tab_login"),
        node(c, a, 1, text="Big", cls="android.widget.TextView", bounds=(360, 210, 720, 336), clickable=True,
             res="tab_big"),
    ], events=events)


def keyboard_window(id: int = 31, first_id: int = 100) -> dict[str, Any]:
    return window(id, [
        node(first_id, None, 0, children=(first_id + 1,), cls="android.widget.FrameLayout",
             bounds=(0, 1500, 1080, 2400)),
        node(first_id + 1, first_id, 1, desc="q", cls="android.widget.Button", bounds=(0, 1500, 108, 1650)),
    ], type="input_method", package="com.android.inputmethod.latin")


# --- the agent connection ------------------------------------------------------------------------


Reply = dict[str, Any] | Exception | Callable[[dict[str, Any]], Any]


class FakeConnection:
    """Answers requests from per-method scripts; every request is recorded."""

    def __init__(self, capabilities: tuple[str, ...] = CAPS) -> None:
        self.hello = Hello(agent="mobile-agent-android", version="0.1.0", build="7fec0cb05341",
                           protocols=(1,), capabilities=capabilities, pid=2973, socket=SOCKET)
        self.protocol = 1
        self.requests: list[tuple[str, dict[str, Any], float]] = []
        self.scripts: dict[str, deque[Reply]] = {}
        self.defaults: dict[str, Reply] = {
            "tap": {"accepted": True},
            "swipe": {"accepted": True, "moves": 38},
            "key": {"accepted": True},
            "text": {"accepted": True, "method": "direct"},
            "shutdown": {},
            "resync": {"seq": 0},
        }
        self.sink: Callable[[Any], None] | None = None
        self.closed = False
        self._lock = threading.Lock()

    def script(self, method: str, *replies: Reply) -> None:
        self.scripts.setdefault(method, deque()).extend(replies)

    def always(self, method: str, reply: Reply) -> None:
        self.defaults[method] = reply

    def request(self, method: str, params: Any = None, timeout: float = 5.0) -> dict[str, Any]:
        params = dict(params or {})
        with self._lock:
            self.requests.append((method, params, timeout))
            queue = self.scripts.get(method)
            reply = queue.popleft() if queue else self.defaults.get(method)
        if reply is None:
            raise AssertionError(f"unscripted request {method}")
        if isinstance(reply, Exception):
            raise reply
        if callable(reply):
            return reply(params)
        return reply

    def request_raw(self, method: str, params: Any = None, timeout: float = 5.0) -> bytes:
        """The scripted reply as the JSON bytes a frame would carry (a snapshot's typed decode)."""
        return encode_json(self.request(method, params, timeout))

    def sent(self, method: str) -> list[dict[str, Any]]:
        return [params for m, params, _ in self.requests if m == method]

    def timeouts(self, method: str) -> list[float]:
        return [t for m, _, t in self.requests if m == method]

    def set_sink(self, sink: Callable[[Any], None] | None) -> None:
        self.sink = sink

    def emit(self, event: Any) -> None:
        assert self.sink is not None, "the session set no sink"
        self.sink(event)

    def close(self) -> None:
        self.closed = True


@dataclass
class Record:
    serial: str = "emulator-5554"
    socket: str = SOCKET
    pid: int = 2973
    token: str = "0" * 32
    version: str = "0.1.0"
    protocol: int = 1
    build: str = "7fec0cb05341"


class FakeDevice:
    def __init__(self, density_output: str = "Physical density: 420\n") -> None:
        self.density_output = density_output
        self.commands: list[str] = []

    def shell(self, cmd: str) -> Any:
        self.commands.append(cmd)
        return _Output(self.density_output)


@dataclass
class _Output:
    out: str
    exit_code: int = 0

    def text(self) -> str:
        return self.out


@dataclass
class FakeDeployer:
    device: FakeDevice


@dataclass
class FakeAttached:
    connection: FakeConnection = field(default_factory=FakeConnection)
    outcome: Any = field(default_factory=Launched)
    record: Record = field(default_factory=Record)
    device: FakeDevice = field(default_factory=FakeDevice)
    stops: int = 0

    @property
    def deployer(self) -> FakeDeployer:
        """The deployer that attached it, as `agent.Attached` has one: on this device."""
        return FakeDeployer(self.device)

    def stop(self) -> None:
        self.stops += 1
        self.connection.request("shutdown", {}, 3.0)
        self.connection.close()


def reused() -> Reused:
    return Reused()


# --- the emulator controller ---------------------------------------------------------------------


def rgb_frame(width: int = 540, height: int = 1200, color: tuple[int, int, int] = (10, 20, 30), *,
              seq: int = 0, timestamp_us: int = 0, rotation: int = 0, received_at: float = 0.0,
              status_color: tuple[int, int, int] | None = None) -> Frame:
    data = bytearray(bytes(color) * (width * height))
    if status_color is not None:
        rows = -(-height * 6 // 100)
        data[: rows * width * 3] = bytes(status_color) * (rows * width)
    return Frame(width=width, height=height, data=bytes(data), seq=seq, timestamp_us=timestamp_us,
                 rotation=rotation, received_at=received_at)


class FakeStream:
    def __init__(self, frames: list[Any]) -> None:
        self.frames = deque(frames)
        self.closed = False
        self.cond = threading.Condition()

    def next(self, timeout: float) -> Any:
        with self.cond:
            if not self.frames:
                self.cond.wait(min(timeout, 0.05))
                if self.closed:
                    raise Closed("the frame stream ended")
                return None
            item = self.frames.popleft()
        if isinstance(item, Exception):
            raise item
        return item

    def push(self, item: Any) -> None:
        """A frame (or an error) for the reader, once the test wants it to arrive."""
        with self.cond:
            self.frames.append(item)
            self.cond.notify_all()

    def close(self) -> None:
        with self.cond:
            self.closed = True
            self.cond.notify_all()


@dataclass
class FakeHardware:
    width: int = 1080
    height: int = 2400
    density: int = 420
    keyboard: bool = False


class FakeController:
    def __init__(self, *, keyboard: bool = False, fail_at_touch: int | None = None,
                 streams: list[list[Any]] | None = None) -> None:
        self.endpoint = Endpoint.at(8554, serial="emulator-5554")
        self.hardware = FakeHardware(keyboard=keyboard)
        self.touches: list[tuple[int, int, bool]] = []
        self.taps: list[tuple[int, int]] = []
        self.streamed: list[list[list[tuple[int, int, bool]]]] = []
        self.paced: list[list[tuple[float, list[tuple[int, int, bool, int]]]]] = []
        self.fail_at_touch = fail_at_touch
        self.streams_to_give = deque(streams or [])
        self.subscriptions: list[int] = []
        self.given: list[FakeStream] = []
        self.closed = False

    @property
    def keys_supported(self) -> bool:
        return self.hardware.keyboard

    def touch(self, x: int, y: int, pressed: bool, identifier: int = 0) -> None:
        self._check("sendTouch")
        self.touches.append((x, y, pressed))

    def tap(self, x: int, y: int, identifier: int = 0) -> None:
        """A press and its lift in one streamInputEvent call (both recorded as touches)."""
        self._check("streamInputEvent")
        self.taps.append((x, y))
        self.touches += [(x, y, True), (x, y, False)]

    def touch_frames(self, frames: Sequence[Sequence[tuple[int, int, bool, int]]]) -> None:
        """Input frames in one streamInputEvent call (their touches recorded as touches too)."""
        self._check("streamInputEvent")
        self.streamed.append([[(x, y, pressed) for x, y, pressed, _ in frame] for frame in frames])
        self.touches += [(x, y, pressed) for frame in frames for x, y, pressed, _ in frame]

    def paced_frames(self, frames: Sequence[tuple[float, Sequence[tuple[int, int, bool, int]]]]) -> None:
        """Input frames in one paced streamInputEvent call (their times recorded in `paced`)."""
        self._check("streamInputEvent")
        self.paced.append([(at, list(contacts)) for at, contacts in frames])
        self.touches += [(x, y, pressed) for _, contacts in frames for x, y, pressed, _ in contacts]

    def _check(self, call: str) -> None:
        if self.fail_at_touch is not None and len(self.touches) == self.fail_at_touch:
            from pytest_mobile_agent.errors import ControllerError

            raise ControllerError(f"{call} failed: UNAVAILABLE: connection reset", code="UNAVAILABLE")

    def stream(self, width: int = 540) -> FakeStream:
        self.subscriptions.append(width)
        frames = self.streams_to_give.popleft() if self.streams_to_give else []
        stream = FakeStream(frames)
        self.given.append(stream)
        return stream

    def close(self) -> None:
        self.closed = True
