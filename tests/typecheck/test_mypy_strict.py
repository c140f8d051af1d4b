"""`mypy --strict` on user-style code (issue 23, item 1): user_code.py type-checks clean, and each
mistake in user_mistakes.py is flagged on its line with the error code (and words) its `# E:`
marker gives, and nothing else is. mypy runs in-process (`mypy.api.run`) with this folder's
mypy.ini, which reads the package's types without checking the package's own code."""

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


def mypy_strict(path: Path, cache: Path) -> tuple[int, list[str]]:
    stdout, stderr, status = api.run(["--config-file", str(CONFIG), "--cache-dir", str(cache),
                                      "--no-error-summary", "--hide-error-context", str(path.relative_to(ROOT))])
    assert not stderr, stderr
    return status, [line for line in stdout.splitlines() if line]


def expected_errors(path: Path) -> dict[int, tuple[str, str | None]]:
    found = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        marker = MARKER.search(line)
        if marker:
            found[number] = (marker["code"], marker["words"])
    return found


@pytest.fixture
def in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # mypy finds the package from the source tree, as CI runs it


@pytest.mark.usefixtures("in_root")
def test_user_code_passes_mypy_strict(tmp_path: Path) -> None:
    status, lines = mypy_strict(HERE / "user_code.py", tmp_path / "cache")
    assert (status, lines) == (0, [])


@pytest.mark.usefixtures("in_root")
def test_each_mistake_is_flagged_on_its_line_and_nothing_else(tmp_path: Path) -> None:
    path = HERE / "user_mistakes.py"
    expected = expected_errors(path)
    assert len(expected) >= 15
    status, lines = mypy_strict(path, tmp_path / "cache")
    errors = [ERROR.match(line) for line in lines if ": error: " in line]
    assert None not in errors, lines
    got = {int(e["line"]): (e["code"], e["message"]) for e in errors if e is not None}
    assert status == 1
    assert sorted(got) == sorted(expected), "\n".join(lines)
    for line, (code, words) in expected.items():
        assert got[line][0] == code, f"line {line}: {got[line]}"
        assert words is None or words in got[line][1], f"line {line}: {got[line][1]!r} lacks {words!r}"
