"""Toasts through the agent (docs/protocol.md, `toasts`): what the mirror's `screen.toasts` and
`wait_for_toast` read.

The agent buffers the text of every toast UiAutomation tells it of (a TYPE_NOTIFICATION_STATE_CHANGED
event whose class is a Toast), numbered from 1 for its lifetime, with the event's time; this asks for
those after the last one seen and dates each on the host's clock: the time the answer arrived less
the age the agent gave. `by_agent` (agents before it omit it: false) marks the toasts the agent
caused, which `screen.toasts` and `wait_for_toast` leave out by default.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from pytest_mobile_agent.errors import AgentError, MobileAgentError, ProtocolError
from pytest_mobile_agent.session.backends import Toast, ToastBatch

TOASTS_TIMEOUT = 2.0
"""A `toasts` request's deadline: the agent answers from memory."""


class Requester(Protocol):
    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 5.0) -> dict[str, Any]: ...


class AgentToasts:
    """The `ToastBackend` of a session: the agent's toast buffer."""

    def __init__(self, connection: Requester, clock: Callable[[], float] = time.monotonic) -> None:
        self._connection = connection
        self._clock = clock

    def since(self, after: int, timeout: float | None = None) -> ToastBatch:
        bound = TOASTS_TIMEOUT if timeout is None else min(timeout, TOASTS_TIMEOUT)
        try:
            result = self._connection.request("toasts", {"after": after}, timeout=bound)
        except AgentError as exc:
            if exc.code == "unknown_method":
                raise MobileAgentError("the agent does not buffer toasts (it predates the toasts method of "
                                       "docs/protocol.md)", advice="deploy the package's own agent") from exc
            raise
        return parse_toasts(result, received_at=self._clock())


def parse_toasts(result: dict[str, Any], *, received_at: float) -> ToastBatch:
    """The `toasts` result as host values; ProtocolError naming what is missing or mistyped."""
    items, last = result.get("toasts"), result.get("last")
    if not isinstance(items, list) or not isinstance(last, int) or isinstance(last, bool):
        raise ProtocolError(f"a toasts result needs a list `toasts` and an integer `last`, got {result!r}")
    toasts = []
    for item in items:
        if not (isinstance(item, dict) and _is_int(item.get("id")) and isinstance(item.get("text"), str)
                and isinstance(item.get("class"), str) and _is_int(item.get("age_ms")) and item["age_ms"] >= 0
                and (item.get("package") is None or isinstance(item["package"], str))
                and isinstance(item.get("by_agent", False), bool)):
            raise ProtocolError(f"a toast needs id, text, package (or null), class, age_ms and a boolean by_agent "
                                f"(or none), got {item!r}")
        toasts.append(Toast(id=item["id"], text=item["text"], package=item.get("package"), class_name=item["class"],
                            shown_at=received_at - item["age_ms"] / 1000.0, by_agent=item.get("by_agent", False)))
    return ToastBatch(tuple(toasts), last)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
