"""The mirror: a replica of the device's windows kept current from the session's backends, and the
API an app's tests use.

    screen = Mirror(session.backend())
    screen.find(text="Login").tap()
    screen.wait_for(text="Welcome", timeout=5)
    print(screen.dump())

How the replica stays current (design D8): an event reads again (the agent reads every window, from
its cache where its events keep it current); after an action the read takes the agent's idle bound;
while a wait or a settle goes on, the replica is read again every second, and without frames the
mirror probes the bounds of a sample of nodes every 100 ms (backing off while probes go
unanswered) and reads again, evicting their windows, when any moved; a settle's quiet then counts
only once a read or probe begun after its end was answered (an unanswered probe saw nothing). A warm
snapshot, with nothing new on the event stream, is served from the replica with no device read.

Frames are coalesced (issue 19): a frame whose hash changed opens a burst; the screen is read
afresh once the frames stayed the same for FRAME_QUIET (a settled screen, read within 150 ms of
going still), and while they keep changing (a spinner, shimmer, video) at most every
FRAME_READ_INTERVAL from the agent's cache, without emptying it. Quiet is decided on the host's
clock when each frame arrived, never on the emulator's timestamp: a skewed or lagging clock must
not make a moving screen look still. Reads and probes during a wait take the time it has left
(plus READ_GRACE), not the tree's whole deadline.

After a gesture through the emulator's controller, with frames coming, the next look at the screen
waits until the frames stayed the same FRAME_QUIET past the gesture's end and their last change
(STILL_WAIT at most) and reads once, afresh, without the agent's idle wait (which has no input of
its own to end on); a change that read finds is dated at the frames' last change, so a settle's
quiet counts from when the screen stopped, not from the read that caught up with it (issue 16).

A mirror is driven from one thread (the test's); the backends deliver events from theirs.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, get_args

from pytest_mobile_agent.arguments import check_number, check_timeout, check_unicode
from pytest_mobile_agent.errors import (
    Disconnected,
    InvalidArgument,
    InvalidSelector,
    MobileAgentError,
    NoMatch,
    StaleElement,
    Timeout,
    WaitTimeout,
    hide_our_frames,
)
from pytest_mobile_agent.mirror.actionable import Actionable
from pytest_mobile_agent.mirror.blockers import Fronts, blockers
from pytest_mobile_agent.mirror.dump import dump_view
from pytest_mobile_agent.mirror.element import Element
from pytest_mobile_agent.mirror.freshness import FRAME_QUIET as FRAME_QUIET  # re-exported: tests time by it
from pytest_mobile_agent.mirror.freshness import STILL_WAIT, Freshness
from pytest_mobile_agent.mirror.gesture_actions import GestureActions
from pytest_mobile_agent.mirror.keyboard import Keyboard, keyboard_window
from pytest_mobile_agent.mirror.keys import key_code
from pytest_mobile_agent.mirror.receives_touch import covered_by
from pytest_mobile_agent.mirror.replica import Entry, Replica, View
from pytest_mobile_agent.mirror.selectors import Selector, describe_entry, nearest
from pytest_mobile_agent.mirror.steps import Steps, recorded
from pytest_mobile_agent.mirror.toasts import TOAST_POLL, ToastLog, ToastQuery
from pytest_mobile_agent.mirror.unique import Locator, unique_locator
from pytest_mobile_agent.mirror.visibility import touchable_part, visible_part, where
from pytest_mobile_agent.mirror.vocabulary import Criteria, Direction, FieldCriteria, Unpack
from pytest_mobile_agent.mirror.watchers import Watcher, Watchers, builtin_criteria
from pytest_mobile_agent.session.backends import (
    Ack,
    Backend,
    Bounds,
    Disconnection,
    EventsLost,
    FrameEvent,
    ImageFormat,
    OutOfSync,
    ProtocolEvent,
    ReadReason,
    Release,
    Resynced,
    Screenshot,
    SessionEvent,
    TextMethod,
    Toast,
)

log = logging.getLogger("pytest_mobile_agent.mirror")
__tracebackhide__ = hide_our_frames  # pytest reports our failures at the test's line, not in these frames

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from pytest_mobile_agent.mirror.a11y.findings import Finding
    from pytest_mobile_agent.mirror.snapshots import SnapshotSettings
    from pytest_mobile_agent.web.content import WebContent, WebTarget

T = TypeVar("T")

DIRECTIONS: dict[Direction, tuple[int, int]] = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
assert set(DIRECTIONS) == set(get_args(Direction))
OPPOSITE: dict[Direction, Direction] = {"down": "up", "up": "down", "right": "left", "left": "right"}
DUMP_LINES_IN_ERRORS = 80
RELOOK = 0.01
"""After a look that found an action's element moving, the next look this soon (it reads again)."""
inf = float("inf")
SCROLL_QUIET = 0.15
SCROLL_MARGIN = 48
"""Pixels an action's scroll into view moves the content past its element's far edge (the touch
slop, 8 dp, takes some of a swipe before the content moves)."""
SCROLL_SHARE = 0.7
"""The largest share of its container's visible extent one swipe into view travels."""
READ_GRACE = 0.25
"""A read or a probe during a wait takes the time left plus this much."""


class Mirror(GestureActions):
    """The replica and the user-facing API (the `screen` fixture); its gestures of several fingers
    are mirror/gesture_actions.py's."""

    def __init__(
        self,
        backend: Backend,
        *,
        timeout: float = 5.0,
        quiet: float = 0.3,
        poll_interval: float = 1.0,
        probe_interval: float = 0.1,
        probe_limit: int = 48,
        clock: Callable[[], float] = time.monotonic,
        steps: Steps | None = None,
        action_timeout: float = 5.0,
    ) -> None:
        """`timeout` is the default of waits; `quiet` how long nothing must change for the screen to
        count as settled; `poll_interval` the read-again period while waiting; `probe_interval` and
        `probe_limit` the bounds probes without frames. `steps` records every call a test makes
        (mirror/steps.py); the app handle of the same test shares it. `action_timeout` is how long an
        action waits by default for its element to be actionable (mirror/actionable.py;
        `--android-action-timeout`)."""
        self.backend = backend
        self.steps = steps if steps is not None else Steps(clock)
        self.snapshot_settings: SnapshotSettings | None = None
        """Where `assert_snapshot` finds its baselines (the plugin sets them per test; None: ./__snapshots__)."""
        self.timeout = timeout
        self.action_timeout = check_timeout("action_timeout", action_timeout)
        self.quiet = quiet
        self.probe_limit = probe_limit
        self._clock = clock
        self._replica = Replica()
        self._freshness = Freshness(poll_interval, probe_interval)  # when to read again (mirror/freshness.py)
        self.disconnection: Disconnection | None = None
        self.web_content: Callable[[], WebContent] | None = None
        """The target's web content, opened on first use (the opener sets it: stack/opener.py)."""
        self._watchers = Watchers(self, clock)
        self._fronts = Fronts()
        self._toasts = ToastLog(backend.toasts, since=clock())
        self.keyboard = Keyboard(self)
        """The soft keyboard: shown, window, bounds, hide(), press_action() (mirror/keyboard.py)."""
        self.reads = 0
        self.probes = 0
        self.events_seen = 0

    # --- state -----------------------------------------------------------------------------------

    @property
    def poll_interval(self) -> float:
        """The read-again period while waiting."""
        return self._freshness.poll_interval

    @poll_interval.setter
    def poll_interval(self, seconds: float) -> None:
        self._freshness.poll_interval = seconds

    @property
    def probe_interval(self) -> float:
        """The bounds probes' period without frames."""
        return self._freshness.probe_interval

    @probe_interval.setter
    def probe_interval(self, seconds: float) -> None:
        self._freshness.probe_interval = seconds

    @property
    def scale(self) -> float:
        """Physical pixels per point (2.625 at 420 dpi)."""
        return self.backend.scale

    @property
    def connected(self) -> bool:
        self._pump(0.0)
        return self.disconnection is None

    def snapshot(self) -> View:
        """The replica, brought up to date: a device read only when something changed since."""
        return self._view()

    @recorded("webviews")
    def webviews(self) -> list[WebTarget]:
        """The debuggable web targets on the device (each WebView's process, Chrome, other Chromium
        browsers), each with its package and its pages (url, title, in front); web/content.py."""
        return self._web().targets()

    @recorded("web")
    def web(self, package: str | None = None, *, url_contains: str | None = None, title: str | None = None,
            timeout: float | None = None) -> Page:
        """Wait for a web page (of `package`, whose url contains `url_contains`, titled `title`) and
        return a Playwright `Page` attached to it; its calls are steps of the test. It closes with the
        test. A WebView on screen whose app serves no DevTools socket is `WebViewNotDebuggable`."""
        return self._web().page(package, url_contains=url_contains, title=title, timeout=timeout)

    def _web(self) -> WebContent:
        if self.web_content is None:
            raise InvalidArgument("this screen has no web content: open it through the opener (the `screen` "
                                  "fixture, stack.open_stack), which knows the device behind it")
        return self.web_content()

    @property
    def current_view(self) -> View | None:
        """The replica as the latest read left it, without reading (the step trace's tree of a step)."""
        return self._replica.view

    def invalidate(self) -> None:
        """Mark the replica stale: the next query reads every window afresh, whatever the event
        stream says (the device control does so after a change of the device's state that alters
        the screen: dark mode, font scale, the screen off or on, unlock)."""
        self._mark(ReadReason.POLL)

    def refresh(self, reason: ReadReason = ReadReason.POLL) -> View:
        """Read the device now, whatever the event stream says."""
        self._mark(reason)
        return self._view()

    @recorded("settle")
    def settle(self, timeout: float = 3.0, quiet: float | None = None) -> bool:
        """Wait until nothing changed for `quiet` seconds; False when the screen kept changing until
        `timeout` (a screen that never stops, such as an endless animation)."""
        timeout = check_timeout("timeout", timeout)
        quiet = self.quiet if quiet is None else check_timeout("quiet", quiet)

        def settled(_: View) -> bool:
            return self._freshness.settled(self._clock(), quiet, self._probing())

        try:
            self._until(settled, timeout, "settling", wake=lambda: self._freshness.quiet_from(quiet))
        except WaitTimeout:
            return False
        return True

    def last_change(self, wait: float = 0.0) -> float | None:
        """With the emulator's frames: when the screen last changed, as the frames and the replica saw
        it, after taking in what the event stream brings within `wait` seconds (a frame drawn a moment
        ago may still be on its way); None without frames, which alone see every pixel (a snapshot's
        one screenshot after the frames went quiet, mirror/snapshots.py)."""
        end = self._clock() + wait
        self._pump(0.0)
        while (left := end - self._clock()) > 0:
            self._pump(left)
        if not self.backend.frames.live:
            return None
        return self._freshness.last_frame_change()

    def wait_disconnected(self, timeout: float = 5.0) -> Disconnection:
        """Wait until the agent connection is reported gone (a killed agent: at once)."""
        deadline = self._clock() + timeout
        while self.disconnection is None:
            left = deadline - self._clock()
            if left <= 0:
                raise WaitTimeout("waiting for the agent to be reported disconnected", timeout)
            self._pump(left)
        return self.disconnection

    # --- queries ---------------------------------------------------------------------------------

    @recorded("find")
    def find(self, **criteria: Unpack[Criteria]) -> Element:
        """The first element matching the criteria (top-most window first, in tree order), now.

        Criteria: text, text_contains, text_matches, id, desc, desc_contains, class_name, package,
        clickable, focused, enabled, checked, selected, scrollable, editable, visible, window, within, xpath.
        Raises NoMatch, showing the nearest candidates and the tree, when nothing matches.
        """
        selector = Selector.of(criteria)
        view = self._view()
        found = selector.first(view)
        if found is None:
            raise NoMatch(
                f"no element matches {selector.describe()}",
                candidates=nearest(selector, view),
                tree=dump_view(view, max_lines=DUMP_LINES_IN_ERRORS, fold_keys=True),
            )
        return Element(self, found.ref)

    @recorded("find_all")
    def find_all(self, **criteria: Unpack[Criteria]) -> list[Element]:
        """Every element matching the criteria, now (possibly none)."""
        selector = Selector.of(criteria)
        return [Element(self, e.ref) for e in selector.select(self._view())]

    @recorded("exists")
    def exists(self, **criteria: Unpack[Criteria]) -> bool:
        return Selector.of(criteria).first(self._view()) is not None

    @recorded("wait_for")
    def wait_for(self, timeout: float | None = None, **criteria: Unpack[Criteria]) -> Element:
        """The first element matching the criteria, waiting up to `timeout` seconds (default the
        mirror's) for one to appear. Raises WaitTimeout with the nearest candidates and the tree."""
        selector = Selector.of(criteria)
        timeout = self.timeout if timeout is None else check_timeout("timeout", timeout)

        def appeared(view: View) -> Entry | None:
            return selector.first(view)

        entry = self._until(appeared, timeout, f"waiting for {selector.describe()}", selector)
        assert entry is not None  # _until returns only a truthy result
        return Element(self, entry.ref)

    @recorded("wait_gone")
    def wait_gone(self, timeout: float | None = None, **criteria: Unpack[Criteria]) -> None:
        """Wait up to `timeout` seconds until no element matches the criteria."""
        selector = Selector.of(criteria)
        timeout = self.timeout if timeout is None else check_timeout("timeout", timeout)
        self._until(
            lambda view: selector.first(view) is None, timeout, f"waiting for {selector.describe()} to go", selector
        )

    @recorded("wait_until")
    def wait_until(self, condition: Callable[[View], T | None], timeout: float | None = None,
                   what: str = "a condition") -> T:
        """Wait up to `timeout` seconds until `condition(view)` is truthy, the replica kept current
        meanwhile (events, frames, the poll, the probes); returns what it returned (never None).
        A NoMatch or StaleElement the condition raises (a `screen.find` of what is not there yet, an
        element gone) means "not yet": the wait goes on, and its timeout names the last one."""
        timeout = self.timeout if timeout is None else check_timeout("timeout", timeout)
        not_yet: list[MobileAgentError] = []

        def looking(view: View) -> T | None:
            try:
                return condition(view)
            except (NoMatch, StaleElement) as exc:
                not_yet[:] = [exc]
                return None

        try:
            result = self._until(looking, timeout, f"waiting for {what}")
        except WaitTimeout as exc:
            if not not_yet:
                raise
            last = not_yet[0]
            candidates = exc.candidates or (last.candidates if isinstance(last, NoMatch) else [])
            raise WaitTimeout(f"waiting for {what} (the condition's last look: {_first_line(last)})", timeout,
                              candidates=candidates, tree=exc.tree, context=exc.context) from None
        assert result is not None  # _until returns only a truthy result
        return result

    # --- toasts ----------------------------------------------------------------------------------

    @property
    def toasts(self) -> list[Toast]:
        """The toasts shown since this screen was made, oldest first (each a `Toast(id, text, package,
        class_name, shown_at, by_agent)`), read from the agent's buffer now (mirror/toasts.py); the
        toasts the agent caused (ClipboardService's "... pasted from your clipboard") left out."""
        return self._toasts.fetch()

    @property
    def all_toasts(self) -> list[Toast]:
        """`toasts` with the ones the agent caused (`by_agent`) too."""
        return self._toasts.fetch(include_agent=True)

    @recorded("wait_for_toast")
    def wait_for_toast(self, text: str | None = None, *, text_contains: str | None = None,
                       package: str | None = None, timeout: float | None = None,
                       include_agent: bool = False) -> Toast:
        """The first toast shown since the screen was made that matches and that no earlier
        wait_for_toast returned, waiting up to `timeout` (default the screen's) for it; WaitTimeout
        naming the toasts seen. The toasts the agent caused count only with `include_agent`."""
        if not isinstance(include_agent, bool):
            raise InvalidArgument(f"wait_for_toast: include_agent= takes a bool, not {include_agent!r}")
        query = ToastQuery(text, text_contains, package)
        timeout = self.timeout if timeout is None else check_timeout("timeout", timeout)
        deadline = self._clock() + timeout
        while True:
            self._toasts.fetch(max(0.0, deadline - self._clock()) + READ_GRACE)
            found = self._toasts.take(query, include_agent=include_agent)
            self.steps.poll(found is not None)
            if found is not None:
                self._ended_by("matched")
                return found
            left = deadline - self._clock()
            if left <= 0:
                self._ended_by("timeout")
                raise WaitTimeout(f"waiting for {query.describe()}", timeout, candidates=self._toasts.candidates())
            next_look = self._clock() + min(left, TOAST_POLL)
            while (wait := next_look - self._clock()) > 0:  # events meanwhile are taken in, not a reason to ask
                self._pump(wait)

    # --- watchers --------------------------------------------------------------------------------

    def watch(self, *, name: str | None = None, **criteria: Unpack[Criteria]) -> Watcher:
        """A watcher on the first match of the criteria: give it its reaction with `.tap()`,
        `.call(fn)` (fn(element)) or `.fail(message)`. It fires from the screen's changes before the
        test's next call and between a wait's looks (mirror/watchers.py); `name` names it in the
        trace and in errors (default: its criteria)."""
        return self._watchers.add(name, criteria)

    def watch_builtin(self, *names: str) -> list[Watcher]:
        """The built-in watchers named: `allow_permissions` or `deny_permissions` (PermissionController's
        prompt), `dismiss_anr` ("isn't responding": Wait), `dismiss_crash` ("keeps stopping": Close app;
        the crash still fails the test)."""
        if not names:
            raise InvalidArgument("watch_builtin takes the names of the built-in watchers to start")
        criteria = [(name, builtin_criteria(name)) for name in names]
        return [self._watchers.add(name, where).tap() for name, where in criteria]

    @property
    def watchers(self) -> list[Watcher]:
        """The watchers registered, in the order they are matched."""
        return self._watchers.all

    def element(self, ref: int) -> Element:
        """The element of the node with that ref (as `Element.ref` names it)."""
        return Element(self, ref)

    # --- actions ---------------------------------------------------------------------------------

    @recorded("tap")
    def tap(self, element: Element | None = None, *, timeout: float | None = None, **criteria: Unpack[Criteria]) -> Ack:
        """Tap the centre of an element, or of the first match of the criteria, once it is actionable
        (waiting up to `timeout`, default the action timeout: mirror/actionable.py)."""
        x, y = self._center(self._target(element, criteria, timeout))
        return self._input(lambda: self.backend.input.tap(x, y))

    @recorded("tap_at")
    def tap_at(self, x: float, y: float) -> Ack:
        """Tap at physical pixel (x, y), which must lie on the display (InvalidArgument naming its size
        otherwise: the platform would take the tap and nothing would happen)."""
        x, y = check_number("x", x), check_number("y", y)
        display = (self._replica.view or self._view()).snapshot.display
        if display.width > 0 and display.height > 0 and not (0 <= x < display.width and 0 <= y < display.height):
            raise InvalidArgument(f"tap_at({x:g}, {y:g}) is outside the display, which is {display.width}x"
                                  f"{display.height} now (rotation {display.rotation})")
        return self._input(lambda: self.backend.input.tap(x, y))

    @recorded("long_press")
    def long_press(self, element: Element | None = None, hold: float = 0.6, *, timeout: float | None = None,
                   **criteria: Unpack[Criteria]) -> Ack:
        """Press the centre of an element, or of the first match of the criteria, for `hold` seconds,
        once it is actionable (waiting up to `timeout`, as `tap`)."""
        hold = check_timeout("hold", hold)
        x, y = self._center(self._target(element, criteria, timeout))
        return self._input(lambda: self.backend.input.long_press(x, y, hold))

    @recorded("swipe")
    def swipe(
        self, x1: float, y1: float, x2: float, y2: float, duration: float = 0.3, resting: bool = False
    ) -> Ack:
        """Swipe from (x1, y1) to (x2, y2), physical pixels, over `duration` seconds. `resting`
        rests at the end before lifting, so the content stops where the finger left it."""
        x1, y1, x2, y2 = (check_number(n, v) for n, v in (("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2)))
        duration = check_timeout("duration", duration)
        release = Release.RESTING if resting else Release.MOVING
        return self._input(lambda: self.backend.input.swipe(x1, y1, x2, y2, duration, release))

    @recorded("swipe_within")
    def swipe_within(
        self, element: Element, direction: Direction, *, distance: float = 0.6, duration: float = 0.3,
        resting: bool = False, timeout: float | None = None,
    ) -> Ack:
        """Swipe the finger `direction` across `distance` of the element's size, centred in it, once
        the element is actionable (waiting up to `timeout`, as `tap`)."""
        if direction not in DIRECTIONS:
            raise InvalidSelector(f"direction must be one of {sorted(DIRECTIONS)}, not {direction!r}")
        if not 0 < distance <= 1:
            raise InvalidSelector(f"distance is a share of the element's size, in (0, 1], not {distance}")
        bounds = self._touchable(self._target(element, {}, timeout))
        left, top, right, bottom = bounds
        dx, dy = DIRECTIONS[direction]
        cx, cy = (left + right) / 2, (top + bottom) / 2
        hw, hh = (right - left) * distance / 2, (bottom - top) * distance / 2
        return self.swipe(cx - dx * hw, cy - dy * hh, cx + dx * hw, cy + dy * hh, duration, resting)

    @recorded("scroll_until")
    def scroll_until(
        self,
        direction: Direction = "down",
        max_swipes: int = 10,
        container: Element | None = None,
        *,
        timeout: float | None = None,
        **criteria: Unpack[Criteria],
    ) -> Element:
        """Scroll (`direction` the content's: down shows what is below) until an element matches.

        The container is the given one, else the largest scrollable element on screen; before the
        first swipe the call waits up to `timeout` (default the action timeout) for a match or a
        container, and for the container to be actionable. Stops early when the container says it
        cannot scroll further. Raises NoMatch when nothing matched.
        """
        selector = Selector.of(criteria)
        finger = OPPOSITE.get(direction)
        if finger is None:
            raise InvalidSelector(f"direction must be one of up, down, left, right, not {direction!r}")
        timeout = self.action_timeout if timeout is None else check_timeout("timeout", timeout)
        if container is None:
            with contextlib.suppress(WaitTimeout):  # nothing to match nor to scroll: NoMatch below
                self._until(lambda v: selector.first(v) or self._largest_scrollable(v), timeout,
                            f"waiting for {selector.describe()} or a scrollable container", selector)
        for attempt in range(max_swipes + 1):
            view = self._view()
            found = selector.first(view)
            if found is not None:
                return Element(self, found.ref)
            box = container or self._largest_scrollable(view)
            if attempt == max_swipes or box is None or not _can_scroll(box.entry, direction):
                break
            # a resting release leaves the content where the finger lifted: a short settle suffices
            self.swipe_within(box, finger, distance=0.7, duration=0.3, resting=True,
                              timeout=timeout if attempt == 0 else None)
            self.settle(timeout=2.0, quiet=SCROLL_QUIET)
        view = self._view()
        raise NoMatch(
            f"no element matches {selector.describe()} after scrolling {direction} ({max_swipes} swipes at most)",
            candidates=nearest(selector, view),
            tree=dump_view(view, max_lines=DUMP_LINES_IN_ERRORS, fold_keys=True),
        )

    @recorded("type_text")
    def type_text(self, text: str, element: Element | None = None, method: TextMethod = "auto", *,
                  timeout: float | None = None, submit: bool = False, **criteria: Unpack[FieldCriteria]) -> Ack:
        """Set text in an element (tapped first when it is not focused), or in the focused node; a
        field named waits up to `timeout` (as `tap`) until it is actionable. `submit` then presses
        the field's IME action (`screen.keyboard.press_action()`: search, go, done, ...).

        `method` is the agent's: auto (direct where the node allows it, else key events, else the
        clipboard), direct, keys, clipboard. The acknowledgement names the method used.
        """
        if not isinstance(text, str):
            raise InvalidArgument(f"text must be a str, got {text!r}")
        check_unicode("text", text)  # a NUL is the agent's to accept or refuse (invalid_params)
        if not isinstance(submit, bool):
            raise InvalidArgument(f"type_text: submit= takes a bool, not {submit!r}")
        node_id: int | None = None
        if element is not None or criteria:
            field = self._target(element, criteria, timeout)
            self.steps.target(field.bounds)
            if not field.focused:
                field.tap()
                self._view()
            node_id = field.node.id
        ack = self._input(lambda: self.backend.input.text(text, node=node_id, method=method))
        if submit and ack.accepted:
            self.keyboard.press_action()
        return ack

    @recorded("press_key")
    def press_key(self, key: int | str, meta: int = 0) -> Ack:
        """Press a key: a code or a name such as "back", "home", "enter"."""
        code = key_code(key)
        return self._input(lambda: self.backend.input.key(code, meta))

    def ime_enter(self, node: int) -> Ack | None:
        """ACTION_IME_ENTER on the field with that node id through the agent; None when the agent
        cannot (mirror/keyboard.py presses ENTER then)."""
        self._check_connected()
        ack = self.backend.input.ime_enter(node)
        if ack is not None:
            self._freshness.input_sent(self._clock(), awaits_frames=False)
        return ack

    @recorded("screenshot")
    def screenshot(self, path: str | Path | None = None, format: ImageFormat = "png") -> Screenshot:
        """A screenshot from the agent, upright; written to `path` as well when one is given."""
        shot = self.backend.frames.screenshot(format)
        if path is not None:
            Path(path).write_bytes(shot.data)
        return shot

    @recorded("assert_snapshot")
    def assert_snapshot(self, name: str, *, mask: Sequence[Element | Mapping[str, Any]] = (), threshold: float = 0.0,
                        element: Element | None = None, default_masks: bool = True) -> None:
        """Compare the screen (or `element`'s bounds) with the baseline `name` once it is still (one
        screenshot after the frames went quiet; without frames, two in a row that agree);
        SnapshotMismatch with expected, actual and diff images otherwise (mirror/snapshots.py). The
        status bar is masked unless `default_masks` is False, and a focused field's blinking caret
        is let off (its text is compared); `mask` adds elements and criteria; `threshold` is the
        share of pixels that may differ."""
        from pytest_mobile_agent.mirror.snapshots import check_snapshot

        check_snapshot(self, name, mask, threshold, element, default_masks)

    @recorded("audit_accessibility")
    def audit_accessibility(self, *, within: Element | None = None,
                            rules: Sequence[str] | str | None = None) -> list[Finding]:
        """The accessibility findings on the app's windows (or `within` an element's subtree): the
        rules of Google's Accessibility Test Framework (mirror/a11y/, README "Accessibility"), all
        of them or those named in `rules`; an unknown name is InvalidArgument with a did-you-mean."""
        from pytest_mobile_agent.mirror.a11y.screen import audit_screen

        return audit_screen(self, within, rules)

    def screenshot_png(self) -> bytes:
        """An agent screenshot's PNG, outside the steps (what a snapshot compares)."""
        return self.backend.frames.screenshot("png").data

    def dump(self, within: Element | None = None, max_lines: int | None = None) -> str:
        """The tree as readable text: windows, then one indented line per node with its ref."""
        view = self._view()
        if within is None:
            return dump_view(view, max_lines=max_lines)
        entry = self.entry(within.ref)
        return dump_view(view, entries=(entry, *view.subtree(entry)), max_lines=max_lines)

    def entry(self, ref: int) -> Entry:
        """The replica's entry of the element `ref`, brought up to date; StaleElement once it is gone."""
        entry = self.lookup(ref)
        if entry is None:
            raise _stale(ref)
        return entry

    def lookup(self, ref: int, *, read: bool = True) -> Entry | None:
        """The replica's entry of `ref`, or None: brought up to date first unless `read` is False."""
        view = self._view() if read else self._replica.view
        return view.entry(ref) if view is not None else None

    def locator(self, element: Element) -> Locator:
        """The shortest query that finds the element and no other, across every window:
        `screen.locator(e).python()` is the line to paste (the inspector offers the same)."""
        view = self._view()
        return unique_locator(view, self.entry(element.ref))

    def __repr__(self) -> str:
        view = self._replica.view
        nodes = view.node_count if view else 0
        return f"<Mirror {nodes} nodes, {self.reads} reads{', disconnected' if self.disconnection else ''}>"

    # --- keeping the replica current ---------------------------------------------------------------

    def _view(self, deadline: float | None = None) -> View:
        self._pump(0.0)
        freshness = self._freshness
        if freshness.controller_input_at is not None:
            self._await_still(freshness.controller_input_at, deadline)
        reason = freshness.frame_read_due(self._clock())
        if reason is not None:
            freshness.mark(reason)
        if freshness.dirty is not None or self._replica.view is None:
            self._read(deadline)
        view = self._replica.view
        assert view is not None
        return view

    def _mark(self, reason: ReadReason, windows: tuple[int, ...] | list[int] = ()) -> None:
        self._freshness.mark(reason, windows)

    def _read(self, deadline: float | None = None) -> None:
        self._check_connected()
        reason, windows = self._freshness.take_read()
        started = self._clock()
        try:
            snapshot = self.backend.tree.read(reason, windows, self._time_left(deadline))
        except BaseException:
            self._mark(reason, windows)  # still owed
            raise
        changed = self._replica.apply(snapshot)
        self._fronts.saw(self._replica.view)
        self.reads += 1
        self._freshness.read_answered(reason, started, self._clock(), changed)

    def _await_still(self, since: float, deadline: float | None) -> None:
        """After a controller gesture, with frames: the screen is read once the frames stayed the
        same FRAME_QUIET past the gesture's end and their last change (STILL_WAIT at most), afresh
        and without the agent's idle wait. The agent saw no input of its own to wait on; the frames
        show when the screen stopped. Without frames (or once they stop), an ACTION read."""
        bound = since + STILL_WAIT if deadline is None else min(since + STILL_WAIT, deadline)
        while self.backend.frames.live:
            now = self._clock()
            still_at = self._freshness.still_at(since)
            if now >= still_at or now >= bound:
                break
            self._pump(min(still_at, bound) - now)
        self._freshness.gesture_read(self.backend.frames.live)

    def _time_left(self, deadline: float | None) -> float | None:
        """What a read or a probe may take: the wait's time left and the grace, when there is a wait."""
        return None if deadline is None else max(0.0, deadline - self._clock()) + READ_GRACE

    def _pump(self, timeout: float) -> bool:
        events = self.backend.events
        first = events.next_event(timeout) if timeout > 0 else None
        batch = ([first] if first is not None else []) + events.drain()
        for event in batch:
            self._handle(event)
        return bool(batch)

    def _handle(self, event: SessionEvent) -> None:
        self.events_seen += 1
        if isinstance(event, ProtocolEvent):
            if event.name == "window_changed" and event.window is not None:
                self._mark(ReadReason.EVENT, [event.window])
            else:
                self._mark(ReadReason.EVENT, event.windows)
        elif isinstance(event, FrameEvent):
            self._freshness.frame(event)
        elif isinstance(event, (OutOfSync, Resynced, EventsLost)):
            self._mark(ReadReason.RESYNC)
        elif isinstance(event, Disconnection):
            self.disconnection = event

    def _until(
        self,
        condition: Callable[[View], T],
        timeout: float,
        what: str,
        selector: Selector | None = None,
        wake: Callable[[], float] | None = None,
    ) -> T:
        """Check `condition` on the replica kept current until it holds or `timeout` passes;
        `wake()` is when the condition may come true with nothing new on the stream (a settle's
        end of quiet), so the wait looks again then rather than at the next poll."""
        deadline = self._clock() + max(0.0, timeout)
        while True:
            try:
                view = self._view(deadline)
            except Timeout as exc:
                if self._clock() < deadline or self._replica.view is None:
                    raise
                raise self._wait_timeout(f"{what} (the last read was not answered in time)", timeout,
                                         self._replica.view, selector) from exc
            result = condition(view)
            self.steps.poll(bool(result))
            if result:
                self._ended_by("matched")
                return result
            if self._clock() >= deadline:
                self._ended_by("timeout")
                raise self._wait_timeout(what, timeout, view, selector)
            if self.steps.between_polls():  # a watcher acted: look again at once
                continue
            self._wait_step(deadline, wake() if wake is not None else float("inf"))

    def _ended_by(self, how: str) -> None:
        step = self.steps.current
        if step is not None and step.ended_by is None:
            step.ended_by = how

    def _wait_timeout(self, what: str, timeout: float, view: View, selector: Selector | None) -> WaitTimeout:
        """A wait's timeout: what it waited for, what stood in its way (the window that took the front
        from another app's, the watchers that never matched: mirror/blockers.py), the nearest
        candidates and the tree."""
        return WaitTimeout(
            what,
            timeout,
            candidates=nearest(selector, view) if selector is not None else [],
            tree=dump_view(view, max_lines=DUMP_LINES_IN_ERRORS, fold_keys=True),
            context=blockers(view, self._fronts.taken_from, self._watchers.all),
        )

    def _wait_step(self, deadline: float, wake: float = float("inf")) -> None:
        """Wait for an event, a poll, a frame read, a probe or `wake`, whichever falls due first
        (never past `deadline`)."""
        freshness = self._freshness
        probing = self._probing()
        next_poll = freshness.next_poll()
        next_probe = freshness.next_probe() if probing else float("inf")
        now = self._clock()
        wake = min(deadline, next_poll, next_probe, freshness.next_frame_read(), wake if wake > now else deadline)
        self._pump(max(0.0, wake - now))
        # due whatever came meanwhile: a controller repeats unchanged frames, which must not starve the poll
        now = self._clock()
        if now >= next_poll:
            self._mark(ReadReason.POLL)
        elif (reason := freshness.frame_read_due(now)) is not None:
            self._mark(reason)
        elif probing and now >= next_probe and freshness.dirty is None:
            self._probe(deadline)

    def _probing(self) -> bool:
        return not self.backend.frames.live and self.backend.tree.can_probe

    def _probe(self, deadline: float | None = None) -> None:
        """Probe a sample of the replica's nodes; read again, evicting, the windows where one moved.
        Probes that go unanswered are spaced out, twice as far each time, up to the poll interval."""
        view = self._replica.view
        started = self._clock()
        self._freshness.probe_started(started)
        if view is None:
            return
        sample = _sample(view, self.probe_limit)
        if not sample:
            self._freshness.looked(started)  # no node to probe: time alone says the quiet passed, as before probes
            return
        self._check_connected()
        try:
            found = self.backend.tree.probe([e.node.id for e in sample], self._time_left(deadline))
        except Disconnected:
            raise
        except MobileAgentError as exc:  # a late or refused probe says nothing: the poll still comes
            backoff = self._freshness.probe_unanswered(self._clock())
            log.debug("a bounds probe failed (the next in %.1f s): %s", backoff, exc)
            return
        self.probes += 1
        self._freshness.probe_answered(started)
        moved = sorted({e.window.id for e in sample if _moved(e, found.get(e.window.id, {}))})
        if moved:
            log.debug("probed nodes moved in windows %s", moved)
            self._mark(ReadReason.MOVED, moved)

    def _check_connected(self) -> None:
        if self.disconnection is not None:
            raise Disconnected(
                f"the agent connection ended ({self.disconnection.reason})",
                reconnect_hint=self.disconnection.reconnect_hint,
            )

    # --- helpers ---------------------------------------------------------------------------------

    def _input(self, send: Callable[[], Ack]) -> Ack:
        self._check_connected()
        ack = send()
        # a controller gesture with frames is read once they went still, any other input at once
        self._freshness.input_sent(self._clock(), awaits_frames=ack.path == "controller" and self.backend.frames.live)
        if not ack.accepted:
            log.warning("the platform did not accept the input (%s path)", ack.path)
        return ack

    def _target(self, element: Element | None, criteria: Mapping[str, Any], timeout: float | None) -> Element:
        """The element an action acts on, once it is actionable (mirror/actionable.py): waiting up
        to `timeout` (default the action timeout); WaitTimeout with the nearest candidates."""
        if element is not None and criteria:
            raise InvalidSelector("give an element or selector criteria, not both")
        if element is None and not criteria:
            raise InvalidSelector("give an element or selector criteria (text=, id=, ...)")
        timeout = self.action_timeout if timeout is None else check_timeout("timeout", timeout)
        selector = Selector.of(criteria) if element is None else None
        what = selector.describe() if selector is not None else f"@{element.ref}"  # type: ignore[union-attr]

        def find(view: View) -> Entry | None:
            if selector is not None:
                return selector.first(view)
            assert element is not None
            entry = view.entry(element.ref)
            if entry is None:
                raise _stale(element.ref)
            return entry

        deadline = self._clock() + timeout
        condition = Actionable(find, lambda entry: self._holds_still(entry, deadline), self._scroll_toward,
                               self._hide_keyboard_over)
        try:
            # a step of its own inside the action: the trace shows the wait's looks and what ended it
            arguments: dict[str, Any] = {**criteria} if element is None else {"element": element}
            arguments["timeout"] = timeout
            with self.steps.step("actionable", arguments):
                entry = self._until(condition, timeout, f"waiting for {what} to be actionable", selector,
                                    wake=lambda: self._clock() + RELOOK if condition.relook else inf)
        except WaitTimeout:
            view = self._replica.view
            assert view is not None  # a wait times out only after a look
            raise self._wait_timeout(f"waiting for {what} to be actionable ({condition.reason})", timeout, view,
                                     selector) from None
        assert entry is not None  # _until returns only a truthy result
        return Element(self, entry.ref)

    def _holds_still(self, entry: Entry, deadline: float) -> bool:
        """The second look at an element an action waits for: whether its bounds held. With frames,
        frames that show nothing moving since the read; else a probe of its node; else no: the
        next look reads the device again and compares."""
        if self.backend.frames.live:
            return self._freshness.frames_still()
        if self.backend.tree.can_probe:
            try:
                found = self.backend.tree.probe([entry.node.id], self._time_left(deadline))
            except Disconnected:
                raise
            except MobileAgentError:
                found = {}
            if found.get(entry.window.id, {}).get(entry.node.id) == entry.node.bounds:
                return True
            self._mark(ReadReason.MOVED, [entry.window.id])
            return False
        self._mark(ReadReason.POLL)
        return False

    def _center(self, element: Element) -> tuple[float, float]:
        """The centre of the element's touchable part in physical pixels, as the input seam takes
        them: inside the display, its window and its scrolling containers, clear of the windows
        above (the element is the step's target)."""
        left, top, right, bottom = self._touchable(element)
        return ((left + right) / 2, (top + bottom) / 2)

    def _touchable(self, element: Element) -> Bounds:
        """The part of the element an action may touch (mirror/visibility.py); MobileAgentError
        saying where the element is when there is none."""
        view = self._view()
        entry = view.entry(element.ref)
        if entry is None:
            raise _stale(element.ref)
        self.steps.target(entry.node.bounds)
        left, top, right, bottom = entry.node.bounds
        if right <= left or bottom <= top:
            raise MobileAgentError(f"{describe_entry(entry)} has no area on the screen to touch")
        part, _ = touchable_part(view, entry)
        if part is None:
            cover = covered_by(view, entry)
            why = where(view, entry) if cover is None else f"it is covered by {cover.describe()}"
            raise MobileAgentError(f"{describe_entry(entry)} cannot be touched: {why}")
        return part

    def _hide_keyboard_over(self, view: View) -> bool:
        """BACK for an action whose element the keyboard covers and nothing scrolls clear: sent only
        when the look shows the keyboard (mirror/keyboard.py says why)."""
        if keyboard_window(view) is None:
            return False
        self._input(lambda: self.backend.input.key(key_code("back"), 0))
        return True

    def _scroll_toward(self, view: View, container: Entry, target: Entry, box: Bounds | None = None) -> bool:
        """One resting swipe of `container` that moves `target` toward `box` (default the
        container's visible part: an action's scroll into view); False when the container shows
        nothing or cannot scroll that way."""
        box = visible_part(view, container) if box is None else box
        if box is None:
            return False
        toward = _toward(box, target.node.bounds)
        if toward is None or not _can_scroll(container, toward[0]):
            return False
        direction, needed = toward
        dx, dy = DIRECTIONS[OPPOSITE[direction]]
        extent = (box[2] - box[0]) if dx else (box[3] - box[1])
        half = min(needed + SCROLL_MARGIN, SCROLL_SHARE * extent) / 2
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        self.swipe(cx - dx * half, cy - dy * half, cx + dx * half, cy + dy * half, 0.3, resting=True)
        return True

    def _largest_scrollable(self, view: View) -> Element | None:
        best: Entry | None = None
        best_area = 0
        for entry in view.entries:
            node = entry.node
            if not node.scrollable or not node.visible:
                continue
            left, top, right, bottom = node.bounds
            area = (right - left) * (bottom - top)
            if area > best_area:
                best, best_area = entry, area
        return Element(self, best.ref) if best is not None else None


def _first_line(error: BaseException) -> str:
    return str(error).split("\n", 1)[0]


def _stale(ref: int) -> StaleElement:
    return StaleElement(f"element @{ref} is no longer on the screen",
                        advice="find it again (screen.find / screen.wait_for)")


def _can_scroll(entry: Entry, direction: Direction) -> bool:
    scroll = entry.node.scroll
    if scroll is None:
        return True  # the toolkit does not say: try
    if direction in ("down", "right"):
        return scroll.can_forward
    return scroll.can_back


def _toward(box: Bounds, bounds: Bounds) -> tuple[Direction, int] | None:
    """Which way a container's content must scroll (the content's direction) to bring `bounds` into
    its visible `box`, and how far its far edge lies past the box; None when it already overlaps."""
    if bounds[1] >= box[3]:
        return "down", bounds[3] - box[3]
    if bounds[3] <= box[1]:
        return "up", box[1] - bounds[1]
    if bounds[0] >= box[2]:
        return "right", bounds[2] - box[2]
    if bounds[2] <= box[0]:
        return "left", box[0] - bounds[0]
    return None


def _moved(entry: Entry, probed: Mapping[int, Bounds]) -> bool:
    """A probed node moved, or the agent no longer knows it."""
    bounds = probed.get(entry.node.id)
    return bounds is None or bounds != entry.node.bounds


def _sample(view: View, limit: int) -> list[Entry]:
    """Up to `limit` visible nodes with an area, spread evenly over the replica."""
    candidates = [
        e for e in view.entries
        if e.node.visible and e.node.bounds[2] > e.node.bounds[0] and e.node.bounds[3] > e.node.bounds[1]
    ]
    if len(candidates) <= limit:
        return candidates
    step = len(candidates) / limit
    return [candidates[int(i * step)] for i in range(limit)]
