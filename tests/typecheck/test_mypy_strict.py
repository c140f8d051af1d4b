"""`mypy --strict` on user-style code (issue 23, item 1): user_code.py type-checks clean, and each
mistake in user_mistakes.py is flagged on its line with the error code (and words) its `# E:`
marker gives, and nothing else is. mypy runs in-process (`mypy.api.run`) with this folder's
mypy.ini, which reads the package's types without checking the package's own code: once, over both
files (most of a run is reading the package and the standard library), each test reading its file's
lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api", reason="mypy is a dev extra")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CONFIG = HERE / "mypy.ini"
MARKER = re.compile(r"#\s*E:\s*(?P<code>[a-z-]+)(?::\s*(?P<words>.+?))?\s*$")
ERROR = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: (?P<message>.*?)\s+\[(?P<code>[a-z-]+)\]$")
USER_CODE = HERE / "user_code.py"
USER_MISTAKES = HERE / "user_mistakes.py"


def mypy_strict(paths: list[Path], cache: Path) -> tuple[int, list[str]]:
    stdout, stderr, status = api.run(["--config-file", str(CONFIG), "--cache-dir", str(cache),
                                      "--no-error-summary", "--hide-error-context",
                                      *(str(path.relative_to(ROOT)) for path in paths)])
    assert not stderr, stderr
    return status, [line for line in stdout.splitlines() if line]


def lines_of(path: Path, lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith(f"{path.relative_to(ROOT)}:")]


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, list[str]]:
    """mypy --strict over the user's file and the mistakes file, run from the source tree as CI runs it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)  # mypy finds the package from the source tree
        return mypy_strict([USER_CODE, USER_MISTAKES], tmp_path_factory.mktemp("mypy-cache"))


def expected_errors(path: Path) -> dict[int, tuple[str, str | None]]:
    found = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        marker = MARKER.search(line)
        if marker:
            found[number] = (marker["code"], marker["words"])
    return found


def test_user_code_passes_mypy_strict(checked: tuple[int, list[str]]) -> None:
    _, lines = checked
    assert lines_of(USER_CODE, lines) == []
    assert len(lines_of(USER_CODE, lines)) + len(lines_of(USER_MISTAKES, lines)) == len(lines), \
        "every line mypy printed names one of the two files"


def test_each_mistake_is_flagged_on_its_line_and_nothing_else(checked: tuple[int, list[str]]) -> None:
    expected = expected_errors(USER_MISTAKES)
    assert len(expected) >= 15
    status, all_lines = checked
    lines = lines_of(USER_MISTAKES, all_lines)
    errors = [ERROR.match(line) for line in lines if ": error: " in line]
    assert None not in errors, lines
    got = {int(e["line"]): (e["code"], e["message"]) for e in errors if e is not None}
    assert status == 1
    assert sorted(got) == sorted(expected), "\n".join(lines)
    for line, (code, words) in expected.items():
        assert got[line][0] == code, f"line {line}: {got[line]}"
        assert words is None or words in got[line][1], f"line {line}: {got[line][1]!r} lacks {words!r}"
