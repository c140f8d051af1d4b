"""The plugin has one name, `pytest_mobile_agent.plugin`: the entry point's, the module's that
`pytest_plugins` and `-p` import, the one `-p no:` turns off, and the one the header prints. Each
run is a subprocess, as a user's is, with plugin autoloading on and off."""

from __future__ import annotations

import pytest

from tests.unit.plugin.plugin_inner_runs import ISOLATED, isolate

PLUGIN = "pytest_mobile_agent.plugin"
USES_THE_PLUGIN = """
def test_the_plugin_is_there(pytestconfig):
    assert pytestconfig.getoption("android_serial") is None
    assert pytestconfig.pluginmanager.get_plugin("pytest_mobile_agent.plugin") is not None
"""

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(pytester, monkeypatch)


def _autoload(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    if on:
        monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    else:
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


@pytest.mark.parametrize("autoload", [True, False], ids=["autoload on", "autoload off"])
def test_pytest_plugins_in_the_root_conftest_loads_it(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                      autoload: bool) -> None:
    _autoload(monkeypatch, autoload)
    pytester.makeconftest(f"pytest_plugins = [{PLUGIN!r}]\n")
    pytester.makepyfile(USES_THE_PLUGIN)
    result = pytester.runpytest(*ISOLATED)
    result.assert_outcomes(passed=1)
    assert "already registered" not in result.stderr.str()


@pytest.mark.parametrize("autoload", [True, False], ids=["autoload on", "autoload off"])
def test_dash_p_loads_it(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, autoload: bool) -> None:
    _autoload(monkeypatch, autoload)
    pytester.makepyfile(USES_THE_PLUGIN)
    result = pytester.runpytest(*ISOLATED, "-p", PLUGIN)
    result.assert_outcomes(passed=1)


def test_the_header_names_the_plugin_and_dash_p_no_turns_it_off_by_that_name(pytester: pytest.Pytester,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _autoload(monkeypatch, True)
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(*ISOLATED)
    result.stdout.fnmatch_lines([f"mobile-agent: plugin {PLUGIN} *(-p no:{PLUGIN} turns it off)"])
    off = pytester.runpytest(*ISOLATED, "-p", f"no:{PLUGIN}")
    off.assert_outcomes(passed=1)
    assert "mobile-agent:" not in off.stdout.str()
    refused = pytester.runpytest(*ISOLATED, "-p", f"no:{PLUGIN}", "--android-serial", "virtual")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*unrecognized arguments: --android-serial*"])
