"""The inspector's page in a real browser (Debian's chromium, driven by Selenium through Debian's
chromium-driver), on the virtual device: the Login screen, the line that finds the username field,
a recorded sign-in that runs and passes as pytest, the token every request must carry, and the
page at a laptop's size: every button in view, no word of the windows table broken, the favicon served.

Screenshots of the page go into the pytest cache (`.pytest_cache/d/inspector/`)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

pytest.importorskip("aiohttp", reason="the inspector's extra: pip install 'pytest-mobile-agent[inspect]'")
webdriver = pytest.importorskip("selenium.webdriver", reason="Selenium drives the browser: pip install selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from pytest_mobile_agent.cli.inspector.server import DeviceWorker, Inspector, serving  # noqa: E402
from pytest_mobile_agent.cli.inspector.target import opened  # noqa: E402
from pytest_mobile_agent.stack import Settings  # noqa: E402
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
PASSWORD = "correct horse"  # the one the fixture app accepts (virtual/ui/fixture.py)


@pytest.fixture(scope="module")
def page_url() -> Iterator[str]:
    worker = DeviceWorker(lambda: opened(Settings.for_target("virtual")))
    worker.start()
    try:
        with serving(Inspector(worker)) as url:
            yield url
    finally:
        worker.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium("1500,1100") as driver:
        yield driver


@pytest.fixture
def shots(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    cache = getattr(request.config, "cache", None)
    return Path(cache.mkdir("inspector")) if cache is not None else tmp_path


def state(url: str) -> dict[str, Any]:
    parts = urlsplit(url)
    with urllib.request.urlopen(f"{parts.scheme}://{parts.netloc}/api/state?{parts.query}", timeout=10) as reply:
        return json.load(reply)


def node_bounds(url: str, needle: str) -> list[int]:
    """The bounds of the first node whose label has `needle`, from the page's own API."""
    return next(n["bounds"] for n in state(url)["nodes"] if needle in n["label"])


def click_on_screen(browser: Any, bounds: list[int]) -> None:
    """A click on the screen image at the centre of `bounds` (physical pixels)."""
    image = browser.find_element(By.ID, "screen")
    width = browser.execute_script("return arguments[0].clientWidth", image)
    height = browser.execute_script("return arguments[0].clientHeight", image)
    scale = width / 1080
    x = (bounds[0] + bounds[2]) / 2 * scale - width / 2
    y = (bounds[1] + bounds[3]) / 2 * scale - height / 2
    webdriver.ActionChains(browser).move_to_element_with_offset(image, int(x), int(y)).click().perform()


def text_of(browser: Any, element_id: str, wanted: str) -> str:
    WebDriverWait(browser, WAIT).until(lambda b: wanted in b.find_element(By.ID, element_id).text)
    return str(browser.find_element(By.ID, element_id).text)


def type_into_selected(browser: Any, text: str) -> None:
    field = browser.find_element(By.ID, "text")
    field.clear()
    field.send_keys(text)
    browser.find_element(By.ID, "type").click()


def open_page(browser: Any, url: str) -> None:
    browser.get(url)
    WebDriverWait(browser, WAIT).until(lambda b: "nodes" in b.find_element(By.ID, "status").text)


def test_the_page_shows_the_virtual_devices_login_screen(browser: Any, page_url: str, shots: Path) -> None:
    open_page(browser, page_url)
    tree = text_of(browser, "tree", 'id=username')
    assert '"Login"' in tree and "Compose fixture" in text_of(browser, "windows", "Compose fixture")
    WebDriverWait(browser, WAIT).until(
        lambda b: b.execute_script("const i = document.getElementById('screen'); return i.complete && i.naturalWidth"))
    browser.save_screenshot(str(shots / "login.png"))


def test_clicking_the_username_field_offers_the_line_that_finds_it(browser: Any, page_url: str, shots: Path) -> None:
    open_page(browser, page_url)
    click_on_screen(browser, node_bounds(page_url, "id=username"))
    assert text_of(browser, "python", "screen.") == 'screen.find(id="username")'
    assert browser.find_element(By.CSS_SELECTOR, "#tree li.selected").text.strip().endswith(
        tuple(n["label"] for n in state(page_url)["nodes"] if "id=username" in n["label"]))
    assert not browser.find_element(By.ID, "highlight").get_attribute("hidden")
    browser.save_screenshot(str(shots / "selected.png"))


def test_a_recorded_sign_in_runs_as_pytest_and_passes(browser: Any, page_url: str, shots: Path, tmp_path: Path) -> None:
    open_page(browser, page_url)
    browser.find_element(By.ID, "record").click()
    text_of(browser, "recording", 'compose_fixture(tab="Login")')
    click_on_screen(browser, node_bounds(page_url, "id=username"))
    text_of(browser, "recording", 'screen.wait_for(id="username").tap()')
    type_into_selected(browser, "ada")
    text_of(browser, "recording", 'type_text("ada")')
    click_on_screen(browser, node_bounds(page_url, "id=password"))
    type_into_selected(browser, PASSWORD)
    text_of(browser, "recording", f'type_text("{PASSWORD}")')
    click_on_screen(browser, node_bounds(page_url, 'Button "Login"'))
    text_of(browser, "tree", "id=alert_message")
    browser.find_element(By.XPATH, "//ol[@id='tree']/li[contains(., 'id=alert_message')]").click()
    text_of(browser, "python", "alert_message")
    browser.find_element(By.ID, "assert").click()
    text_of(browser, "recording", '.text == "Welcome, ada"')
    browser.save_screenshot(str(shots / "recording.png"))
    browser.find_element(By.ID, "stop").click()
    WebDriverWait(browser, WAIT).until(lambda b: b.find_element(By.ID, "record").is_enabled())
    source = browser.find_element(By.ID, "recording").text
    test_file = tmp_path / "test_recorded.py"
    test_file.write_text(source + "\n")
    run = subprocess.run([sys.executable, "-m", "pytest", str(test_file), "--android-serial", "virtual", "-q",
                          "-p", "no:cacheprovider", "-p", "no:xdist"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, f"{source}\n{run.stdout}\n{run.stderr}"
    assert "1 passed" in run.stdout


@pytest.mark.parametrize("path", ["/", "/api/state", "/api/screen", "/api/element?ref=1", "/api/recording"])
def test_a_request_without_the_token_is_refused(page_url: str, path: str) -> None:
    parts = urlsplit(page_url)
    base = f"{parts.scheme}://{parts.netloc}"
    token = parse_qs(parts.query)["token"][0]
    for query in ("", "token=" + "x" * len(token), "token=" + token[:-1]):
        joined = f"{base}{path}{'&' if '?' in path else '?'}{query}" if query else f"{base}{path}"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(joined, timeout=10)
        assert refused.value.code == 403
        assert "token" in json.load(refused.value)["error"]



@pytest.mark.parametrize("window", LAPTOP_WINDOWS)
def test_at_a_laptops_size_every_button_is_in_view_and_no_windows_cell_breaks_a_word(
        page_url: str, shots: Path, window: str) -> None:
    with chromium(window) as browser:
        open_page(browser, page_url)
        text_of(browser, "windows", "application")  # the app's window, whichever screen an earlier test left
        WebDriverWait(browser, WAIT).until(
            lambda b: b.execute_script("const i = document.getElementById('screen'); return i.complete && i.height"))
        browser.save_screenshot(str(shots / f"laptop-{window.replace(',', 'x')}.png"))
        assert hidden_controls(browser, "button, select, #text") == []
        assert broken_words(browser, "#windows td, #windows th") == []
        assert failed_requests(browser) == []


def test_the_favicon_is_served_without_the_token_and_the_page_names_it(page_url: str) -> None:
    parts = urlsplit(page_url)
    with urllib.request.urlopen(f"{parts.scheme}://{parts.netloc}/favicon.ico", timeout=10) as icon:
        assert icon.status == 200
        assert icon.headers["Content-Type"] == "image/svg+xml"
        assert icon.read().startswith(b"<svg")
    with urllib.request.urlopen(page_url, timeout=10) as page:
        assert b'<link rel="icon" type="image/svg+xml" href="/favicon.ico">' in page.read()
