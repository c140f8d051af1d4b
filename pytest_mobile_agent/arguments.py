"""Checks of a caller's arguments at the public entry points: a bad value is InvalidArgument naming
the argument, never a ValueError, OverflowError or UnicodeEncodeError from deep inside a call."""

from __future__ import annotations

import math
from typing import Any

from pytest_mobile_agent.errors import InvalidArgument


def check_timeout(name: str, value: Any) -> float:
    """`value` as seconds: a finite number >= 0 (NaN, inf, a bool or a string refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise InvalidArgument(f"{name} must be a finite number of seconds >= 0, got {value!r}")
    return float(value)


def check_deadline(name: str, value: Any) -> float:
    """An absolute time.monotonic() deadline: a finite number (it may be past)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidArgument(f"{name} must be a finite time.monotonic() value, got {value!r}")
    return float(value)


def check_text(name: str, value: str) -> str:
    """`value` when it encodes as UTF-8 (a lone surrogate cannot cross the wire) and holds no NUL."""
    if "\x00" in value:
        raise InvalidArgument(f"{name} cannot hold a NUL byte: {value!r}")
    return check_unicode(name, value)


def check_unicode(name: str, value: str) -> str:
    """`value` when it encodes as UTF-8: a lone surrogate is no character JSON or a wire can carry."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgument(f"{name} holds {value[exc.start:exc.end]!r}, which is no Unicode character "
                              "UTF-8 can carry (a lone surrogate)") from None
    return value


def check_number(name: str, value: Any) -> float:
    """A finite number (a coordinate): NaN, inf, a bool or a string refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidArgument(f"{name} must be a finite number, got {value!r}")
    return float(value)
