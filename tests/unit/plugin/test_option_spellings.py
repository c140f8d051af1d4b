"""A path option written as two words (`--agent-jar PATH`, as README wrote it): pytest decides its
rootdir and ini file before it loads the plugin that defines the option (_pytest/config/__init__.py,
`_preparse`: `determine_setup(args=ns.file_or_dir)` runs before `load_setuptools_entrypoints`), so
it takes PATH for a test path, and the rootdir moves to the common ancestor of the tests and PATH
(`/` for a jar outside the project), with its `.pytest_cache` and without the project's ini file.

The plugin refuses that spelling with the reason and the one-word spelling to use; the one-word
spelling keeps the rootdir where it belongs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.apks import fixture_apk, write

pytest_plugins = ["pytester"]

PATH_OPTIONS = ("--agent-jar", "--agent-records", "--app-apk")


@pytest.fixture
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file and a directory beside, not inside, the project pytester makes."""
    place = tmp_path_factory.mktemp("elsewhere")
    (place / "thing.jar").write_bytes(b"PK\x05\x06" + bytes(18))
    write(place / "thing.apk", fixture_apk(2))  # --app-apk is read at the session's start
    return place


def value_of(flag: str, outside: Path) -> Path:
    return {"--agent-records": outside, "--app-apk": outside / "thing.apk"}.get(flag, outside / "thing.jar")


def project(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nmarkers =\n    ours: a marker only the project's ini file declares\n")
    pytester.makepyfile(test_one="import pytest\n\n@pytest.mark.ours\ndef test_one():\n    pass\n")


@pytest.mark.parametrize("flag", PATH_OPTIONS)
def test_a_path_option_as_two_words_is_refused_with_the_spelling_to_use(pytester: pytest.Pytester, outside: Path,
                                                                      flag: str) -> None:
    project(pytester)
    value = value_of(flag, outside)
    result = pytester.runpytest(flag, str(value), "-p", "no:xdist", "--strict-markers")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*write {flag}={value} as one word*rootdir*"])
    assert not (outside / ".pytest_cache").exists() and not (outside.parent / ".pytest_cache").exists()


@pytest.mark.parametrize("flag", PATH_OPTIONS)
def test_a_path_option_as_one_word_keeps_the_projects_rootdir_and_ini(pytester: pytest.Pytester, outside: Path,
                                                                      flag: str) -> None:
    project(pytester)
    value = value_of(flag, outside)
    result = pytester.runpytest(f"{flag}={value}", "-p", "no:xdist", "--strict-markers")
    result.stdout.fnmatch_lines([f"rootdir: {pytester.path}*"])
    assert result.ret == pytest.ExitCode.OK  # the ini's marker was read: --strict-markers passes


def test_a_value_option_as_two_words_whose_value_is_no_path_is_fine(pytester: pytest.Pytester) -> None:
    project(pytester)
    result = pytester.runpytest("--quiet-wait", "5", "--fixture-package", "com.example", "-p", "no:xdist",
                                           "--strict-markers")
    result.stdout.fnmatch_lines([f"rootdir: {pytester.path}*"])
    assert result.ret == pytest.ExitCode.OK
