"""The toasts a screen saw (issue 25, item 3): `screen.toasts` and `screen.wait_for_toast(...)`.

A toast is never in the tree (it takes no touches, and `getWindows()` leaves it out); the agent
buffers the accessibility event each one sends (docs/protocol.md, `toasts`). A screen counts the
toasts shown since it was made (the agent outlives tests: earlier tests' toasts are not this one's),
asks the agent for those after the last it saw, and hands each to at most one `wait_for_toast`, so
two waits for the same text want two toasts.

The toasts the agent caused (`Toast.by_agent`: ClipboardService's access toast, "Shell pasted from
your clipboard" for the agent's own clipboard reads, "<app> pasted from your clipboard" for the app's
read of a pasted clip) are left out unless asked for: a test waits for its app's toasts.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_mobile_agent.errors import InvalidArgument, MobileAgentError
from pytest_mobile_agent.session.backends import Toast, ToastBackend

TOAST_POLL = 0.1
"""While a wait for a toast goes on, the agent is asked this often (a toast shows 2 or 3.5 s)."""


@dataclass(frozen=True)
class ToastQuery:
    """What a wait for a toast wants: the exact text, a part of it, the app's package (all given must hold)."""

    text: str | None = None
    text_contains: str | None = None
    package: str | None = None

    def __post_init__(self) -> None:
        for name in ("text", "text_contains", "package"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise InvalidArgument(f"wait_for_toast: {name}= takes a str, not {value!r}")

    def matches(self, toast: Toast) -> bool:
        return ((self.text is None or toast.text == self.text)
                and (self.text_contains is None or self.text_contains in toast.text)
                and (self.package is None or toast.package == self.package))

    def describe(self) -> str:
        given = [f"{name}={value!r}" for name, value in (("text", self.text), ("text_contains", self.text_contains),
                                                         ("package", self.package)) if value is not None]
        return "a toast" + (f" with {', '.join(given)}" if given else "")


class ToastLog:
    """The toasts one screen saw, in the order they were shown."""

    def __init__(self, backend: ToastBackend | None, since: float) -> None:
        self._backend = backend
        self._since = since
        self._last = 0
        self._seen: list[Toast] = []
        self._taken: set[int] = set()

    def seen(self, *, include_agent: bool = False) -> list[Toast]:
        return [t for t in self._seen if include_agent or not t.by_agent]

    def fetch(self, timeout: float | None = None, *, include_agent: bool = False) -> list[Toast]:
        """Ask the agent for the toasts after the last seen; every toast of this screen so far
        (the agent's own only with `include_agent`)."""
        if self._backend is None:
            raise MobileAgentError("this screen's backend reads no toasts (no agent behind it)")
        batch = self._backend.since(self._last, timeout)
        self._last = max(self._last, batch.last)
        self._seen.extend(t for t in batch.toasts if t.shown_at >= self._since)
        return self.seen(include_agent=include_agent)

    def take(self, query: ToastQuery, *, include_agent: bool = False) -> Toast | None:
        """The first toast seen that matches and no wait took yet, now taken (an agent's toast
        only with `include_agent`)."""
        for toast in self.seen(include_agent=include_agent):
            if toast.id not in self._taken and query.matches(toast):
                self._taken.add(toast.id)
                return toast
        return None

    def candidates(self) -> list[str]:
        """The toasts seen, for a failed wait's message (the agent's own named as such)."""
        return [f"toast {t.text!r} from {t.package or 'an unnamed package'}"
                + (" (caused by the agent's clipboard use, left out)" if t.by_agent else "") for t in self._seen]

