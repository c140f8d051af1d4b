"""Issue 16 item 6: a path option's value, as two words (`--agent-jar PATH`, as README wrote it) or
one (`--agent-jar=PATH`), never moves pytest's rootdir nor loses the project's ini file."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

PATH_OPTIONS = ("--agent-jar", "--agent-records", "--app-apk")


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOBILE_AGENT_ANDROID_SERIAL", raising=False)
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))


def _outside(pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, flag: str) -> Path:
    """A path outside the project, in a sibling directory: the common ancestor is their parent."""
    outside = tmp_path_factory.mktemp("outside")
    assert outside.parent == pytester.path.parent
    if flag == "--agent-records":
        return outside
    value = outside / ("agent.jar" if flag == "--agent-jar" else "app.apk")
    value.write_bytes(b"PK")
    return value


@pytest.mark.parametrize("flag", PATH_OPTIONS)
def test_two_words_never_move_the_rootdir(pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
                                          flag: str) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makepyfile("def test_x():\n    pass\n")
    value = _outside(pytester, tmp_path_factory, flag)
    result = pytester.runpytest_subprocess("-p", "no:randomly", flag, str(value))
    assert not (pytester.path.parent / ".pytest_cache").exists()
    assert f"rootdir: {pytester.path.parent}\n" not in result.stdout.str() + "\n"
    result.stderr.fnmatch_lines([f"ERROR: {flag} {value}: pytest read the value as a test path *, which moved its "
                                 f"rootdir to {pytester.path.parent} (it is {pytester.path} without it)*"
                                 f"write it as one word: {flag}={value} *"])
    assert result.ret == pytest.ExitCode.USAGE_ERROR


@pytest.mark.parametrize("flag", PATH_OPTIONS)
def test_one_word_keeps_the_rootdir_and_the_ini_file(pytester: pytest.Pytester,
                                                     tmp_path_factory: pytest.TempPathFactory, flag: str) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makepyfile("def test_x():\n    pass\n")
    value = _outside(pytester, tmp_path_factory, flag)
    result = pytester.runpytest_subprocess("-p", "no:randomly", f"{flag}={value}")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"rootdir: {pytester.path}", "configfile: tox.ini"])


def test_two_words_inside_the_project_are_fine(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makepyfile("def test_x():\n    pass\n")
    jar = pytester.path / "build" / "agent.jar"
    jar.parent.mkdir()
    jar.write_bytes(b"PK")
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider", "--agent-jar", "build/agent.jar")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"rootdir: {pytester.path}"])
