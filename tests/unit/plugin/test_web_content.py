"""Issue 35 through the plugin on the virtual device: the fixture app's web sign-in driven natively,
on the web and natively again; two WebViews; Chrome by `open_url`; the web steps in the trace with
Playwright's own trace beside it; a failing test's web artifacts; nothing of the web left running."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent.cli.trace_viewer.server import Viewer, serving
from pytest_mobile_agent.evidence import tracefile
from pytest_mobile_agent.virtual.lab import adb_binary
from tests.support.chromium import needs_chromium
from tests.support.web_peer import NEEDS_PLAYWRIGHT
from tests.unit.plugin.plugin_inner_runs import ISOLATED, isolate

pytest_plugins = ["pytester"]
pytestmark = [needs_chromium, NEEDS_PLAYWRIGHT]
FRONTS = ["builtin", pytest.param("real", marks=pytest.mark.skipif(
    adb_binary() is None, reason="no adb binary (/usr/bin/adb): apt-get install adb"))]

SIGN_IN_FLOW = """
def test_sign_in_on_the_web(compose_fixture, screen):
    compose_fixture(tab="Login")
    screen.tap(text="Sign in on the web")
    page = screen.web("dev.mobileagent.fixture", url_contains="signin.html")
    page.get_by_label("Your name").fill("Ada")
    page.get_by_role("button", name="Continue").click()
    assert screen.wait_for(id="alert_message").text == "Welcome, Ada"
"""


@pytest.fixture(autouse=True)
def _isolated(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(pytester, monkeypatch)
    monkeypatch.delenv("MOBILE_AGENT_TRACE", raising=False)


def artifacts(pytester: pytest.Pytester, test: str) -> Path:
    return pytester.path / ".mobile-agent" / "artifacts" / f"test_web.py_{test}"


def no_web_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("mobile-agent-web")]


@pytest.mark.parametrize("front", FRONTS)
def test_native_then_web_then_native_with_each_web_action_a_step_of_the_trace(pytester: pytest.Pytester,
                                                                               front: str) -> None:
    pytester.makepyfile(test_web=SIGN_IN_FLOW)
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "--virtual-adb", front,
                                "--android-trace", "on")
    result.assert_outcomes(passed=1)
    folder = artifacts(pytester, "test_sign_in_on_the_web")
    trace = tracefile.read_trace(folder / "trace.zip")
    names = [step["name"] for step in trace.steps if step["depth"] == 0]
    assert names[names.index("tap"):names.index("wait_for") + 1] == [
        "tap", "web", "locator.fill", "locator.click", "wait_for"]
    [web_trace] = trace.document["web_traces"]
    assert web_trace["file"].startswith("playwright-webview_devtools_remote_")
    with zipfile.ZipFile(folder / web_trace["file"]) as playwright_trace:
        assert any(name.endswith(".trace") for name in playwright_trace.namelist())
    assert no_web_threads() == []


TWO_WEBVIEWS_AND_CHROME = """
import os

def test_two_webviews_then_chrome(compose_fixture, screen, device_control):
    compose_fixture(tab="Login")
    screen.tap(text="Sign in on the web")
    sign_in = screen.web(url_contains="signin.html")
    terms = screen.web(title="Terms")
    assert "accept the terms" in terms.text_content("body")
    sign_in.get_by_label("Your name").fill("Bo")
    targets = screen.webviews()
    [app] = [t for t in targets if t.package == "dev.mobileagent.fixture"]
    assert sorted(p.title for p in app.pages) == ["Terms", "Web sign-in"]
    device_control.open_url(os.environ["HELP_URL"])
    help_page = screen.web("com.android.chrome", title="Help")
    assert help_page.url == os.environ["HELP_URL"]
    assert help_page.get_by_role("heading").inner_text() == "How can we help?"
"""


class _HelpPage(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        body = b"<!doctype html><title>Help</title><h1>How can we help?</h1>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture
def help_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A help centre page on a loopback web server (the virtual Chrome's chromium runs on this host)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _HelpPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/help"
    monkeypatch.setenv("HELP_URL", url)
    yield url
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("front", FRONTS)
def test_two_webviews_and_chrome_by_open_url_are_each_attached(pytester: pytest.Pytester, help_url: str,
                                                               front: str) -> None:
    pytester.makepyfile(test_web=TWO_WEBVIEWS_AND_CHROME)
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "--virtual-adb", front)
    result.assert_outcomes(passed=1)
    assert no_web_threads() == []


FAILING = """
def test_fails_on_the_web(compose_fixture, screen):
    compose_fixture(tab="Login")
    screen.tap(text="Sign in on the web")
    page = screen.web(url_contains="signin.html")
    page.evaluate("console.warn('about to fail')")
    page.get_by_label("Your name").fill("Cy")
    assert page.title() == "Another title"
"""


def test_a_failing_tests_artifacts_add_the_pages_url_html_and_console(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_web=FAILING)
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual")
    result.assert_outcomes(failed=1)
    folder = artifacts(pytester, "test_fails_on_the_web")
    summary = (folder / "web-1.txt").read_text()
    assert "url: https://appassets.androidplatform.net/assets/signin.html" in summary
    assert "warning: about to fail" in summary
    assert '<input id="name"' in (folder / "web-1.html").read_text()
    trace = tracefile.read_trace(folder / "trace.zip")  # retain-on-failure: the Playwright trace is kept
    assert [entry["file"] for entry in trace.document["web_traces"]] == [
        path.name for path in folder.glob("playwright-*.zip")]
    assert no_web_threads() == []


GONE = """
import pytest
from pytest_mobile_agent.errors import Disconnected

def test_the_page_goes(compose_fixture, screen):
    compose_fixture(tab="Login")
    screen.tap(text="Sign in on the web")
    page = screen.web(url_contains="signin.html")
    screen.press_key("back")
    with pytest.raises(Disconnected, match="is gone"):
        page.get_by_label("Your name").fill("Di", timeout=20_000)
    assert screen.wait_for(text="Sign in on the web")
"""


@pytest.mark.parametrize("front", FRONTS)
def test_a_page_gone_mid_test_is_disconnected_and_the_test_goes_on_natively(pytester: pytest.Pytester,
                                                                           front: str) -> None:
    pytester.makepyfile(test_web=GONE)
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "--virtual-adb", front)
    result.assert_outcomes(passed=1)


def test_show_trace_links_the_playwright_trace_beside_the_trace(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_web=SIGN_IN_FLOW)
    pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "--android-trace", "on").assert_outcomes(passed=1)
    folder = artifacts(pytester, "test_sign_in_on_the_web")
    with zipfile.ZipFile(folder / "trace.zip") as archive:
        document = json.loads(archive.read("trace.json"))
    [entry] = document["web_traces"]
    viewer = Viewer(tracefile.read_trace(folder / "trace.zip"))
    with serving(viewer) as page_url:
        base = page_url.split("?", 1)[0].rstrip("/")
        assert 'id="web-traces"' in urllib.request.urlopen(page_url, timeout=10).read().decode()
        with urllib.request.urlopen(f"{base}/web-trace?token={viewer.token}&name={entry['file']}", timeout=10) as got:
            assert got.read() == (folder / entry["file"]).read_bytes()
            assert entry["file"] in got.headers["Content-Disposition"]
        with pytest.raises(urllib.error.HTTPError, match="404"):
            urllib.request.urlopen(f"{base}/web-trace?token={viewer.token}&name=../trace.zip", timeout=10)


KILLED = """
import pathlib, time

def test_killed_while_attached(compose_fixture, screen):
    compose_fixture(tab="Login")
    screen.tap(text="Sign in on the web")
    page = screen.web(url_contains="signin.html")
    page.get_by_label("Your name").fill("Ed")
    pathlib.Path("attached").write_text("yes")
    time.sleep(120)
"""


def descendants(pid: int) -> set[int]:
    """Every living process below `pid` (by their parent's pid in /proc/N/stat)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found: set[int] = set()
    waiting = [pid]
    while waiting:
        for child in children.get(waiting.pop(), []):
            if child not in found:
                found.add(child)
                waiting.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_test_killed_while_attached_leaves_no_chromium_and_no_playwright_driver(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_web=KILLED)
    env = {**os.environ, "MOBILE_AGENT_LOCK_DIR": str(pytester.path / "locks"),
           "MOBILE_AGENT_RECORDS": str(pytester.path / "records")}
    env.pop("MOBILE_AGENT_ANDROID_SERIAL", None)
    run = subprocess.Popen([sys.executable, "-m", "pytest", *ISOLATED, "-p", "no:xdist", "--android-serial", "virtual",
                            "test_web.py"], cwd=pytester.path, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not (pytester.path / "attached").exists():
            assert run.poll() is None and time.monotonic() < deadline, "the inner test never attached"
            time.sleep(0.2)
        below = descendants(run.pid)
        names = {pid: Path(f"/proc/{pid}/comm").read_text().strip() for pid in below if alive(pid)}
        assert any("chrom" in name for name in names.values()), names  # the WebView's chromium
        assert any(name.startswith("node") for name in names.values()), names  # Playwright's driver
    finally:
        run.kill()
        run.wait(30)
    deadline = time.monotonic() + 20
    while [pid for pid in below if alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert {pid: names.get(pid) for pid in below if alive(pid)} == {}


TWO_DEVICES = """
import pytest

@pytest.mark.devices(2)
def test_each_device_its_own_web_sign_in(apps, screens, webs):
    for app, screen in zip(apps, screens):
        app.start(extras={"tab": "Login"})
        screen.tap(text="Sign in on the web")
    # two chromiums start at once: 10 s was once too short on a loaded 2-core CI host (the pages seen: none)
    pages = [web.page(url_contains="signin.html", timeout=30) for web in webs]
    for name, page in zip(["Ann", "Bob"], pages):
        page.get_by_label("Your name").fill(name)
        page.get_by_role("button", name="Continue").click()
    assert [screen.wait_for(id="alert_message").text for screen in screens] == ["Welcome, Ann", "Welcome, Bob"]
"""


def test_with_two_devices_each_has_its_web_content_and_its_steps(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_web=TWO_DEVICES)
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual:2", "--app-package", "dev.mobileagent.fixture",
                                "--android-trace", "on")
    result.assert_outcomes(passed=1)
    trace = tracefile.read_trace(artifacts(pytester, "test_each_device_its_own_web_sign_in") / "trace.zip")
    fills = [str(step.get("screen")).split()[0] for step in trace.steps if step["name"] == "locator.fill"]
    assert fills == ["emulator-5554", "emulator-5556"]  # each web step tagged with its device's label
    assert sorted(entry["target"].split()[0] for entry in trace.document["web_traces"]) == [
        "emulator-5554", "emulator-5556"]
    assert no_web_threads() == []


CUSTOM_TAB = """
import os, shlex

def test_a_custom_tab(device_control, screen):
    url = os.environ["HELP_URL"] + "?from=app"
    device_control.adb.shell("am start -W -a android.intent.action.VIEW -d " + shlex.quote(url)
                             + " -p com.android.chrome --es android.support.customtabs.extra.SESSION none")
    tab = screen.web("com.android.chrome", url_contains="from=app")
    assert tab.get_by_role("heading").inner_text() == "How can we help?"
    [chrome] = [t for t in screen.webviews() if t.kind == "chrome"]
    assert (chrome.socket, chrome.package) == ("chrome_devtools_remote", "com.android.chrome")
    assert [page.url for page in chrome.pages] == [url]
"""


def test_a_custom_tab_is_found_as_a_chrome_page(pytester: pytest.Pytester, help_url: str) -> None:
    pytester.makepyfile(test_web=CUSTOM_TAB)
    pytester.runpytest(*ISOLATED, "--android-serial", "virtual").assert_outcomes(passed=1)


NOT_DEBUGGABLE = """
import pytest
from pytest_mobile_agent.web import WebViewNotDebuggable

def test_a_release_build(compose_fixture, screen):
    compose_fixture(tab="Login", extras={"web_debugging": "off"})  # setWebContentsDebuggingEnabled(false)
    screen.tap(text="Sign in on the web")
    screen.wait_for(id="web_sign_in", timeout=30)  # the app's WebView is on the screen
    with pytest.raises(WebViewNotDebuggable, match="setWebContentsDebuggingEnabled"):
        screen.web("dev.mobileagent.fixture", timeout=2)
"""


@pytest.mark.parametrize("front", FRONTS)
def test_an_apps_webview_that_is_not_debuggable_says_so(pytester: pytest.Pytester, front: str) -> None:
    pytester.makepyfile(test_web=NOT_DEBUGGABLE)
    pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "--virtual-adb", front).assert_outcomes(passed=1)
