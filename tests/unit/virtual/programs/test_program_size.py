"""The programs stay module-level functions of a readable size: none in virtual/programs/ is
longer than MAX_LINES (its decorators, signature, docstring and body)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pytest_mobile_agent.virtual import programs

MAX_LINES = 80
SOURCES = sorted(Path(programs.__file__).parent.glob("*.py"))


def function_lengths(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, lines) of every function and method in `source`, nested ones too."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            assert node.end_lineno is not None
            found.append((node.name, first, node.end_lineno - first + 1))
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_function_is_longer_than_80_lines(path: Path) -> None:
    too_long = [(name, line, size) for name, line, size in function_lengths(path.read_text()) if size > MAX_LINES]
    assert too_long == [], f"{path.name}: {too_long}"


def test_the_measure_counts_a_function_from_its_decorator_to_its_last_line() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    source = f"import functools\n\n\n@functools.cache\ndef long() -> None:\n{body}\n"
    assert function_lengths(source) == [("long", 4, MAX_LINES + 2)]
