"""The screen's gestures of several fingers: pinch, rotate, double tap, two-finger tap, drag and any
gesture of finger paths. `Mirror` has them (it inherits `GestureActions`).

Each one checks its arguments before any input (InvalidArgument: a scale of 0 or less, no path, a
path outside the display, more than 10 fingers), waits for its element to be actionable as `tap`
does (mirror/actionable.py; without an element, pinch, rotate and two-finger tap act on the middle
of the display), is a step of the trace (`steps.recorded`) and returns the input's `Ack`. The
fingers' paths are made in mirror/gesture_paths.py; the input goes through the controller or the
agent (session/multitouch.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pytest_mobile_agent.arguments import check_number, check_timeout
from pytest_mobile_agent.errors import InvalidArgument
from pytest_mobile_agent.mirror import gesture_paths
from pytest_mobile_agent.mirror.element import Element
from pytest_mobile_agent.mirror.gesture_paths import Box, FingerPath
from pytest_mobile_agent.mirror.steps import recorded
from pytest_mobile_agent.mirror.vocabulary import Criteria, Unpack

if TYPE_CHECKING:
    from collections.abc import Callable

    from pytest_mobile_agent.mirror.replica import View
    from pytest_mobile_agent.mirror.steps import Steps
    from pytest_mobile_agent.session.backends import Ack, Backend

DEFAULT_DENSITY = 420
"""The Pixel AVDs' density, for a snapshot that names none."""

class GestureActions:
    """The gestures of `Mirror` (module doc)."""

    if TYPE_CHECKING:
        backend: Backend
        steps: Steps

        def _target(self, element: Element | None, criteria: Mapping[str, Any], timeout: float | None) -> Element: ...

        def _touchable(self, element: Element) -> tuple[int, int, int, int]: ...

        def _input(self, send: Callable[[], Ack]) -> Ack: ...

        def _view(self, deadline: float | None = None) -> View: ...

    @recorded("pinch")
    def pinch(self, element: Element | None = None, *, scale: float, duration: float = 0.4,
              timeout: float | None = None, **criteria: Unpack[Criteria]) -> Ack:
        """Two fingers moving apart (`scale` > 1) or together (< 1) on the element, or the first
        match of the criteria, or the middle of the display: the distance between them, from where
        the app's scale detector begins, changes by `scale` over `duration` seconds."""
        scale = check_number("scale", scale)
        if not scale > 0:
            raise InvalidArgument(f"pinch's scale is the factor the fingers' distance changes by, above 0 "
                                  f"(0.5 pinches in to half, 2 out to double), not {scale:g}")
        duration = check_timeout("duration", duration)
        box, density = self._area(element, criteria, timeout)
        return self._fingers(gesture_paths.pinch(box, scale, duration, density))

    @recorded("rotate")
    def rotate(self, element: Element | None = None, *, degrees: float, duration: float = 0.5,
               timeout: float | None = None, **criteria: Unpack[Criteria]) -> Ack:
        """Two fingers turning `degrees` (clockwise on the screen when positive) around the middle of
        the element, or of the first match, or of the display, over `duration` seconds."""
        degrees = check_number("degrees", degrees)
        duration = check_timeout("duration", duration)
        box, density = self._area(element, criteria, timeout)
        return self._fingers(gesture_paths.rotate(box, degrees, duration, density))

    @recorded("double_tap")
    def double_tap(self, element: Element | None = None, *, timeout: float | None = None,
                   **criteria: Unpack[Criteria]) -> Ack:
        """Two taps on the centre of the element, or of the first match of the criteria, the second
        within the platform's double-tap timeout, once it is actionable (as `tap`)."""
        x, y = self._middle(self._touchable(self._target(element, criteria, timeout)))
        return self._fingers(gesture_paths.double_tap(x, y))

    @recorded("two_finger_tap")
    def two_finger_tap(self, element: Element | None = None, *, timeout: float | None = None,
                       **criteria: Unpack[Criteria]) -> Ack:
        """Two fingers down and up together on the element, or the first match, or the display."""
        box, density = self._area(element, criteria, timeout)
        return self._fingers(gesture_paths.two_finger_tap(box, density))

    @recorded("drag")
    def drag(self, source: Element | tuple[float, float], target: Element | tuple[float, float], *,
             hold: float = 0.6, duration: float = 0.5, timeout: float | None = None) -> Ack:
        """Press the source (an element, once actionable, or a point), hold it `hold` seconds (past
        the long-press timeout, which starts a list's reorder or a pin's move), move to the target
        (an element's centre or a point) over `duration` seconds, and release there."""
        hold, duration = check_timeout("hold", hold), check_timeout("duration", duration)
        start, end = self._point(source, timeout), self._point(target, timeout)
        return self._fingers(gesture_paths.drag(start, end, hold, duration))

    @recorded("gesture")
    def gesture(self, paths: Sequence[Sequence[Sequence[float]]]) -> Ack:
        """Any gesture: one path per finger (10 at most), each a list of points (x, y, t): physical
        pixels on the display and seconds from the gesture's start. A finger goes down at its first
        point, moves through the others and lifts at its last, as W3C pointer actions do."""
        return self._fingers(paths)

    # --- helpers ---------------------------------------------------------------------------------

    def _fingers(self, paths: Sequence[Sequence[Sequence[float]]]) -> Ack:
        display = self._view().snapshot.display
        checked: list[FingerPath] = gesture_paths.check_paths(paths, display.width, display.height)
        return self._input(lambda: self.backend.input.gesture(checked))

    def _area(self, element: Element | None, criteria: Mapping[str, Any],
              timeout: float | None) -> tuple[Box, int]:
        """Where a gesture acts: the element's touchable part once it is actionable, or the display."""
        if element is None and not criteria:
            display = self._view().snapshot.display
            if display.width <= 0 or display.height <= 0:
                raise InvalidArgument("the display's size is unknown: give the element to act on")
            box: Box = (0.0, 0.0, float(display.width), float(display.height))
        else:
            left, top, right, bottom = self._touchable(self._target(element, criteria, timeout))
            box = (float(left), float(top), float(right), float(bottom))
        return box, self._view().snapshot.display.density or DEFAULT_DENSITY

    def _point(self, where: Element | tuple[float, float], timeout: float | None) -> tuple[float, float]:
        if isinstance(where, Element):
            return self._middle(self._touchable(self._target(where, {}, timeout)))
        if isinstance(where, (str, bytes)) or not isinstance(where, Sequence) or len(where) != 2:
            raise InvalidArgument(f"a point is (x, y) or an element, not {where!r}")
        return check_number("x", where[0]), check_number("y", where[1])

    @staticmethod
    def _middle(bounds: tuple[int, int, int, int]) -> tuple[float, float]:
        left, top, right, bottom = bounds
        return (left + right) / 2, (top + bottom) / 2
