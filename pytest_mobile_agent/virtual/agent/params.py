"""Request errors and parameter checks (the Java agent's `core/AgentError` and `core/Params`)."""

from __future__ import annotations

from typing import Any

from pytest_mobile_agent.agent.protocol import is_integer


class RequestError(Exception):
    """A request's error response: `code`, `message`, `retryable` (docs/protocol.md section 4)."""

    def __init__(self, code: str, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable


JAVA_INT_MAX = 2**31 - 1  # Integer.MAX_VALUE: the Java agent's bound for coordinates, ids and caps


def is_int(value: Any) -> bool:
    """A JSON integer within protocol 1's range: one past a Java long is a double to the Java agent
    (org.json), so a number that is not an integer here too."""
    return is_integer(value)


def int_param(params: dict[str, Any], key: str, *, minimum: int = 0, maximum: int = JAVA_INT_MAX,
              default: int | None = None) -> int:
    """An integer param within minimum..maximum (core/Params.integer and .required: the Java agent's
    bounds for each key, and its words), else invalid_params."""
    value = params.get(key)
    if value is None:  # missing or null: the default (Params.integer), or required (Params.required)
        value = default
    if value is None:
        raise RequestError("invalid_params", f"`{key}` is required")
    if not is_int(value):
        raise RequestError("invalid_params", f"`{key}` must be an integer")
    if not minimum <= value <= maximum:
        raise RequestError("invalid_params", f"`{key}` must be within {minimum}..{maximum}, not {value}")
    params[key] = value
    return int(value)


def int_list(params: dict[str, Any], key: str, what: str, *, required: bool) -> list[int]:
    """A list of ids (core/Params.ints): every one an integer of a Java int, else invalid_params;
    missing or null is [] unless required."""
    value = params.get(key)
    if value is None and not required:
        return []
    if not isinstance(value, list) or not all(is_int(v) and -JAVA_INT_MAX - 1 <= v <= JAVA_INT_MAX for v in value):
        raise RequestError("invalid_params", f"{key} must be a list of {what}")
    return value
