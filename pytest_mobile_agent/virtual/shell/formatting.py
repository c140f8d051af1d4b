"""The text of `echo` and `printf`: backslash escapes (`\\n`, `\\t`, `\\0NNN`, `\\c` to stop)
and printf's conversions, as mksh's builtins (and toybox's `echo -e`) write them."""

from __future__ import annotations

import re


def backslash_escapes(text: str) -> tuple[str, bool]:
    """echo/print backslash sequences; the bool says \\c was met (stop, no newline)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 >= len(text):
            out.append(c)
            i += 1
            continue
        n = text[i + 1]
        simple = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\", "e": "\x1b"}
        if n in simple:
            out.append(simple[n])
            i += 2
        elif n == "c":
            return "".join(out), True
        elif n == "0":
            digits = re.match(r"[0-7]{0,3}", text[i + 2 :])
            code = digits.group(0) if digits else ""
            out.append(chr(int(code, 8) if code else 0))
            i += 2 + len(code)
        else:
            out.append("\\" + n)
            i += 2
    return "".join(out), False


_PRINTF_SPEC = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?([diouxXcsbeEfgG%])")


def printf_once(fmt: str, args: list[str]) -> tuple[str, list[str], bool, bool]:
    """One pass of the format; returns text, remaining args, whether it consumed any, error."""
    out: list[str] = []
    consumed = False
    error = False
    pos = 0
    for match in _PRINTF_SPEC.finditer(fmt):
        literal, _ = backslash_escapes(fmt[pos : match.start()])
        out.append(literal)
        pos = match.end()
        flags, width, precision, conv = match.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width = args.pop(0) if args else "0"
            consumed = True
        if precision == "*":
            precision = args.pop(0) if args else "0"
            consumed = True
        arg = args.pop(0) if args else None
        if arg is not None:
            consumed = True
        spec = "%" + flags + (width or "") + (("." + precision) if precision is not None else "")
        if conv in "diouxX":
            text = arg or "0"
            try:
                number = int(text, 0) if not text.startswith("'") else ord(text[1:2] or "\0")
            except ValueError:
                error = True
                number = 0
            out.append((spec + ("d" if conv in "iu" else conv)) % number)
        elif conv in "eEfgG":
            try:
                value = float(arg or "0")
            except ValueError:
                error = True
                value = 0.0
            out.append((spec + conv) % value)
        elif conv == "c":
            out.append((arg or "")[:1])
        elif conv == "b":
            out.append((spec + "s") % backslash_escapes(arg or "")[0])
        else:
            out.append((spec + "s") % (arg or ""))
    literal, _ = backslash_escapes(fmt[pos:])
    out.append(literal)
    return "".join(out), args, consumed, error
