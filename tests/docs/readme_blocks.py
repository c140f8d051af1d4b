"""README.md's code blocks as tests/docs/test_readme.py runs them.

Python blocks come from pytest-examples (`find_examples`, each a `CodeExample` with its line), shell
blocks from the same fences read here (pytest-examples finds Python only). A block's first line may
name its file (`# conftest.py`, `# test_app.py`); a Python block without a name is a test file of
its own. A command line whose comment says `not run in CI` is only checked: the shell parses it and
every option it names exists. A command line that .ci/run runs verbatim is CI's own. A command line
whose comment says `until Ctrl-C` is a server: started, used by the block's later lines, then
interrupted. Every other command line runs, and must exit 0.
"""

from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from pytest_examples import CodeExample, find_examples

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
NOT_RUN = "not run in CI"
SERVER = "until Ctrl-C"
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
FILE_NAME = re.compile(r"#\s*([\w./-]+\.py)\s*$")


@dataclass(frozen=True)
class Block:
    language: str
    source: str
    line: int  # of the opening fence, 1-based

    @property
    def where(self) -> str:
        return f"README.md:{self.line}"


@dataclass(frozen=True)
class Command:
    """One command line of a shell block: the command, and the comment after it."""

    text: str
    comment: str
    line: int

    @property
    def not_run(self) -> bool:
        return NOT_RUN in self.comment

    @property
    def server(self) -> bool:
        return SERVER in self.comment

    def words(self) -> list[str]:
        return shlex.split(self.text)


def blocks(readme: Path = README) -> list[Block]:
    text = readme.read_text()
    return [Block(match[1].strip().split(" ")[0], match[2], text[: match.start()].count("\n") + 1)
            for match in FENCE.finditer(text)]


def python_examples(readme: Path = README) -> list[CodeExample]:
    return list(find_examples(readme))


def file_name(example: CodeExample) -> str:
    """The file a Python block is: the name its first line gives, else a test file of its own."""
    first = example.source.lstrip().splitlines()[0] if example.source.strip() else ""
    named = FILE_NAME.fullmatch(first.strip())
    return named[1] if named else f"test_readme_{example.start_line}.py"


def count_tests(source: str) -> int:
    """How many test functions a block defines (each must pass)."""
    return sum(isinstance(node, ast.FunctionDef) and node.name.startswith("test")
               for node in ast.parse(source).body)


def commands(block: Block) -> list[Command]:
    """The command lines of a shell block, continuation lines joined, comments apart."""
    found: list[Command] = []
    pending, start = "", 0
    for number, raw in enumerate(block.source.splitlines(), start=block.line + 1):
        if not pending:
            start = number
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        line = pending + raw
        pending = ""
        code, comment = _split_comment(line)
        if code.strip():
            found.append(Command(code.strip(), comment, start))
    return found


def _split_comment(line: str) -> tuple[str, str]:
    """The code and the comment of a line: the first `#` outside quotes that starts a word."""
    quote: str | None = None
    for index, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index], line[index + 1:].strip()
    return line, ""
