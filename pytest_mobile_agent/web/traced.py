"""Web actions as steps of the test: the Page a test gets records each call it makes, named as
Playwright names its API calls (`page.fill`, `locator.click`, `keyboard.type`), beside the native steps.

A traced object is Playwright's own class (`isinstance(page, playwright.sync_api.Page)` holds, and
every method is Playwright's), made over the same Playwright object, whose public calls open a step
around themselves. What a call returns that a test acts on again (a `Locator`, a `Frame`, the
`keyboard`) is traced the same way. Builders that do no I/O (`locator`, `get_by_*`, `nth`, `filter`)
and listener registration (`on`, `once`) are not steps. A failing call's exception may be replaced
by the attachment's own (`translate`: a socket the device closed is `Disconnected`), inside the
step, so the trace records what the test sees.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

UNTRACED = frozenset({
    "on", "once", "remove_listener", "locator", "frame_locator", "first", "last", "nth", "filter", "and_", "or_",
    "content_frame", "owner", "set_default_timeout", "set_default_navigation_timeout", "is_closed", "frame",
    "frames", "main_frame", "context", "page", "keyboard", "mouse", "touchscreen", "parent_frame", "child_frames",
    "describe", "video", "workers", "url", "name", "viewport_size",
})
Translate = Callable[[BaseException], "BaseException | None"]
T = TypeVar("T")


class StepRecorder(Protocol):
    """What records a step (`mirror.steps.Steps` is one)."""

    def step(self, name: str, arguments: dict[str, Any] | None = None) -> AbstractContextManager[Any]: ...


class Tracing:
    """Where a traced object's calls go, and how their failures are explained."""

    def __init__(self, steps: StepRecorder, translate: Translate) -> None:
        self.steps = steps
        self.translate = translate


def is_step(name: str) -> bool:
    return not (name.startswith("_") or name.startswith("get_by_") or name.startswith("expect_")
                or name in UNTRACED)


def step_name(obj: object, method: str) -> str:
    """`page.fill`, `locator.click`, `frameLocator.locator`: Playwright's names of its API calls (the
    class with its first letter lower case, then the method)."""
    cls = next((base for base in type(obj).__mro__ if base.__module__.startswith("playwright.")), type(obj))
    return f"{cls.__name__[:1].lower()}{cls.__name__[1:]}.{method}"


TYPING = frozenset({"fill", "type", "press_sequentially"})
TYPED = ("value", "text")
MASK = "\u2022"  # as the native steps mask text typed into a password field (evidence/steptext.py)


def masked(obj: object, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments with the typed text masked when the call types into what its selector names a
    password (`page.fill("#password", ...)`, `get_by_label("Password").fill(...)`): the trace and the
    report keep its length only. Told from the selector, with no round trip to the page."""
    if name not in TYPING:
        return arguments
    where = f"{arguments.get('selector', '')} {obj!r}".lower()
    if "password" not in where and "passwd" not in where:
        return arguments
    return {key: MASK * len(value) if key in TYPED and isinstance(value, str) else value
            for key, value in arguments.items()}


def call_arguments(method: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments by parameter name (`selector`, `value`), as the step records them."""
    try:
        return dict(inspect.signature(method).bind_partial(*args, **kwargs).arguments)
    except (TypeError, ValueError):
        return {**{f"arg{index}": value for index, value in enumerate(args)}, **kwargs}


class TracedMixin:
    """Opens a step around each public call of the Playwright class it is mixed into."""

    _mobile_agent_tracing: Tracing

    def __getattribute__(self, name: str) -> Any:
        value = super().__getattribute__(name)
        if name.startswith("_"):
            return value
        tracing: Tracing = super().__getattribute__("_mobile_agent_tracing")
        if not callable(value) or not inspect.ismethod(value):
            return traced(value, tracing)
        if not is_step(name):
            return _returning_traced(value, tracing)
        return _stepping(self, name, value, tracing)


def _returning_traced(method: Callable[..., Any], tracing: Tracing) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        return traced(method(*args, **kwargs), tracing)
    return call


def _stepping(obj: object, name: str, method: Callable[..., Any], tracing: Tracing) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        with tracing.steps.step(step_name(obj, name), masked(obj, name, call_arguments(method, args, kwargs))):
            try:
                result = method(*args, **kwargs)
            except Exception as exc:
                replacement = tracing.translate(exc)
                if replacement is None or replacement is exc:
                    raise
                raise replacement from exc
        return traced(result, tracing)
    return call


_TRACED_CLASSES: dict[type, type] = {}


def traced_class(cls: type) -> type:
    """The traced subclass of a Playwright class (made once)."""
    if cls not in _TRACED_CLASSES:
        _TRACED_CLASSES[cls] = type(cls.__name__, (TracedMixin, cls), {"__module__": cls.__module__})
    return _TRACED_CLASSES[cls]


TRACEABLE = frozenset({"Page", "Locator", "Frame", "FrameLocator", "Keyboard", "Mouse", "Touchscreen",
                       "ElementHandle"})


def is_playwright(value: object, *names: str) -> bool:
    """Whether `value` is an instance of Playwright's sync classes of these names, known by name: the
    driver that made it may have loaded Playwright's modules before they were loaded again (a
    pytester run restores `sys.modules`), so its classes need not be the ones an import gives now."""
    return any(cls.__module__.startswith("playwright.") and cls.__name__ in names for cls in type(value).__mro__)


def traced(value: T, tracing: Tracing) -> T:
    """`value` traced when it is a Playwright object a test acts on; anything else as it is."""
    if isinstance(value, TracedMixin) or not is_playwright(value, *TRACEABLE):
        return value
    impl = value._impl_obj  # type: ignore[attr-defined]
    wrapper: Any = traced_class(type(value))(impl)
    object.__setattr__(wrapper, "_mobile_agent_tracing", tracing)
    return wrapper  # type: ignore[no-any-return]
