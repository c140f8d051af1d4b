"""Request errors and parameter checks (the Java agent's `core/AgentError` and `core/Params`)."""

from __future__ import annotations

from typing import Any


class RequestError(Exception):
    """A request's error response: `code`, `message`, `retryable` (docs/protocol.md section 4)."""

    def __init__(self, code: str, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def int_param(params: dict[str, Any], key: str, *, minimum: int | None = None, default: int | None = None) -> int:
    value = params.get(key, default)
    if value is None or not is_int(value):
        raise RequestError("invalid_params", f"{key} must be an integer")
    if minimum is not None and value < minimum:
        raise RequestError("invalid_params", f"{key} must be at least {minimum}")
    params[key] = value
    return int(value)
