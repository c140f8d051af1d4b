"""Where the UI model's MotionEvents go: the node that takes the gesture, and the log of what the app saw.

ViewGroup.dispatchTouchEvent (frameworks/base, core/java/android/view/ViewGroup.java, Android 13-16)
picks the touch target on ACTION_DOWN and sends it every later event of the gesture, every pointer
included (a view that does not split touches gets them all). Here the target is the deepest node
under the DOWN with an `on_motion` handler (the zoomable picture, the reorderable list: ui/
gesture_screen.py); nodes without one keep the single-pointer rules of ui/touch.py, which the UI
model applies to the gesture's first pointer.

`log` keeps the MotionEvents the app was handed, in order, once a test asks for them (`keep_log`:
the last `LOG_SIZE`), so it can compare a gesture's stream with what InputDispatcher accepts
(pointer ids, action masks, times); a device nobody asks keeps none (a long run's taps would fill it).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from pytest_mobile_agent.virtual.ui.node import Node
from pytest_mobile_agent.virtual.ui.pointers import ACTION_DOWN, ACTION_UP, MotionEvent, PointerSet

LOG_SIZE = 4096

#: the node a gesture starting at (x, y) goes to, if any takes MotionEvents
TargetFinder = Callable[[int, int], "Node | None"]


class MotionDispatch:
    """The gesture's target and the app's MotionEvent log; single-pointer touches (the touch path
    with no pointer ids: `input tap`, the agent's taps and swipes) become MotionEvents of pointer 0."""

    def __init__(self, find_target: TargetFinder) -> None:
        self.find_target = find_target
        self.target: Node | None = None
        self.log: deque[MotionEvent] = deque(maxlen=0)
        self._single = PointerSet()

    def keep_log(self, size: int = LOG_SIZE) -> None:
        """From now on keep the last `size` MotionEvents the app is handed in `log`."""
        self.log = deque(self.log, maxlen=size)

    def single(self, x: int, y: int, pressed: bool, t: float) -> None:
        """One single-pointer touch report as the MotionEvent it is."""
        pointers = self._single
        if pressed and not pointers.down:
            self.feed(pointers.press(0, x, y, t))
        elif pressed:
            event = pointers.move({0: (x, y)}, t)
            if event is not None:
                self.feed(event)
        elif pointers.down:
            pointers.move({0: (x, y)}, t)
            self.feed(pointers.lift(0, t))

    def feed(self, event: MotionEvent) -> None:
        """The app gets the event: logged, and handed to the gesture's target."""
        self.log.append(event)
        if event.masked == ACTION_DOWN:
            _, x, y = event.pointers[0]
            self.target = self.find_target(x, y)
        target = self.target
        if target is not None and target.on_motion is not None:
            target.on_motion(event)
        if event.masked == ACTION_UP:
            self.target = None
