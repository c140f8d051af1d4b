"""toybox's `tr [-cds] SET1 [SET2]` (toys/pending/tr.c, which Android builds; Debian's toybox
leaves it out, so the device has it by hand), byte for byte:

* a set expands escapes (`\\n`, `\\t`, `\\\\`, `\\e`..., octal `\\NNN`, hex `\\xHH`), ranges `a-z`
  ("tr: reverse colating order" when backwards), the classes `[:alpha:]` `[:alnum:]` `[:digit:]`
  `[:lower:]` `[:upper:]` `[:space:]` `[:blank:]` `[:punct:]` `[:cntrl:]` `[:xdigit:]` in
  toybox's orders, and `[=c=]`;
* SET1 maps onto SET2, whose last byte repeats when it is shorter; -c complements SET1, -d deletes
  SET1's bytes, -s squeezes repeats of the bytes in SET1 and SET2 after translation;
* one operand at least, two at most; stdin to stdout.
"""

from __future__ import annotations

import string

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.system import System

DELETE, SQUEEZE = 0x100, 0x200
ESCAPES = {"n": 10, "t": 9, "e": 27, "b": 8, "a": 7, "f": 12, "v": 11, "r": 13, "\\": 92}
PUNCT = bytes(c for c in range(256) if chr(c) in string.punctuation)
CNTRL = bytes([*range(32), 127])
CLASSES: dict[str, bytes] = {
    "[:alpha:]": bytes(range(65, 91)) + bytes(range(97, 123)),
    "[:alnum:]": bytes(range(65, 91)) + bytes(range(97, 123)) + bytes(range(48, 58)),
    "[:digit:]": bytes(range(48, 58)),
    "[:lower:]": bytes(range(97, 123)),
    "[:upper:]": bytes(range(65, 91)),
    "[:space:]": b"\t\n\f\r\v ",
    "[:blank:]": b"\t ",
    "[:punct:]": PUNCT,
    "[:cntrl:]": CNTRL,
    "[:xdigit:]": bytes(range(48, 58)) + b"ABCDEFabcdef",
}


class TrError(Exception):
    pass


def _escape(text: bytes, at: int) -> tuple[int, int]:
    """handle_escape_char: (the byte, the index after the escape) for text[at] after a backslash."""
    if at >= len(text):
        return 92, at
    char = chr(text[at])
    if char == "x":
        digits = 0
        value = 0
        while digits < 2 and at + 1 + digits < len(text) and chr(text[at + 1 + digits]) in string.hexdigits:
            value = value * 16 + int(chr(text[at + 1 + digits]), 16)
            digits += 1
        return (value & 0xFF, at + 1 + digits) if digits else (92, at)
    if is_decimal(char):
        digits = 0
        value = 0
        while digits < 3 and at + digits < len(text) and chr(text[at + digits]) in "01234567":
            value = value * 8 + int(chr(text[at + digits]))
            digits += 1
        return (value & 0xFF, at + digits) if digits else (92, at)
    if char in ESCAPES:
        return ESCAPES[char], at + 1
    return 92, at


def expand(arg: bytes) -> bytes:
    out = bytearray()
    at = 0
    while at < len(arg):
        if arg[at] == 92:
            value, at = _escape(arg, at + 1)
            out.append(value)
            continue
        if at + 1 < len(arg) and arg[at + 1] == ord("-") and at + 2 < len(arg):
            low, high = arg[at], arg[at + 2]
            if low > high:
                raise TrError("reverse colating order")
            out += bytes(range(low, high + 1))
            at += 3
            continue
        if arg[at : at + 2] == b"[:":
            for name, members in CLASSES.items():
                if arg[at : at + len(name)] == name.encode():
                    out += members
                    at += len(name)
                    break
            else:
                out.append(arg[at])
                at += 1
            continue
        if arg[at : at + 2] == b"[=":
            if at + 4 >= len(arg) + 1 or arg[at + 3 : at + 5] != b"=]":
                raise TrError("bad equiv class")
            out.append(arg[at + 2])
            at += 5
            continue
        out.append(arg[at])
        at += 1
    return bytes(out)


def build_map(set1: bytes, set2: bytes | None, *, complement: bool, delete: bool, squeeze: bool) -> list[int]:
    if complement:
        set1 = bytes(c for c in range(256) if c not in set1)
    table = list(range(256))
    if delete:
        for c in set1:
            table[c] = c | DELETE
    if squeeze:
        for c in set1:
            table[c] |= SQUEEZE
        for c in set2 or b"":
            table[c] |= SQUEEZE
    if not delete and set2:
        k = 0
        for c in set1:
            table[c] = (table[c] & 0xFF00) | set2[k]
            if k + 1 < len(set2):
                k += 1
    return table


def translate(data: bytes, table: list[int], *, delete: bool, squeeze: bool, prev: int) -> tuple[bytes, int]:
    if not delete and not squeeze:
        return bytes(table[c] & 0xFF for c in data), prev
    out = bytearray()
    for c in data:
        mapped = table[c]
        if delete and mapped & DELETE:
            continue
        if squeeze and mapped & SQUEEZE and prev == mapped:
            continue
        out.append(mapped & 0xFF)
        prev = mapped
    return bytes(out), prev


def tr(system: System, proc: pm.Process) -> int:
    flags: set[str] = set()
    operands: list[str] = []
    for arg in proc.argv[1:]:
        if not operands and arg.startswith("-") and len(arg) > 1 and set(arg[1:]) <= set("cCds"):
            flags.update(arg[1:])
        else:
            operands.append(arg)
    if not 1 <= len(operands) <= 2:
        proc.stderr.write("tr: Needs 1 argument\n" if not operands else "tr: Max 2 arguments\n")
        return 1
    try:
        set1 = expand(operands[0].encode("utf-8", "surrogateescape"))
        if len(operands) > 1 and not operands[1]:
            raise TrError("set2 can't be empty string")
        set2 = expand(operands[1].encode("utf-8", "surrogateescape")) if len(operands) > 1 else None
    except TrError as exc:
        proc.stderr.write(f"tr: {exc}\n")
        return 1
    delete, squeeze = "d" in flags, "s" in flags
    table = build_map(set1, set2, complement=bool(flags & {"c", "C"}), delete=delete, squeeze=squeeze)
    prev = -1
    while data := proc.stdin.read():
        out, prev = translate(data, table, delete=delete, squeeze=squeeze, prev=prev)
        proc.stdout.write(out)
    return 0
