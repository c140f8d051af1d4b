"""Input: taps, long presses, swipes, keys and text, in physical pixels, to the agent or the controller.

Everything goes to the agent with a 5 s deadline plus the gesture's duration. With a controller,
taps, long presses and swipes go through it instead (the seed's fast path); keys and text stay
with the agent.

A tap must never become a long press. A tap through the controller is one streamInputEvent call
carrying the press and the lift as two TouchEvents, written one after the other with no answer
waited for between them (`emulator.Controller.tap`): the emulator hands each to its TouchEventSender
as it reads it, each one input frame on the guest, so the press lasts as long as the emulator takes
to read two messages that travel together, not as long as this host takes between two calls. Two
sendTouch calls held the press for the host's round trip and whatever stalled it between them:
under a CPU quota that was 601 to 807 ms, a long press to the app. One sendTouch carrying both is
no tap at all: the emulator makes one frame of it, whose slot ends released, and Android sees no
contact (`emulator.Controller.tap` cites the sources).

A long press goes down, is held `hold` seconds from the touch-down, and lifts, as two sendTouch
calls: a stall only makes it longer. A swipe has the tap's hazard at its start: a pointer still past
the long-press timeout is a long press, and the drag after it is no swipe. So its touch-down and the
moves that take it past the touch slop (8 dp) go in one streamInputEvent call, like a tap's press
and lift; the later moves go one sendTouch each, every 8 ms along the line (each at its own time from
the touch-down, not 8 ms after the previous one's answer), and a resting release rests 60 ms from the
last move's answer (so the emulator, which handled that move before answering, sees the pointer still
however late the moves went out) before its one-pixel move and the lift. Whatever fails after the
touch-down, the pointer is lifted (best effort), so it never stays pressed for the next user of the
device.

A controller that fails before a touch lands hands that input to the agent, and from then on all
input goes through the agent. Input the controller injected is foreign to the agent, which the tree
source is told (its next read waits and evicts).
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_mobile_agent.errors import AgentError, ControllerError, MobileAgentError
from pytest_mobile_agent.session import multitouch
from pytest_mobile_agent.session.backends import Ack, Release, TextMethod
from pytest_mobile_agent.session.tree import AgentTree, Requester

log = logging.getLogger("pytest_mobile_agent.session")

INPUT_TIMEOUT = 5.0
MOVE_INTERVAL = 0.008
REST = 0.060
"""A resting release rests this long: the velocity tracker takes a pointer still for 40 ms as stopped."""
TOUCH_SLOP_DP = 8
"""ViewConfiguration.TOUCH_SLOP: a pointer moved further than this is dragging, no long press."""
DEFAULT_DENSITY = 420
"""The Pixel 7 AVD's density, for an emulator whose status names none."""


#: gRPC status codes of a call the emulator refused before reading any of it: nothing landed
NOT_LANDED_CODES = frozenset({"UNAVAILABLE", "UNAUTHENTICATED", "PERMISSION_DENIED", "UNIMPLEMENTED"})


class TouchController(Protocol):
    """What input needs of `emulator.Controller`."""

    def touch(self, x: int, y: int, pressed: bool, identifier: int = 0) -> None: ...

    def tap(self, x: int, y: int, identifier: int = 0) -> None: ...

    def touch_frames(self, frames: Sequence[Sequence[tuple[int, int, bool, int]]]) -> None: ...

    def paced_frames(self, frames: Sequence[tuple[float, Sequence[tuple[int, int, bool, int]]]]) -> None: ...


@dataclass(frozen=True)
class InputCounts:
    """The requests sent to the agent, and the contacts started through the controller (a gesture
    of several fingers starts one per finger)."""

    agent: int
    controller: int


class _NotLanded(Exception):
    """The controller failed before the touch reached the screen: the agent can take the input."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


class InputRouter:
    """The InputBackend: coordinates in physical pixels, as the snapshot gives them, sent out
    rounded to whole pixels (the agent's and the controller's unit)."""

    def __init__(
        self,
        connection: Requester,
        tree: AgentTree,
        controller: TouchController | None = None,
        *,
        on_controller_failure: Callable[[BaseException], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        capabilities: Sequence[str] = (multitouch.MULTI_TOUCH_CAPABILITY,),
    ) -> None:
        self._capabilities = tuple(capabilities)
        self._connection = connection
        self._tree = tree
        self._controller = controller
        self._on_failure = on_controller_failure
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._agent_inputs = 0
        self._controller_inputs = 0
        self.controller_failure: BaseException | None = None

    @property
    def counts(self) -> InputCounts:
        return InputCounts(agent=self._agent_inputs, controller=self._controller_inputs)

    @property
    def via_controller(self) -> bool:
        return self._controller is not None and self.controller_failure is None

    # --- the InputBackend ------------------------------------------------------------------------

    def tap(self, x: float, y: float) -> Ack:
        """Through the controller when there is one (press and lift in one call: the module's doc),
        else through the agent, which injects both on the device."""
        px, py = self._px(x), self._px(y)
        return self._touch(lambda c: self._controller_tap(c, px, py), lambda: self._agent_tap(px, py, 0.0))

    def long_press(self, x: float, y: float, hold: float) -> Ack:
        px, py, hold = self._px(x), self._px(y), max(0.0, hold)
        return self._touch(lambda c: self._controller_long_press(c, px, py, hold),
                           lambda: self._agent_tap(px, py, hold))

    def swipe(
        self,
        x1: float,
        y1: float,
        x2: float,
        y2: float,
        duration: float,
        release: Release = Release.MOVING,
    ) -> Ack:
        line = (self._px(x1), self._px(y1), self._px(x2), self._px(y2))
        duration = max(0.0, duration)
        resting = release is Release.RESTING
        return self._touch(
            lambda c: self._controller_swipe(c, line, duration, resting),
            lambda: self._agent_swipe(line, duration, resting),
        )

    def gesture(self, paths: Sequence[Sequence[tuple[float, float, float]]]) -> Ack:
        """Several fingers' paths (x, y, t seconds), through the controller when there is one, else
        the agent (session/multitouch.py)."""
        frames = multitouch.contact_frames(paths)
        duration = max(p[-1][2] for p in paths) - min(p[0][2] for p in paths)

        def on_controller(controller: TouchController) -> Ack:
            multitouch.ControllerGesture(controller, clock=self._clock, sleep=self._sleep).send(frames, _not_landed)
            return Ack(accepted=True, path="controller")

        def on_agent() -> Ack:
            result = multitouch.agent_gesture(self._agent, self._capabilities, paths, INPUT_TIMEOUT + duration)
            return Ack(accepted=bool(result.get("accepted", False)), path="agent")

        return self._touch(on_controller, on_agent, contacts=len(paths))

    def key(self, code: int, meta: int = 0) -> Ack:
        result = self._agent("key", {"code": int(code), "meta": int(meta)}, INPUT_TIMEOUT)
        return Ack(accepted=bool(result.get("accepted", False)), path="agent")

    def text(self, text: str, node: int | None = None, method: TextMethod = "auto") -> Ack:
        if node is None:
            node = self._focused_node()
        params = {"node": node, "text": text, "method": method}
        result = self._agent("text", params, INPUT_TIMEOUT)
        return Ack(accepted=bool(result.get("accepted", False)), path="agent", method=result.get("method"))

    def ime_enter(self, node: int | None = None) -> Ack | None:
        """The agent's `ime_enter` (docs/protocol.md); None when the field does not offer
        ACTION_IME_ENTER or the agent answers `unknown_method` (one before the method)."""
        try:
            result = self._agent("ime_enter", {"node": node}, INPUT_TIMEOUT)
        except AgentError as exc:
            if exc.code == "unknown_method":
                return None
            raise
        if not result.get("offered", False):
            return None
        return Ack(accepted=bool(result.get("accepted", False)), path="agent")

    # --- routing ---------------------------------------------------------------------------------

    def _touch(self, on_controller: Callable[[TouchController], Ack], on_agent: Callable[[], Ack],
               contacts: int = 1) -> Ack:
        """`contacts`: how many contacts the input starts on the touchscreen through the controller
        (the foreign-input watch counts them: plugin/foreign_input.py)."""
        controller = self._controller if self.controller_failure is None else None
        if controller is not None:
            try:
                ack = on_controller(controller)
            except _NotLanded as exc:
                self._fail(exc.cause)
            except MobileAgentError as exc:
                self._fail(exc)
                raise
            else:
                with self._lock:
                    self._controller_inputs += contacts
                self._tree.note_foreign_input(self._clock())
                return ack
        return on_agent()

    def _fail(self, exc: BaseException) -> None:
        log.warning("the emulator controller failed, input moves to the agent: %s", exc)
        self.controller_failure = exc
        if self._on_failure is not None:
            self._on_failure(exc)

    def _agent(self, method: str, params: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        result = self._connection.request(method, params, timeout)
        with self._lock:
            self._agent_inputs += 1
        return result

    # --- the agent's gestures --------------------------------------------------------------------

    def _agent_tap(self, x: int, y: int, hold: float) -> Ack:
        hold_ms = round(hold * 1000)
        result = self._agent("tap", {"x": x, "y": y, "hold_ms": hold_ms}, INPUT_TIMEOUT + hold)
        return Ack(accepted=bool(result.get("accepted", False)), path="agent")

    def _agent_swipe(self, line: tuple[int, int, int, int], duration: float, resting: bool) -> Ack:
        x1, y1, x2, y2 = line
        params = {
            "x1": x1,
            "y1": y1,
            "x2": x2,
            "y2": y2,
            "duration_ms": round(duration * 1000),
            "rest_ms": round(REST * 1000) if resting else 0,
        }
        timeout = INPUT_TIMEOUT + duration + (REST if resting else 0.0)
        result = self._agent("swipe", params, timeout)
        moves = result.get("moves")
        return Ack(
            accepted=bool(result.get("accepted", False)), path="agent", moves=moves if isinstance(moves, int) else None
        )

    # --- the controller's gestures ---------------------------------------------------------------

    def _controller_tap(self, controller: TouchController, x: int, y: int) -> Ack:
        """A press and its lift in one streamInputEvent call. A call the emulator refused before
        reading it landed nothing; any other failure may have left the pointer down: lifted."""
        _streamed(controller, lambda: controller.tap(x, y), (x, y))
        return Ack(accepted=True, path="controller")

    def _controller_long_press(self, controller: TouchController, x: int, y: int, hold: float) -> Ack:
        """A long press: down, held `hold` seconds from the touch-down, up (lifted whatever fails)."""
        _land(controller, x, y)
        down_at = self._clock()
        with self._lifting(controller, lambda: (x, y)):
            self._sleep_until(down_at + hold)
        return Ack(accepted=True, path="controller")

    def _controller_swipe(
        self, controller: TouchController, line: tuple[int, int, int, int], duration: float, resting: bool
    ) -> Ack:
        points = swipe_path(line, duration)
        opening = len(past_slop((line[0], line[1]), points, touch_slop(controller)))
        at = [*points[opening - 1]]
        down_at = self._clock()
        _open(controller, line[0], line[1], points[:opening])
        with self._lifting(controller, lambda: (at[0], at[1])):
            for i, (x, y) in enumerate(points[opening:], opening + 1):
                self._sleep_until(down_at + i * MOVE_INTERVAL)
                _move(controller, x, y)
                at[:] = [x, y]
            if resting:
                # from the last move's answer: a host behind its schedule must still leave the pointer still
                self._sleep_until(max(down_at + len(points) * MOVE_INTERVAL, self._clock()) + REST)
                dx, dy = one_pixel_on(line)
                at[:] = [at[0] + dx, at[1] + dy]
                _move(controller, at[0], at[1])
        return Ack(accepted=True, path="controller", moves=len(points) + (1 if resting else 0))

    @contextlib.contextmanager
    def _lifting(self, controller: TouchController, where: Callable[[], tuple[int, int]]) -> Iterator[None]:
        """Lift the pointer at the end, where it is then; after a failure too, best effort (the
        failure is what the caller hears of)."""
        try:
            yield
        except BaseException:
            x, y = where()
            try:
                controller.touch(x, y, False)
            except Exception as exc:
                log.warning("lifting the pointer after a failed gesture failed too: %s", exc)
            raise
        x, y = where()
        _lift(controller, x, y)

    def _sleep_until(self, when: float) -> None:
        left = when - self._clock()
        if left > 0:
            self._sleep(left)

    # --- helpers ---------------------------------------------------------------------------------

    @staticmethod
    def _px(pixels: float) -> int:
        """A coordinate as the wire takes it: a whole pixel."""
        return round(pixels)

    def _focused_node(self) -> int | None:
        latest = self._tree.latest
        if latest is None:
            return None
        for window in latest.windows:
            for node in window.nodes:
                if node.focused:
                    return node.id
        return None


def swipe_path(line: tuple[int, int, int, int], duration: float) -> list[tuple[int, int]]:
    """The positions a swipe moves through after going down: one every 8 ms, at least one."""
    x1, y1, x2, y2 = line
    steps = max(1, round(duration / MOVE_INTERVAL))
    return [(round(x1 + (x2 - x1) * i / steps), round(y1 + (y2 - y1) * i / steps)) for i in range(1, steps + 1)]


def one_pixel_on(line: tuple[int, int, int, int]) -> tuple[int, int]:
    """One pixel further in the swipe's direction (a repeated position changes nothing)."""
    dx, dy = line[2] - line[0], line[3] - line[1]
    length = math.hypot(dx, dy)
    if length == 0:
        return (0, 1)
    step = (round(dx / length), round(dy / length))
    return step if step != (0, 0) else ((1 if dx > 0 else -1), 0)


def touch_slop(controller: TouchController) -> int:
    """Android's touch slop on the controller's display, in pixels: 8 dp
    (ViewConfiguration.TOUCH_SLOP; the emulator's default density when the AVD does not say)."""
    density = getattr(getattr(controller, "hardware", None), "density", 0) or DEFAULT_DENSITY
    return round(TOUCH_SLOP_DP * density / 160)


def past_slop(start: tuple[int, int], points: list[tuple[int, int]], slop: int) -> list[tuple[int, int]]:
    """The moves up to the first one past the touch slop from `start` (all of them when none is)."""
    for i, (x, y) in enumerate(points):
        if abs(x - start[0]) > slop or abs(y - start[1]) > slop:
            return points[: i + 1]
    return points


def _open(controller: TouchController, x: int, y: int, moves: list[tuple[int, int]]) -> None:
    """The swipe's touch-down and the moves that take it past the touch slop, in one call: a
    pointer still past the long-press timeout is a long press (its drag no swipe), so no stall of
    this host may come between them."""
    frames = [[(x, y, True, 0)]] + [[(mx, my, True, 0)] for mx, my in moves]
    _streamed(controller, lambda: controller.touch_frames(frames), moves[-1])


def _streamed(controller: TouchController, send: Callable[[], None], lift_at: tuple[int, int]) -> None:
    """One streamInputEvent call. A call the emulator refused before reading any of it landed
    nothing (the agent may take the input); any other failure may have left the pointer down:
    lifted where it may be, and reported."""
    try:
        send()
    except Exception as exc:
        if getattr(exc, "code", None) in NOT_LANDED_CODES:
            raise _NotLanded(exc) from exc
        _lift_after_failure(controller, *lift_at)
        if isinstance(exc, MobileAgentError):
            raise
        raise ControllerError(f"emulator controller touch failed: {exc}") from exc


def _not_landed(exc: BaseException) -> BaseException | None:
    """A call the emulator refused before reading it landed nothing: the agent may take the input."""
    return _NotLanded(exc) if getattr(exc, "code", None) in NOT_LANDED_CODES else None


def _lift_after_failure(controller: TouchController, x: int, y: int) -> None:
    try:
        controller.touch(x, y, False)
    except Exception as exc:
        log.warning("lifting the pointer after a failed tap failed too: %s", exc)


def _land(controller: TouchController, x: int, y: int) -> None:
    try:
        controller.touch(x, y, True)
    except Exception as exc:  # grpc errors, ControllerError, a closed channel
        raise _NotLanded(exc) from exc


def _move(controller: TouchController, x: int, y: int) -> None:
    _checked(controller, x, y, True)


def _lift(controller: TouchController, x: int, y: int) -> None:
    _checked(controller, x, y, False)


def _checked(controller: TouchController, x: int, y: int, pressed: bool) -> None:
    try:
        controller.touch(x, y, pressed)
    except MobileAgentError:
        raise
    except Exception as exc:
        raise ControllerError(f"emulator controller touch failed after the touch landed: {exc}") from exc
