"""Watchers: a selector and a reaction, fired when what they match comes on the screen (issue 25, item 2).

    screen.watch(text="Allow", window="com.google.android.permissioncontroller").tap()
    screen.watch(id="rate_dialog").call(lambda element: element.find(text="Later").tap())
    screen.watch(text_contains="isn't responding").fail("the app stopped answering")
    screen.watch_builtin("allow_permissions", "dismiss_anr")

A watcher fires from the change events that reach the mirror, not from a poll of its own: it looks
only when the replica changed since it last looked (a new generation, read because events, frames or
probes said so), at two points (mirror/steps.py):

* before each of the test's own calls (a guard on `Steps`), never in the middle of one;
* between the looks of a wait that found nothing yet (a poll hook): before any input of an action,
  which waits for its element first, so a prompt that covers the element is dismissed and the wait
  goes on. A watcher's own calls are not watched again.

Each firing is a step named `watcher` (its name and reaction, the element it matched), so the step
trace and the report log it. A reaction that raises fails the call it ran before with `WatcherFailed`
naming the watcher; `.fail(message)` does so on purpose. A watcher that keeps firing (its reaction
does not take away what it matches) is stopped with `WatcherLoop`: more than MAX_FIRINGS_AT_ONCE
firings at one point, or LOOP_FIRINGS of one watcher within LOOP_SECONDS.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pytest_mobile_agent.errors import InvalidArgument, WatcherFailed, WatcherLoop, hide_our_frames
from pytest_mobile_agent.mirror.replica import View
from pytest_mobile_agent.mirror.selectors import Selector
from pytest_mobile_agent.mirror.steps import Steps

if TYPE_CHECKING:
    from pytest_mobile_agent.mirror.element import Element

__tracebackhide__ = hide_our_frames  # pytest reports our failures at the test's line, not in these frames

MAX_FIRINGS_AT_ONCE = 5
LOOP_FIRINGS = 10
LOOP_SECONDS = 10.0

Reaction = Callable[["Element"], object]


class WatchHost(Protocol):
    """What the watchers need of the screen (`Mirror` is the one)."""

    steps: Steps

    def snapshot(self) -> View: ...

    def element(self, ref: int) -> Element: ...


@dataclass
class Watcher:
    """One watcher: `screen.watch(**criteria)` gives it; `.tap()`, `.call(fn)` or `.fail(message)`
    gives it its reaction, and it is live from then until `.remove()`."""

    name: str
    selector: Selector
    _watchers: Watchers = field(repr=False)
    reaction: Reaction | None = field(default=None, repr=False)
    kind: str = ""
    """`tap`, `call` or `fail`, once a reaction is given."""
    firings: list[float] = field(default_factory=list, repr=False)
    """When it fired (the screen's clock)."""

    def tap(self) -> Watcher:
        """Tap what it matches."""
        return self._react("tap", lambda element: element.tap())

    def call(self, fn: Reaction) -> Watcher:
        """Call `fn(element)` with what it matches."""
        if not callable(fn):
            raise InvalidArgument(f"watcher {self.name!r}: call(fn) takes a callable, not {fn!r}")
        return self._react("call", fn)

    def fail(self, message: str) -> Watcher:
        """Fail the test with `message` when it matches."""
        if not isinstance(message, str) or not message:
            raise InvalidArgument(f"watcher {self.name!r}: fail(message) takes a message (a str), not {message!r}")

        def failing(element: Element) -> None:
            raise WatcherFailed(f"watcher {self.name!r} matched {element!r}: {message}", watcher=self.name)

        return self._react("fail", failing)

    def remove(self) -> None:
        self._watchers.remove(self)

    @property
    def fired(self) -> int:
        return len(self.firings)

    def _react(self, kind: str, reaction: Reaction) -> Watcher:
        if self.reaction is not None:
            raise InvalidArgument(f"watcher {self.name!r} already has its reaction ({self.kind})")
        self.kind, self.reaction = kind, reaction
        return self


class Watchers:
    """The watchers of one screen, hooked into its steps once the first is added."""

    def __init__(self, host: WatchHost, clock: Callable[[], float] = time.monotonic) -> None:
        self._host = host
        self._clock = clock
        self._watchers: list[Watcher] = []
        self._seen_generation = -1
        self._unhook: list[Callable[[], None]] = []

    def add(self, name: str | None, criteria: Mapping[str, Any]) -> Watcher:
        """A watcher on the first match of the criteria (InvalidSelector for a bad one), live once it
        has a reaction; a watcher still without one at the test's next call is an error."""
        selector = Selector.of(criteria)
        if name is None:
            name = selector.describe()
        elif not isinstance(name, str) or not name:
            raise InvalidArgument(f"watch(name=...) takes a name (a str), not {name!r}")
        if any(w.name == name for w in self._watchers):
            raise InvalidArgument(f"watch(name={name!r}): a watcher of that name is already watching")
        watcher = Watcher(name, selector, self)
        self._watchers.append(watcher)
        if not self._unhook:
            self._unhook = [self._host.steps.add_guard(self._before_call),
                            self._host.steps.add_poll_hook(self._between_polls)]
        self._seen_generation = -1  # a new watcher looks at the screen as it is
        return watcher

    def remove(self, watcher: Watcher) -> None:
        if watcher in self._watchers:
            self._watchers.remove(watcher)
        if not self._watchers:
            for unhook in self._unhook:
                unhook()
            self._unhook = []

    def clear(self) -> None:
        for watcher in list(self._watchers):
            self.remove(watcher)

    @property
    def all(self) -> list[Watcher]:
        return list(self._watchers)

    # --- firing -----------------------------------------------------------------------------------

    def _before_call(self, name: str) -> None:
        self._check_reactions()
        self.check()

    def _between_polls(self) -> bool:
        return self.check() > 0

    def check(self) -> int:
        """Match the watchers when the replica changed since they last looked: each that matches
        fires, in the order they were added; when a reaction changed the screen, they look again at
        the new one. How many fired."""
        fired = 0
        view = self._host.snapshot()
        if view.generation == self._seen_generation:
            return 0
        while True:
            self._seen_generation = view.generation
            for watcher in [w for w in self._watchers if w.reaction is not None]:
                entry = watcher.selector.first(view)
                if entry is None:
                    continue
                fired += 1
                if fired > MAX_FIRINGS_AT_ONCE:
                    raise self._loop(watcher, f"{MAX_FIRINGS_AT_ONCE} times in a row before one call")
                self._fire(watcher, entry.ref)
                now = self._host.snapshot()
                if now.generation != view.generation:
                    view = now
                    break  # the reaction changed the screen: every watcher looks at it anew
            else:
                return fired

    def _fire(self, watcher: Watcher, ref: int) -> None:
        now = self._clock()
        watcher.firings.append(now)
        recent = [t for t in watcher.firings if t >= now - LOOP_SECONDS]
        if len(recent) > LOOP_FIRINGS:
            raise self._loop(watcher, f"{len(recent)} times within {LOOP_SECONDS:g} s")
        element = self._host.element(ref)
        assert watcher.reaction is not None
        with self._host.steps.step("watcher", {"name": watcher.name, "reaction": watcher.kind, "element": element}):
            try:
                watcher.reaction(element)
            except WatcherFailed:
                raise
            except Exception as exc:
                raise WatcherFailed(f"watcher {watcher.name!r} failed in its reaction ({watcher.kind}): "
                                    f"{type(exc).__name__}: {exc}", watcher=watcher.name) from exc

    def _loop(self, watcher: Watcher, how: str) -> WatcherLoop:
        return WatcherLoop(f"watcher {watcher.name!r} kept firing ({how}): its reaction ({watcher.kind}) does not "
                           "take away what it matches", watcher=watcher.name,
                           advice="give it a reaction that dismisses what it matches, or a narrower selector")

    def _check_reactions(self) -> None:
        for watcher in self._watchers:
            if watcher.reaction is None:
                self.remove(watcher)
                raise InvalidArgument(f"watcher {watcher.name!r} has no reaction: end screen.watch(...) with "
                                      ".tap(), .call(fn) or .fail(message)")


# --- the built-in set -----------------------------------------------------------------------------------

PERMISSION_BUTTONS = "com.android.permissioncontroller:id/"
"""PermissionController's GrantPermissionsActivity (packages/modules/Permission,
PermissionController/res/layout/grant_permissions.xml): the buttons' ids are in the module's own
resource package, `com.android.permissioncontroller`, also where the app's package is Google's
`com.google.android.permissioncontroller`."""


def _any_id(*names: str) -> str:
    return "//*[" + " or ".join(f"@resource-id='{PERMISSION_BUTTONS}{n}'" for n in names) + "]"


BUILTINS: dict[str, tuple[dict[str, Any], str]] = {
    # GrantPermissionsActivity: "While using the app" (foreground-only; API 30+), else "Allow" (API 29-)
    "allow_permissions": ({"xpath": _any_id("permission_allow_foreground_only_button", "permission_allow_button")},
                          "tap"),
    # "Don't allow"; "Don't allow and don't ask again" when the prompt offers only that
    "deny_permissions": ({"xpath": _any_id("permission_deny_button", "permission_deny_and_dont_ask_again_button")},
                         "tap"),
    # system_server's AppNotRespondingDialog (frameworks/base/services/core/java/com/android/server/am/
    # AppNotRespondingDialog.java, layout app_anr_dialog.xml): "Wait" is android:id/aerr_wait
    "dismiss_anr": ({"xpath": "//*[@resource-id='android:id/aerr_wait']"}, "tap"),
    # AppErrorDialog ("<app> keeps stopping", layout app_error_dialog.xml): "Close app" is android:id/aerr_close;
    # the crash itself still fails the test (the plugin reads it from the crash buffer)
    "dismiss_crash": ({"xpath": "//*[@resource-id='android:id/aerr_close']"}, "tap"),
}


def builtin_criteria(name: str) -> dict[str, Any]:
    if name not in BUILTINS:
        raise InvalidArgument(f"watch_builtin: unknown built-in watcher {name!r}; known: {', '.join(sorted(BUILTINS))}")
    return dict(BUILTINS[name][0])

