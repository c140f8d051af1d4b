"""Numbers as the device's tools read them: ASCII digits only.

toybox's `atolx`, mksh's arithmetic and the framework's `Integer.parseInt` take `0`-`9` alone;
Python's `str.isdigit` also takes `'¹'`, `'٣'` and the like, which `int()` then refuses or reads
as another number, so a hostile argument would crash the double instead of failing as the tool does.
"""

from __future__ import annotations


def is_decimal(text: str) -> bool:
    """Whether `text` is a non-empty run of ASCII digits."""
    return text.isascii() and text.isdigit()
