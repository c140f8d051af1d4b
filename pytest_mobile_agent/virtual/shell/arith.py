"""Arithmetic expansion `$((EXPR))` of the device shell: mksh's integer arithmetic, 32-bit signed.

Numbers (decimal, 0x hex, leading-0 octal), variables by name (unset or empty is 0, a value that is
itself an expression is evaluated), unary `+ - ! ~`, `* / %`, `+ -`, `<< >>`, `< <= > >=`, `== !=`,
`&`, `^`, `|`, `&&`, `||`, `?:` and parentheses. Errors (a bad token, division by zero, nesting
too deep) are ShellSyntaxError with mksh's wording ("EXPR: division by zero",
"EXPR: unexpected 'X'"), which the shell prints, failing the command with status 1.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.shell.syntax import ShellSyntaxError

_TOKEN = re.compile(r"\s*(0[xX][0-9a-fA-F]+|\d+|[A-Za-z_][A-Za-z0-9_]*|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%()<>!~&^|?:])")
_BINARY: dict[str, tuple[int, Callable[[int, int], int]]] = {
    "||": (1, lambda a, b: int(bool(a) or bool(b))),
    "&&": (2, lambda a, b: int(bool(a) and bool(b))),
    "|": (3, lambda a, b: a | b),
    "^": (4, lambda a, b: a ^ b),
    "&": (5, lambda a, b: a & b),
    "==": (6, lambda a, b: int(a == b)),
    "!=": (6, lambda a, b: int(a != b)),
    "<": (7, lambda a, b: int(a < b)),
    "<=": (7, lambda a, b: int(a <= b)),
    ">": (7, lambda a, b: int(a > b)),
    ">=": (7, lambda a, b: int(a >= b)),
    "<<": (8, lambda a, b: a << (b & 31)),
    ">>": (8, lambda a, b: a >> (b & 31)),
    "+": (9, lambda a, b: a + b),
    "-": (9, lambda a, b: a - b),
    "*": (10, lambda a, b: a * b),
    "/": (10, lambda a, b: _divide(a, b, False)),
    "%": (10, lambda a, b: _divide(a, b, True)),
}
MAX_DEPTH = 64


def _wrap(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _divide(a: int, b: int, remainder: bool) -> int:
    if b == 0:
        raise ZeroDivisionError
    quotient = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)  # C truncates toward zero
    return a - quotient * b if remainder else quotient


def evaluate(text: str, lookup: Callable[[str], str | None], depth: int = 0) -> int:
    """The value of an arithmetic expression; `lookup(name)` gives a variable's text."""
    if depth > MAX_DEPTH:
        raise ShellSyntaxError(f"{text.strip()}: expression recurses on parameter")
    tokens = _tokenize(text)
    parser = _Parser(text, tokens, lookup, depth)
    try:
        value = parser.expression(0)
    except ZeroDivisionError:
        raise ShellSyntaxError(f"{text.strip()}: division by zero") from None
    if parser.pos != len(tokens):
        raise ShellSyntaxError(f"{text.strip()}: unexpected '{tokens[parser.pos]}'")
    return value


def _tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if match is None:
            bad = text[pos:].strip()[:1]
            raise ShellSyntaxError(f"{text.strip()}: unexpected '{bad}'")
        tokens.append(match.group(1))
        pos = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str, tokens: list[str], lookup: Callable[[str], str | None], depth: int) -> None:
        self.text = text
        self.tokens = tokens
        self.pos = 0
        self.lookup = lookup
        self.depth = depth
        self.nesting = 0

    def peek(self) -> str:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ""

    def take(self) -> str:
        token = self.peek()
        if not token:
            raise ShellSyntaxError(f"{self.text.strip()}: unexpected end of expression")
        self.pos += 1
        return token

    def expression(self, min_precedence: int) -> int:
        self.nesting += 1
        if self.nesting > MAX_DEPTH:
            raise ShellSyntaxError(f"{self.text.strip()}: expression nested too deeply")
        left = self.unary()
        while True:
            op = self.peek()
            if op == "?" and min_precedence == 0:
                self.take()
                then = self.expression(0)
                if self.take() != ":":
                    raise ShellSyntaxError(f"{self.text.strip()}: missing ':'")
                otherwise = self.expression(0)
                left = then if left else otherwise
                continue
            if op not in _BINARY or _BINARY[op][0] < min_precedence:
                break
            precedence, fn = _BINARY[op]
            self.take()
            right = self.expression(precedence + 1)
            left = _wrap(fn(left, right))
        self.nesting -= 1
        return left

    def unary(self) -> int:
        token = self.take()
        if token in ("+", "-", "!", "~"):
            value = self.unary()
            return _wrap({"+": value, "-": -value, "!": int(not value), "~": ~value}[token])
        if token == "(":
            value = self.expression(0)
            if self.take() != ")":
                raise ShellSyntaxError(f"{self.text.strip()}: missing ')'")
            return value
        if is_decimal(token[0]):
            base = 16 if token[:2].lower() == "0x" else 8 if len(token) > 1 and token[0] == "0" else 10
            try:
                return _wrap(int(token, base))
            except ValueError:
                raise ShellSyntaxError(f"{self.text.strip()}: bad number '{token}'") from None
        if token[0].isalpha() or token[0] == "_":
            text = (self.lookup(token) or "").strip()
            return evaluate(text, self.lookup, self.depth + 1) if text else 0
        raise ShellSyntaxError(f"{self.text.strip()}: unexpected '{token}'")
