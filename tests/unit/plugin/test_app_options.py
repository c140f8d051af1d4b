"""Issue 28 item 8: a bad `--app-apk` or `--app-package` is checked once, at the session's start: one
usage error naming the option, the path and what is wrong, not an error per test with a chained
exception."""

from __future__ import annotations

import pytest

from tests.support.apks import fixture_apk, write

pytest_plugins = ["pytester"]

ISOLATED = ("-p", "no:randomly", "-p", "no:cacheprovider", "--android-serial", "virtual",
            "--emulator-controller", "off")
TWO_TESTS = "def test_a(app):\n    pass\n\ndef test_b(app):\n    pass\n"


@pytest.fixture(autouse=True)
def _isolated(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MOBILE_AGENT_ANDROID_SERIAL", "MOBILE_AGENT_APP_APK"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(pytester.path / "cache"))
    pytester.makepyfile(TWO_TESTS)


def _usage_error(result: pytest.RunResult, line: str) -> None:
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    result.stderr.fnmatch_lines([line])
    everything = result.stdout.str() + result.stderr.str()
    assert "During handling" not in everything and "ERROR at setup" not in everything, everything


def test_an_apk_that_is_not_one_is_one_usage_error_naming_the_file(pytester: pytest.Pytester) -> None:
    (pytester.path / "app.apk").write_text("a shell script, not an APK\n")
    result = pytester.runpytest(*ISOLATED, "--app-apk=app.apk")
    _usage_error(result, "ERROR: --app-apk=app.apk: not a readable APK (zip): File is not a zip file. Name the APK "
                         "your build wrote*")


@pytest.mark.parametrize(("given", "what"), [("missing.apk", "No such file or directory"),
                                             ("build", "is a directory, not an APK file")])
def test_a_path_that_is_no_apk_file_is_one_usage_error(pytester: pytest.Pytester, given: str, what: str) -> None:
    (pytester.path / "build").mkdir()
    result = pytester.runpytest(*ISOLATED, f"--app-apk={given}")
    _usage_error(result, f"ERROR: --app-apk={given}: {what}")


def test_an_app_package_that_is_not_the_apks_is_one_usage_error(pytester: pytest.Pytester) -> None:
    write(pytester.path / "app.apk", fixture_apk(2))
    result = pytester.runpytest(*ISOLATED, "--app-apk=app.apk", "--app-package", "com.example.other")
    _usage_error(result, "ERROR: --app-package com.example.other is not the package of --app-apk=app.apk "
                         "(dev.mobileagent.fixture)")


def test_a_malformed_package_name_is_one_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*ISOLATED, "--app-package", "build/app.apk")
    _usage_error(result, "ERROR: --app-package 'build/app.apk' is not a package name*")


def test_a_package_that_is_not_installed_is_one_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*ISOLATED, "--app-package", "com.example.nothere")
    _usage_error(result, "ERROR: --app-package com.example.nothere is not installed on emulator-5554. Install it, or "
                         "name its APK with --app-apk=PATH")
