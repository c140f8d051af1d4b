"""Numbers as the device's tools read them: ASCII digits only.

toybox's `atolx`, mksh's arithmetic and the framework's `Integer.parseInt` take `0`-`9` alone;
Python's `str.isdigit` also takes `'¹'`, `'٣'` and the like, which `int()` then refuses or reads
as another number, so a hostile argument would crash the double instead of failing as the tool does.
"""

from __future__ import annotations


def is_decimal(text: str) -> bool:
    """Whether `text` is a non-empty run of ASCII digits."""
    return text.isascii() and text.isdigit()


def is_decimal_time(text: str) -> bool:
    """Whether `text` is a time as toybox's `xparsetime` reads it: ASCII digits with one optional
    fractional part (`5`, `0.25`, `.5`); `float()` would also take `'٣'`, `'1e3'`, `'inf'` and `' 1'`."""
    whole, _, fraction = text.partition(".")
    return (whole or fraction) != "" and all(part == "" or is_decimal(part) for part in (whole, fraction))
