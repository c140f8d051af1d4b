"""The `app` fixture as an app team uses it: --app-apk installed once per session (skipped when the
same versionCode and bytes are there), app.start/stop/clear/grant, the `app` marker, the force-stop
at teardown, the crash buffer in a failing test's artifacts; compose_fixture as a thin use of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.apks import fixture_apk, other_apk, write

pytest_plugins = ["pytester"]

ISOLATED = ("-p", "no:randomly", "--android-serial", "virtual", "--emulator-controller", "off")


@pytest.fixture(autouse=True)
def _isolated(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOBILE_AGENT_ANDROID_SERIAL", raising=False)
    monkeypatch.delenv("MOBILE_AGENT_APP_APK", raising=False)
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(pytester.path / "cache"))


SUITE = """
from pathlib import Path

import pytest

def installs(android_target):
    device = android_target.lab.device(android_target.serial)
    return [line for line in device.log_lines() if "PackageManager: " in line and "dev.mobileagent.fixture" in line]

def test_first_starts_the_app_on_a_tab(app, screen, device):
    assert app.package == "dev.mobileagent.fixture" and app.activity == "dev.mobileagent.fixture.MainActivity"
    app.start(extras={"tab": "List"})
    assert screen.wait_for(text="Item 1", timeout=10)
    assert device.package_version(app.package).code == @VERSION@

def test_second_finds_it_stopped_and_installed_once(app, device, android_target):
    from pytest_mobile_agent.control.app_under_test import foreground_package
    assert foreground_package(device) != app.package, "the first test's teardown force-stopped it"
    assert len(installs(android_target)) == @INSTALLS@, installs(android_target)

@pytest.mark.app(clear=True, permissions=["android.permission.CAMERA"])
def test_the_marker_clears_and_grants(app, device, android_target):
    assert "android.permission.CAMERA: granted=true" in device.shell("dumpsys package dev.mobileagent.fixture").text()
    lab_device = android_target.lab.device(android_target.serial)
    assert any("Force stopping dev.mobileagent.fixture" in line and "clear data" in line
               for line in lab_device.log_lines())
"""


def test_an_apk_is_installed_once_per_session_and_each_test_starts_it_fresh(pytester: pytest.Pytester) -> None:
    apk = write(pytester.path / "app-v2.apk", fixture_apk(2))
    pytester.makepyfile(SUITE.replace("@VERSION@", "2").replace("@INSTALLS@", "2"))
    result = pytester.runpytest(*ISOLATED, f"--app-apk={apk}")
    result.assert_outcomes(passed=3)


def test_the_same_version_and_bytes_already_installed_are_not_installed_again(pytester: pytest.Pytester) -> None:
    apk = write(pytester.path / "app.apk", fixture_apk())  # byte for byte what the virtual device has
    pytester.makepyfile(
        SUITE.replace("@VERSION@", "1").replace("@INSTALLS@", "1")
    )  # the one install is the device's own
    result = pytester.runpytest(*ISOLATED, f"--app-apk={apk}")
    result.assert_outcomes(passed=3)


def test_an_app_without_a_ui_model_starts_its_launchable_activity(pytester: pytest.Pytester) -> None:
    apk = write(pytester.path / "notes.apk", other_apk())
    pytester.makepyfile("""
        def test_notes(app, screen, device):
            assert app.activity == "dev.mobileagent.it.notes.NotesActivity"
            app.start()
            assert screen.wait_for(text="Notes", timeout=10)
            app.start(activity=".SettingsActivity")
    """)
    pytester.runpytest(*ISOLATED, f"--app-apk={apk}").assert_outcomes(passed=1)


def test_an_installed_package_is_named_with_app_package(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        def test_existing(app):
            assert app.activity == "dev.mobileagent.fixture.MainActivity", "the launchable activity, resolved"
            app.start()
    """)
    pytester.runpytest(*ISOLATED, "--app-package", "dev.mobileagent.fixture").assert_outcomes(passed=1)


def test_without_an_app_named_the_fixture_says_which_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x(app):\n    pass\n")
    result = pytester.runpytest(*ISOLATED)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*the app fixture needs the app under test: --app-apk=PATH*--app-package NAME*"])


def test_a_refused_apk_fails_the_test_with_the_package_managers_code(pytester: pytest.Pytester) -> None:
    apk = write(pytester.path / "unsigned.apk", other_apk(signed=False))
    pytester.makepyfile("def test_x(app):\n    pass\n")
    result = pytester.runpytest(*ISOLATED, f"--app-apk={apk}")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*cannot be installed*INSTALL_PARSE_FAILED_NO_CERTIFICATES*"])


def test_a_failing_test_carries_the_crash_buffer(pytester: pytest.Pytester) -> None:
    apk = write(pytester.path / "app.apk", fixture_apk())
    pytester.makepyfile("""
        def test_the_app_dies(app, screen, device):
            app.start()
            # uiautomator while our agent holds UI automation dies by an uncaught exception: a crash
            device.shell("uiautomator events")
            assert False, "the app crashed"
    """)
    result = pytester.runpytest(*ISOLATED, f"--app-apk={apk}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*- mobile-agent crash -*", "*beginning of crash*", "*AndroidRuntime: FATAL EXCEPTION*"]
    )
    artifacts = next((pytester.path / ".pytest_cache" / "d" / "mobile-agent" / "artifacts").iterdir())
    assert "FATAL EXCEPTION" in (artifacts / "crash.txt").read_text()


def test_compose_fixture_is_the_app_handle_on_the_fixture_app(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        def test_big(compose_fixture, screen):
            started = compose_fixture(tab="Big")
            assert started.package == "dev.mobileagent.fixture"
            assert started.component() == "dev.mobileagent.fixture/dev.mobileagent.fixture.MainActivity"
            assert screen.wait_for(text="Cell 500", timeout=10)
    """)
    pytester.runpytest(*ISOLATED).assert_outcomes(passed=1)


def test_the_marker_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["*@pytest.mark.app(clear=False, permissions=()): per-test state*"])


def test_app_apk_comes_from_the_environment(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    apk = write(pytester.path / "notes.apk", other_apk())
    monkeypatch.setenv("MOBILE_AGENT_APP_APK", str(apk))
    pytester.makepyfile("def test_x(app):\n    assert app.package == 'dev.mobileagent.it.notes'\n")
    pytester.runpytest(*ISOLATED).assert_outcomes(passed=1)




def test_with_autoload_off_pytest_plugins_imports_the_plugin(pytester: pytest.Pytester,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """README's recipe for PYTEST_DISABLE_PLUGIN_AUTOLOAD=1: `pytest_plugins` in the root conftest."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makeconftest('pytest_plugins = ["pytest_mobile_agent.plugin"]\n')
    pytester.makepyfile(
        "def test_x(compose_fixture, screen):\n    compose_fixture(tab='Big')\n    assert "
        "screen.wait_for(id='cell_1', timeout=10)\n"
    )
    pytester.runpytest(*ISOLATED).assert_outcomes(passed=1)
    pytester.makeconftest("")
    without = pytester.runpytest(*ISOLATED)  # without it the plugin is not there at all
    assert without.ret == pytest.ExitCode.USAGE_ERROR
    without.stderr.fnmatch_lines(["*unrecognized arguments: --android-serial*"])


def test_readmes_testing_your_app_suite_passes_as_written(pytester: pytest.Pytester) -> None:
    import re

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    section = readme.split("## Testing your app", 1)[1].split("\n## ", 1)[0]
    conftest, suite = re.findall(r"```python\n(.*?)```", section, re.S)[:2]
    assert conftest.startswith("# conftest.py") and suite.startswith("# test_app.py")
    pytester.makeconftest(conftest)
    pytester.makepyfile(test_app=suite)
    apk = write(pytester.path / "app.apk", fixture_apk(2))
    pytester.runpytest(*ISOLATED, f"--app-apk={apk}").assert_outcomes(passed=2)


MARKED_WITHOUT_THE_FIXTURE = """
import pytest

@pytest.mark.app(clear=True, permissions=["android.permission.CAMERA"])
def test_marked_only(screen, device):
    assert "android.permission.CAMERA: granted=true" in device.shell("dumpsys package dev.mobileagent.fixture").text()
"""


def test_the_marker_takes_effect_without_the_app_fixture(pytester: pytest.Pytester) -> None:
    """Issue 41 item 4: `@pytest.mark.app(clear=True, permissions=[...])` did nothing, with no warning,
    unless the test asked for the `app` fixture."""
    pytester.makepyfile(MARKED_WITHOUT_THE_FIXTURE)
    result = pytester.runpytest(*ISOLATED, "--app-package", "dev.mobileagent.fixture")
    result.assert_outcomes(passed=1)


def test_the_marker_with_no_app_named_is_a_usage_error_naming_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(MARKED_WITHOUT_THE_FIXTURE)
    result = pytester.runpytest(*ISOLATED)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*@pytest.mark.app(clear=True, permissions=[[]'android.permission.CAMERA'[]]) needs "
                                 "the app under test: --app-apk=PATH or --app-package NAME*"])
