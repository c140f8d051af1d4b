"""The trace viewer in a real browser (Debian's chromium through chromium-driver, as the inspector's
page is tested): a failing test's trace, recorded on the virtual device with its controller and a
video, opened at its failed step; stepping through it, the target highlighted on the screen and in
the tree, before and after, and the video playing with the timeline following it. A 50-step trace
draws in under a second (a timing gate: MOBILE_AGENT_TIMING_GATES=on asserts it).

Screenshots of the page go into the pytest cache (`.pytest_cache/d/trace-viewer/`)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("av", reason="the video extra: pip install 'pytest-mobile-agent[video]'")
webdriver = pytest.importorskip("selenium.webdriver", reason="Selenium drives the browser: pip install selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from pytest_mobile_agent.cli.trace_viewer.server import Viewer, serving  # noqa: E402
from pytest_mobile_agent.evidence import tracefile  # noqa: E402
from pytest_mobile_agent.plugin.gates import HostGate  # noqa: E402
from tests.support.browser import (  # noqa: E402
    LAPTOP_WINDOWS,
    NEEDS_CHROMIUM,
    broken_words,
    chromium,
    failed_requests,
    hidden_controls,
)

pytestmark = NEEDS_CHROMIUM
WAIT = 20.0
FAILING_TEST = """
def test_signing_in(compose_fixture, screen):
    compose_fixture(tab="Login")
    screen.find(id="username").type_text("ada")
    screen.find(id="password").type_text("not the password")
    screen.tap(id="login_button")
    assert screen.wait_for(id="alert_message", timeout=1.5).text == "Welcome, ada"
"""


@pytest.fixture(scope="module")
def recorded_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A failing test's trace and video, recorded by an inner run on the virtual device."""
    where = tmp_path_factory.mktemp("traced")
    (where / "test_sign_in.py").write_text(FAILING_TEST)
    environment = {
        **os.environ,
        "MOBILE_AGENT_LOCK_DIR": str(where / "locks"),
        "MOBILE_AGENT_RECORDS": str(where / "records"),
    }
    environment.pop("MOBILE_AGENT_ANDROID_SERIAL", None)
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "--android-serial",
            "virtual",
            "--android-video",
            "retain-on-failure",
            "test_sign_in.py",
        ],
        cwd=where,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "1 failed" in finished.stdout, finished.stdout[-3000:]
    return next((where / ".mobile-agent" / "artifacts").glob("*/trace.zip"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium("1500,1000", "--autoplay-policy=no-user-gesture-required") as driver:
        yield driver


@pytest.fixture
def shots(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    cache = getattr(request.config, "cache", None)
    return Path(cache.mkdir("trace-viewer")) if cache is not None else tmp_path


def open_trace(browser: Any, path: Path) -> Any:
    """The page of the trace at `path`, once drawn; returns the serving context to close."""
    context = serving(Viewer(tracefile.read_trace(path)))
    url = context.__enter__()
    browser.get(url)
    WebDriverWait(browser, WAIT).until(lambda b: b.execute_script("return document.body.dataset.ready") == "true")
    return context


def selected_text(browser: Any) -> str:
    return str(browser.find_element(By.CSS_SELECTOR, "#steps li.selected .call").text)


def press(browser: Any, key: str, times: int = 1) -> None:
    for _ in range(times):
        browser.find_element(By.TAG_NAME, "body").send_keys(key)


def test_the_page_opens_at_the_failed_step_with_the_screen_after_it(
    browser: Any, recorded_trace: Path, shots: Path
) -> None:
    context = open_trace(browser, recorded_trace)
    try:
        assert selected_text(browser).startswith("wait_for")
        assert "WaitTimeout" in browser.find_element(By.ID, "call").text
        WebDriverWait(browser, WAIT).until(
            lambda b: b.execute_script(
                "const i = document.getElementById('screen'); return i.complete && i.naturalWidth"
            )
        )
        assert "Wrong password" in browser.find_element(By.ID, "tree").text
        browser.save_screenshot(str(shots / "failed-step.png"))
    finally:
        context.__exit__(None, None, None)


def test_stepping_back_to_the_tap_highlights_its_target_on_the_screen_and_in_the_tree(
    browser: Any, recorded_trace: Path, shots: Path
) -> None:
    steps = tracefile.read_trace(recorded_trace).steps
    tap = next(s for s in steps if s["name"] == "tap" and s["depth"] == 0)
    failed = next(s for s in steps if s["error"] and s["depth"] == 0)
    context = open_trace(browser, recorded_trace)
    try:
        press(browser, Keys.ARROW_UP, failed["index"] - tap["index"])
        WebDriverWait(browser, WAIT).until(lambda b: selected_text(b).startswith("tap id=login_button"))
        WebDriverWait(browser, WAIT).until(
            lambda b: not b.execute_script("return document.getElementById('highlight').hidden")
        )
        box = browser.execute_script(
            "const h = document.getElementById('highlight'), i = document.getElementById('screen');"
            "return [h.offsetLeft, h.offsetTop, h.clientWidth, h.clientHeight, i.clientWidth];"
        )
        scale = box[4] / 1080
        left, top, right, bottom = tap["target"]
        assert abs(box[0] - left * scale) <= 2 and abs(box[1] - top * scale) <= 2
        assert abs(box[2] - (right - left) * scale) <= 2 and abs(box[3] - (bottom - top) * scale) <= 2
        WebDriverWait(browser, WAIT).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#tree li.target"))
        assert "id=login_button" in browser.find_element(By.CSS_SELECTOR, "#tree li.target").text
        after = browser.find_element(By.ID, "screen").get_attribute("src")
        browser.find_element(By.ID, "show-before").click()
        WebDriverWait(browser, WAIT).until(lambda b: b.find_element(By.ID, "screen").get_attribute("src") != after)
        assert browser.find_element(By.ID, "which").text == "the screen before the call"
        browser.save_screenshot(str(shots / "tap-target.png"))
    finally:
        context.__exit__(None, None, None)


def test_typed_password_is_masked_in_the_trace(recorded_trace: Path) -> None:
    steps = tracefile.read_trace(recorded_trace).steps
    typed = [s["arguments"]["text"] for s in steps if s["name"] == "element.type_text"]
    assert typed == ["ada", "\u2022" * len("not the password")]


def test_the_video_plays_and_the_timeline_follows_it(browser: Any, recorded_trace: Path) -> None:
    context = open_trace(browser, recorded_trace)
    try:
        press(browser, Keys.HOME)
        browser.find_element(By.CSS_SELECTOR, "#steps li").click()
        first = selected_text(browser)
        WebDriverWait(browser, WAIT).until(
            lambda b: b.execute_script("return document.getElementById('video').readyState") >= 1
        )
        browser.execute_script("document.getElementById('video').play()")
        WebDriverWait(browser, WAIT).until(
            lambda b: b.execute_script("return document.getElementById('video').currentTime") > 0.5
        )
        WebDriverWait(browser, WAIT).until(lambda b: selected_text(b) != first)
        assert browser.execute_script("return document.getElementById('video').error") is None
    finally:
        context.__exit__(None, None, None)


def test_a_fifty_step_trace_draws_within_a_second(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "trace.zip"
    tracefile.write_trace(path, *fifty_steps())
    context = serving(Viewer(tracefile.read_trace(path)))
    url = context.__enter__()
    try:
        started = time.perf_counter()
        browser.get(url)
        WebDriverWait(browser, WAIT).until(lambda b: b.execute_script("return document.body.dataset.ready") == "true")
        took = (time.perf_counter() - started) * 1000
        assert len(browser.find_elements(By.CSS_SELECTOR, "#steps li")) == 50
    finally:
        context.__exit__(None, None, None)
    HostGate.timing().check(took, 1000, "a 50-step trace drawn in the viewer")


def test_a_plain_assert_failure_opens_on_the_tests_last_call_and_shows_the_failure_and_the_source_lines(
    browser: Any, tmp_path: Path, shots: Path
) -> None:
    """Issue 41 item 15: a failed `assert` (no step raised) opened on step 1, the failure appeared
    nowhere in the page, and the steps named no line of the test."""
    document, files = fifty_steps()
    document["test"].update(outcome="failed", failure="t.py:61: AssertionError: assert 'Welcome' in 'Wrong password'")
    for step in document["steps"]:
        step["source"] = {"file": "/home/ada/app/tests/t.py", "line": 10 + step["index"]}
    teardown = dict(document["steps"][-1], index=50, name="app.stop", teardown=True, source=None, arguments={})
    document["steps"].append(teardown)
    path = tmp_path / "trace.zip"
    tracefile.write_trace(path, document, files)
    context = open_trace(browser, path)
    try:
        assert selected_text(browser).startswith("tap id=button_49"), "the test's last call, not its first"
        assert browser.find_element(By.ID, "failure").text == document["test"]["failure"]
        call = browser.find_element(By.ID, "call").text
        assert "source /home/ada/app/tests/t.py:59" in call and "AssertionError: assert 'Welcome'" in call
        assert browser.find_element(By.CSS_SELECTOR, "#steps li.selected .source").text == "t.py:59"
        browser.save_screenshot(str(shots / "assert-failure.png"))
    finally:
        context.__exit__(None, None, None)


def test_a_passed_test_shows_no_failure_and_opens_on_its_first_step(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "trace.zip"
    tracefile.write_trace(path, *fifty_steps())
    context = open_trace(browser, path)
    try:
        assert selected_text(browser).startswith("tap id=button_0")
        assert not browser.find_element(By.ID, "failure-pane").is_displayed()
    finally:
        context.__exit__(None, None, None)


@pytest.mark.parametrize("window", LAPTOP_WINDOWS)
def test_at_a_laptops_size_the_shared_styles_keep_the_viewers_buttons_in_view(
    tmp_path: Path, shots: Path, window: str
) -> None:
    path = tmp_path / "trace.zip"
    tracefile.write_trace(path, *fifty_steps())
    with serving(Viewer(tracefile.read_trace(path))) as url, chromium(window) as browser:
        browser.get(url)
        WebDriverWait(browser, WAIT).until(lambda b: b.execute_script("return document.body.dataset.ready") == "true")
        browser.save_screenshot(str(shots / f"laptop-{window.replace(',', 'x')}.png"))
        assert hidden_controls(browser) == []
        assert broken_words(browser, "#call th") == []
        assert failed_requests(browser) == []


def test_the_favicon_is_served_without_the_token_and_the_page_names_it(tmp_path: Path) -> None:
    path = tmp_path / "trace.zip"
    tracefile.write_trace(path, *fifty_steps())
    with serving(Viewer(tracefile.read_trace(path))) as url:
        base = url.split("/?", 1)[0]
        with urllib.request.urlopen(f"{base}/favicon.ico", timeout=10) as icon:
            assert (icon.status, icon.headers["Content-Type"]) == (200, "image/svg+xml")
            assert icon.read().startswith(b"<svg")
        with urllib.request.urlopen(url, timeout=10) as page:
            assert b'<link rel="icon" type="image/svg+xml" href="/favicon.ico">' in page.read()


def fifty_steps() -> tuple[dict[str, Any], dict[str, bytes]]:
    """A trace of 50 taps, each with a screen before and after (JPEGs of 540x1200) and a tree."""
    from PIL import Image

    files: dict[str, bytes] = {}
    steps = []
    for index in range(50):
        out = io.BytesIO()
        Image.new("RGB", (540, 1200), (index * 5, 100, 200)).save(out, format="JPEG")
        files[f"images/{index}.jpg"] = out.getvalue()
        files[f"trees/{index}.json"] = (
            b'[{"id": 1, "type": "application", "title": "t", "package": "p", '
            b'"bounds": [0, 0, 1080, 2400], "nodes": []}]'
        )
        steps.append(
            {
                "index": index,
                "parent": None,
                "name": "tap",
                "depth": 0,
                "teardown": False,
                "arguments": {"id": f"button_{index}"},
                "started": 1000.0 + index,
                "ended": 1000.5 + index,
                "ended_by": "returned",
                "outcome": "accepted via agent",
                "error": None,
                "target": [10, 20, 300, 400],
                "polls": [],
                "before": f"images/{index}.jpg",
                "after": f"images/{(index + 1) % 50}.jpg",
                "tree": f"trees/{index}.json",
            }
        )
    document = {
        "format": tracefile.FORMAT,
        "version": tracefile.VERSION,
        "started": 1000.0,
        "test": {"nodeid": "t.py::test_fifty", "outcome": "passed"},
        "screen": {"width": 1080, "height": 2400},
        "steps": steps,
        "logcat": [],
        "status": [],
        "missing": [],
        "video": None,
    }
    return document, files
