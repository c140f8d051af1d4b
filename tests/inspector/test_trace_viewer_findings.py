"""The trace viewer shows a step's accessibility findings (`--android-a11y report`, issue 39) as boxes on
the screen after it and as lines of its call, in a real browser (Debian's chromium)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

webdriver = pytest.importorskip("selenium.webdriver", reason="Selenium drives the browser: pip install selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from pytest_mobile_agent.cli.trace_viewer.server import Viewer, serving  # noqa: E402
from pytest_mobile_agent.evidence import tracefile  # noqa: E402
from tests.support.browser import NEEDS_CHROMIUM, chromium  # noqa: E402

pytestmark = NEEDS_CHROMIUM
WAIT = 20.0
AUDITED_TEST = """
def test_the_audit_screen(compose_fixture, screen):
    compose_fixture(tab="Audit")
    screen.wait_for(id="step_two")
    screen.tap(id="details_first")
"""


@pytest.fixture(scope="module")
def audited_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("audited")
    (where / "test_audit.py").write_text(AUDITED_TEST)
    environment = {**os.environ, "MOBILE_AGENT_LOCK_DIR": str(where / "locks"),
                   "MOBILE_AGENT_RECORDS": str(where / "records")}
    environment.pop("MOBILE_AGENT_ANDROID_SERIAL", None)
    finished = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--android-serial", "virtual", "--android-a11y", "report", "--android-trace", "on", "test_audit.py"],
        cwd=where, env=environment, capture_output=True, text=True, timeout=300)
    assert "1 passed" in finished.stdout, finished.stdout[-3000:]
    return next((where / ".mobile-agent" / "artifacts").glob("*/trace.zip"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium("1500,1000") as driver:
        yield driver


def test_the_start_of_the_audit_screen_shows_a_box_on_each_finding_and_its_lines(
        browser: Any, audited_trace: Path) -> None:
    steps = tracefile.read_trace(audited_trace).steps
    start = next(s for s in steps if s.get("a11y"))
    assert start["name"] == "app.start"
    context = serving(Viewer(tracefile.read_trace(audited_trace)))
    try:
        browser.get(context.__enter__())
        WebDriverWait(browser, WAIT).until(lambda b: b.execute_script("return document.body.dataset.ready") == "true")
        browser.find_elements(By.CSS_SELECTOR, "#steps li")[start["index"]].click()
        WebDriverWait(browser, WAIT).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#stage .finding"))
                                           == len(start["a11y"]))
        boxes = browser.find_elements(By.CSS_SELECTOR, "#stage .finding")
        icon = next(f for f in start["a11y"] if f["rule"] == "touch_target_size")
        box = next(b for b in boxes if b.get_attribute("data-rule") == "touch_target_size")
        scale = browser.execute_script("return document.getElementById('screen').clientWidth") / 1080
        left, top, right, _ = icon["bounds"]
        placed = browser.execute_script("const b = arguments[0]; return [b.offsetLeft, b.offsetTop, b.clientWidth];",
                                        box)
        assert abs(placed[0] - left * scale) <= 2 and abs(placed[1] - top * scale) <= 2  # as the highlight is placed
        assert abs(placed[2] - (right - left) * scale) <= 2
        assert "error" in box.get_attribute("class") and "icon_button" in box.get_attribute("title")
        assert "a11y error" in browser.find_element(By.ID, "call").text
        assert "a11y" in browser.find_elements(By.CSS_SELECTOR, "#steps li")[start["index"]].get_attribute("class")
    finally:
        context.__exit__(None, None, None)
