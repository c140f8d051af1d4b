"""Steps: every call a test makes on the screen, its elements, the app and the device, as it happens.

A `Steps` belongs to one screen. Each public call opens a `Step` (its name and arguments, when it
started and ended, its result or its exception, the element it acted on, and for a wait each poll and
what ended it); calls made inside another (an element's `tap` calling the screen's, an action waiting
for its element) are nested steps, deeper by one. Two kinds of observers take part:

* listeners (`add_listener`) see each step start and end: the step trace, the report's step lines;
* guards (`add_guard`) run before each of the test's own calls (depth 0), outside any step, so that
  what they do (a watcher dismissing a dialog) is never in the middle of an action or a wait and shows
  as steps of its own;
* poll hooks (`add_poll_hook`) run when a wait's look found nothing and it is about to wait for news
  (`between_polls`): before any input of an action (an action waits for its element first), so a
  watcher may dismiss the dialog that hides what the wait looks for; what they do shows as steps
  nested in the wait.

A listener that raises is logged and dropped from that step's notifications, never failing the test
through the trace; a guard that raises fails the call it ran before (a watcher's reaction that fails
must fail the test, naming the watcher).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar

from pytest_mobile_agent.errors import hide_our_frames

log = logging.getLogger("pytest_mobile_agent.mirror")
__tracebackhide__ = hide_our_frames  # pytest reports our failures at the test's line, not in these frames

Bounds = tuple[int, int, int, int]  # as session.backends has it: left, top, right, bottom in pixels
P = ParamSpec("P")
R = TypeVar("R")


@dataclass
class Poll:
    """One look a wait took at the screen: when, and whether what it waits for held."""

    at: float
    matched: bool


@dataclass(frozen=True)
class Source:
    """Where the test made a call: the file and line of the innermost frame outside this package
    (the test's own line, or its helper's), as a traceback names it."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


_PACKAGE_DIR = str(Path(__file__).parent.parent) + os.sep
_PASSED_THROUGH = {contextlib.__file__, functools.__file__}


_PYTESTS_FOLDERS: list[tuple[str, ...]] = []  # found once both are loaded


def _pytests_folders() -> tuple[str, ...]:
    """pytest's and pluggy's folders, when loaded: a call a fixture makes from pytest's frames (the
    app's stop at teardown) has no test line."""
    if _PYTESTS_FOLDERS:
        return _PYTESTS_FOLDERS[0]
    folders = []
    for module in ("_pytest", "pluggy"):
        loaded = sys.modules.get(module)
        if loaded is not None and getattr(loaded, "__file__", None):
            folders.append(str(Path(str(loaded.__file__)).parent) + os.sep)
    if len(folders) == 2:
        _PYTESTS_FOLDERS.append(tuple(folders))
    return tuple(folders)


def caller_source() -> Source | None:
    """The innermost frame outside this package and the standard library's plumbing of a call
    (contextlib, functools): the line of the test (or of its helper) that made the call; None for a
    call pytest made itself (a fixture's teardown)."""
    pytests = _pytests_folders()
    frame: Any = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not (name.startswith(_PACKAGE_DIR) or name in _PASSED_THROUGH or name.startswith("<")):
            return None if pytests and name.startswith(pytests) else Source(name, frame.f_lineno)
        frame = frame.f_back
    return None


@dataclass
class Step:
    """One call: `name` as the test wrote it (`tap`, `element.tap`, `app.start`, ...)."""

    name: str
    arguments: dict[str, Any]
    depth: int
    started_at: float  # time.monotonic()
    started_wall: float  # time.time(), for a trace read elsewhere
    ended_at: float | None = None
    result: Any = None
    error: BaseException | None = None
    target: Bounds | None = None
    """The bounds of the element the call acted on, in physical pixels, once it was found."""
    polls: list[Poll] = field(default_factory=list)
    ended_by: str | None = None
    """For a wait: `matched`, `timeout` or the error's name; for other calls `returned` or the error's."""
    screen: str | None = None
    """The target whose screen made the call, in a test of several targets (`Steps.for_screen`)."""
    source: Source | None = None
    """The test's line that made the call (nested calls: the same line as the call they ran in)."""
    measures: dict[str, Any] = field(default_factory=dict)
    """What listeners measured of the step, by kind (`perf`: control/perf/step_sampling.py), for the trace."""

    @property
    def seconds(self) -> float | None:
        return None if self.ended_at is None else self.ended_at - self.started_at


class StepListener(Protocol):
    def step_started(self, step: Step) -> None: ...

    def step_ended(self, step: Step) -> None: ...


Guard = Callable[[str], None]
"""Called with the name of the test's next call, before it starts."""
PollHook = Callable[[], bool]
"""Called between a wait's looks; True when it changed something (the wait looks again at once)."""


@dataclass
class _Shared:
    """What every screen of one test shares: its listeners, guards, poll hooks and open steps."""

    listeners: list[StepListener] = field(default_factory=list)
    guards: list[Guard] = field(default_factory=list)
    poll_hooks: list[PollHook] = field(default_factory=list)
    open: list[Step] = field(default_factory=list)
    guarding: bool = False


class Steps:
    """The listeners and guards of one test's screens, and the steps open now (one thread: the test's)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, *, screen: str | None = None,
                 _shared: _Shared | None = None) -> None:
        self._clock = clock
        self.screen = screen
        self._shared = _shared if _shared is not None else _Shared()
        self._listeners = self._shared.listeners
        self._guards = self._shared.guards
        self._poll_hooks = self._shared.poll_hooks
        self._open = self._shared.open

    def for_screen(self, screen: str) -> Steps:
        """The same steps, each tagged with `screen` (a target's label): the screens of a test of several
        targets share one record of steps, and the trace shows each step with its own screen."""
        return Steps(self._clock, screen=screen, _shared=self._shared)

    @property
    def _guarding(self) -> bool:
        return self._shared.guarding

    @_guarding.setter
    def _guarding(self, value: bool) -> None:
        self._shared.guarding = value

    def add_listener(self, listener: StepListener) -> Callable[[], None]:
        """Notify `listener` of every step; returns the call that removes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def add_guard(self, guard: Guard) -> Callable[[], None]:
        """Run `guard` before each of the test's own calls; returns the call that removes it."""
        self._guards.append(guard)
        return lambda: self._guards.remove(guard) if guard in self._guards else None

    def add_poll_hook(self, hook: PollHook) -> Callable[[], None]:
        """Run `hook` between a wait's looks (`between_polls`); returns the call that removes it."""
        self._poll_hooks.append(hook)
        return lambda: self._poll_hooks.remove(hook) if hook in self._poll_hooks else None

    def between_polls(self) -> bool:
        """Called by a wait whose look found nothing, before it waits: the poll hooks run (unless a
        guard or hook is running: their own waits are not hooked again); True when one acted, so the
        wait looks again at once."""
        if self._guarding or not self._poll_hooks:
            return False
        self._guarding = True
        try:
            return any([hook() for hook in list(self._poll_hooks)])
        finally:
            self._guarding = False

    @property
    def current(self) -> Step | None:
        return self._open[-1] if self._open else None

    @contextlib.contextmanager
    def step(self, name: str, arguments: dict[str, Any] | None = None) -> Iterator[Step]:
        """Open a step around a call: guards first when it is the test's own, then listeners."""
        if not self._open:
            self._run_guards(name)
        step = Step(name, dict(arguments or {}), len(self._open), self._clock(), time.time(), screen=self.screen,
                    source=self._open[-1].source if self._open else caller_source())
        self._open.append(step)
        self._notify("step_started", step)
        try:
            yield step
        except BaseException as exc:
            step.error = exc
            step.ended_by = step.ended_by or type(exc).__name__
            raise
        else:
            step.ended_by = step.ended_by or "returned"
        finally:
            step.ended_at = self._clock()
            self._open.pop()
            self._notify("step_ended", step)

    def poll(self, matched: bool) -> None:
        """Record a wait's look at the screen on the innermost open step."""
        if self._open:
            self._open[-1].polls.append(Poll(self._clock(), matched))

    def target(self, bounds: Bounds) -> None:
        """Record the element the innermost open step acts on (and its callers, which act through it)."""
        for step in reversed(self._open):
            if step.target is not None:
                break
            step.target = bounds

    def _run_guards(self, name: str) -> None:
        if self._guarding:  # a guard's own calls run unguarded
            return
        self._guarding = True
        try:
            for guard in list(self._guards):
                guard(name)
        finally:
            self._guarding = False

    def _notify(self, event: str, step: Step) -> None:
        for listener in list(self._listeners):
            try:
                getattr(listener, event)(step)
            except Exception:  # noqa: BLE001 - evidence must never fail the test it records
                log.exception("a step listener failed on %s %s", event, step.name)


class HasSteps(Protocol):
    steps: Steps


def recorded(name: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Make a method of an object with `steps` a step named `name`: its arguments (by name, `self`
    left out), its result or exception. The signature is kept for IDEs and type checkers."""

    def decorate(method: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(method)

        @functools.wraps(method)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            owner: HasSteps = args[0]  # type: ignore[assignment]
            with owner.steps.step(name, _arguments(signature, args, kwargs)) as step:
                result = method(*args, **kwargs)
                step.result = result
                return result

        return call

    return decorate


def _arguments(signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:  # the call itself will fail and say why
        return {}
    named = dict(bound.arguments)
    named.pop("self", None)
    for key, value in list(named.items()):
        parameter = signature.parameters[key]
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            named.pop(key)
            named.update(value)
    return named
