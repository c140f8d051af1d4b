"""The file names in a sed script: what toybox's sed would read (`r FILE`) or write (`w FILE`,
`s/a/b/w FILE`), so the virtual device can stage them instead of letting sed touch host paths.

The walk follows parse_pattern in toybox's toys/posix/sed.c (0.8.x): addresses (numbers, `$`,
`/re/` or `\\cREc` with escapes and bracket ranges in which the delimiter does not count, `,`,
`+N`, `first~step`), `!`, then the command: `s` and `y` skip their delimited parts (s flags after
them, `w FILE` among them), `abcirtTqQw:` take the rest of the line (`btTqQ:` only to `}`, `;` or
a blank; `a`, `i`, `c` continue past a backslash at the end of a line), the others take nothing;
`;`, blanks and `# comments` separate commands. A script the walk cannot follow raises
`ValueError`: the caller refuses it rather than run something it did not understand.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_mobile_agent.virtual.kernel.numbers import is_decimal

NO_ARGUMENT = frozenset("{}dDgGhHlnNpPx=")
TO_LINE_END = frozenset("aicrw")
TO_WORD_END = frozenset("btTqQ:")


@dataclass(frozen=True)
class FileName:
    command: str  # "r" (read) or "w" (write)
    start: int
    end: int  # script[start:end] is the name


def file_names(script: str) -> list[FileName]:
    """The spans of the file names the script's r and w commands (and s///w flags) name."""
    found: list[FileName] = []
    at = 0
    size = len(script)
    while True:
        at = _skip_separators(script, at)
        if at >= size:
            return found
        at = _skip_address(script, at)
        while at < size and script[at] in " \t!":
            at += 1
        if at >= size:
            raise ValueError("a sed address without a command")
        command = script[at]
        at += 1
        if command in NO_ARGUMENT:
            continue
        if command == "s":
            at = _skip_delimited(script, at, parts=2)
            at = _skip_s_flags(script, at)
            if at < size and script[at] == "w":
                at, name = _line_argument(script, at + 1, "w")
                found.append(name)
            continue
        if command == "y":
            at = _skip_delimited(script, at, parts=2)
            continue
        if command in TO_LINE_END:
            at, name = _line_argument(script, at, command)
            if command in "rw":
                found.append(name)
            continue
        if command in TO_WORD_END:
            while at < size and script[at] in " \t":
                at += 1
            while at < size and script[at] not in "}; \t\r\n\v\f":
                at += 1
            continue
        raise ValueError(f"sed command {command!r} is not one toybox's sed knows")


def _skip_separators(script: str, at: int) -> int:
    while at < len(script):
        if script[at].isspace() or script[at] == ";":
            at += 1
        elif script[at] == "#":
            while at < len(script) and script[at] != "\n":
                at += 1
        else:
            break
    return at


def _skip_address(script: str, at: int) -> int:
    for index in range(2):
        if index:
            if at < len(script) and script[at] == ",":
                at += 1
            else:
                return at
        if at < len(script) and script[at] == "+" and index:
            at += 1
        if at < len(script) and is_decimal(script[at]):
            while at < len(script) and (is_decimal(script[at]) or script[at] == "~"):
                at += 1
        elif at < len(script) and script[at] == "$":
            at += 1
        elif at < len(script) and script[at] in "/\\":
            at = _skip_delimited(script, at, parts=1)
            while at < len(script) and script[at] in "IM":
                at += 1
    return at


def _skip_delimited(script: str, at: int, *, parts: int) -> int:
    """Past `parts` delimited strings: `/re/` (or `\\cREc` for an address), bracket ranges and
    escapes kept whole, as unescape_delimited_string reads them."""
    if at >= len(script):
        raise ValueError("a sed script ends where a delimiter was expected")
    delimiter = script[at]
    at += 1
    if delimiter == "\\":
        if at >= len(script):
            raise ValueError("a sed script ends after a backslash")
        delimiter = script[at]
        at += 1
    if delimiter in "\\\n":
        raise ValueError("a sed delimiter cannot be a backslash or a newline")
    for part in range(parts):
        at = _skip_part(script, at, delimiter, in_regex=part == 0)
    return at


def _skip_part(script: str, at: int, delimiter: str, *, in_regex: bool) -> int:
    mode = ""
    while True:
        if at >= len(script):
            raise ValueError("an unterminated sed pattern")
        char = script[at]
        if in_regex and char == "[" and not mode:
            mode = "]"
            if script[at + 1 : at + 2] in ("-", "]"):
                at += 1
        elif in_regex and char == "[" and mode == "]" and script[at + 1 : at + 2] in (".", "=", ":"):
            mode = script[at + 1]
            at += 1
        elif in_regex and mode and char == mode:
            mode = "" if mode == "]" else "]"
        elif char == "\\":
            at += 1
        elif char == delimiter and not mode:
            return at + 1
        at += 1


def _skip_s_flags(script: str, at: int) -> int:
    while at < len(script) and (script[at] in "igpxI" or is_decimal(script[at]) or script[at] in " \t"):
        at += 1
    return at


def _line_argument(script: str, at: int, command: str) -> tuple[int, FileName]:
    """The argument to the end of the line (a file name for r; text for a, i, c, which a
    backslash at the end of a line continues). toybox's `w` name runs to the end of the script
    text, newlines included, or to `\\;`."""
    while at < len(script) and script[at] in " \t":
        at += 1
    start = at
    while at < len(script) and (script[at] != "\n" or command == "w"):
        if command == "w" and script[at] == "\\" and script[at + 1 : at + 2] == ";":
            break
        if command in "aic" and script[at] == "\\" and at + 1 < len(script):
            at += 2
            continue
        at += 1
    return at, FileName(command, start, at)
