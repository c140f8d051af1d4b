"""Issue 24: the evidence options never clash with pytest-playwright's, so both plugins load together.
pytest-playwright's options are declared here as its plugin declares them
(pytest_playwright/pytest_playwright.py, `pytest_addoption`): argparse refuses a second
declaration of a flag, so a clash would be a usage error at the start of this run."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

PLAYWRIGHTS_OPTIONS = '''
def pytest_addoption(parser):
    group = parser.getgroup("playwright", "Playwright")
    group.addoption("--browser", action="append", default=[])
    group.addoption("--headed", action="store_true", default=False)
    group.addoption("--browser-channel", default=None)
    group.addoption("--slowmo", default=0, type=int)
    group.addoption("--device", default=None)
    group.addoption("--output", default="test-results")
    group.addoption("--tracing", default="off", choices=["on", "off", "retain-on-failure"])
    group.addoption("--video", default="off", choices=["on", "off", "retain-on-failure"])
    group.addoption("--screenshot", default="off", choices=["on", "off", "only-on-failure"])
    group.addoption("--full-page-screenshot", action="store_true", default=False)
    parser.addini("playwright_pytest_asyncio", "", type="bool", default=None)
'''


def test_both_plugins_options_parse_together(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOBILE_AGENT_ANDROID_SERIAL", raising=False)
    pytester.makeconftest(PLAYWRIGHTS_OPTIONS)
    pytester.makepyfile("""
        def test_options(pytestconfig):
            assert pytestconfig.getoption("tracing") == "on"
            assert pytestconfig.getoption("video") == "retain-on-failure"
            assert pytestconfig.getoption("screenshot") == "only-on-failure"
            assert pytestconfig.getoption("android_trace") == "off"
            assert pytestconfig.getoption("android_video") == "on"
            assert pytestconfig.getoption("android_screenshot") == "on"
    """)
    result = pytester.runpytest("-p", "no:randomly", "--tracing", "on", "--video", "retain-on-failure",
                                "--screenshot", "only-on-failure", "--android-trace", "off", "--android-video", "on",
                                "--android-screenshot", "on")
    result.assert_outcomes(passed=1)
