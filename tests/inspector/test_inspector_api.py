"""The inspector's API without a browser, on the virtual device: a recording of the app under test
that runs as pytest with `--app-package`, and bad requests answered 400 with what was wrong."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp", reason="the inspector's extra: pip install 'pytest-mobile-agent[inspect]'")

from pytest_mobile_agent.cli.inspector.server import DeviceWorker, Inspector, serving  # noqa: E402
from pytest_mobile_agent.cli.inspector.target import opened  # noqa: E402
from pytest_mobile_agent.stack import Settings  # noqa: E402
from pytest_mobile_agent.stack.settings import DEFAULT_FIXTURE_PACKAGE as FIXTURE_PACKAGE  # noqa: E402


class Api:
    def __init__(self, url: str) -> None:
        self.base, _, self.query = url.partition("/?")

    def get(self, path: str, **params: Any) -> Any:
        extra = "".join(f"&{k}={v}" for k, v in params.items())
        with urllib.request.urlopen(f"{self.base}{path}?{self.query}{extra}", timeout=30) as reply:
            return json.load(reply)

    def post(self, path: str, body: Any) -> Any:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.base}{path}?{self.query}", data=data, method="POST")
        with urllib.request.urlopen(request, timeout=30) as reply:
            return json.load(reply)


@pytest.fixture(scope="module")
def api() -> Iterator[Api]:
    settings = Settings.for_target("virtual", app_package=FIXTURE_PACKAGE)
    worker = DeviceWorker(lambda: opened(settings))
    worker.start()
    try:
        with serving(Inspector(worker)) as url:
            yield Api(url)
    finally:
        worker.stop()


def node_ref(api: Api, needle: str) -> int:
    return next(n["ref"] for n in api.get("/api/state")["nodes"] if needle in n["label"])


def test_a_recording_of_the_app_under_test_runs_with_its_package_named(api: Api, tmp_path: Path) -> None:
    assert api.get("/api/state")["app"] == FIXTURE_PACKAGE
    started = api.post("/api/record", {"tab": "app"})
    assert "def test_recorded(app, screen):\n    app.start()\n" in started["recording"]["source"]
    api.post("/api/action", {"action": "tap", "ref": node_ref(api, 'TextView "List"')})
    api.post("/api/action", {"action": "assert_text", "ref": node_ref(api, 'TextView "List"')})
    source = api.post("/api/record", {"stop": True})["source"]
    assert source.splitlines()[-2:] == ['    screen.wait_for(id="tab_list").tap()',
                                        '    assert screen.wait_for(id="tab_list").text == "List"']
    (tmp_path / "test_recorded.py").write_text(source)
    run = subprocess.run([sys.executable, "-m", "pytest", "test_recorded.py", "--android-serial", "virtual",
                          "--app-package", FIXTURE_PACKAGE, "-q", "-p", "no:cacheprovider", "-p", "no:xdist"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, f"{source}\n{run.stdout}\n{run.stderr}"


@pytest.mark.parametrize(("path", "body", "says"), [
    ("/api/action", b"{not json", "not JSON"),
    ("/api/action", [1, 2], "JSON object"),
    ("/api/action", {"action": "explode"}, "action is one of"),
    ("/api/action", {"action": "tap", "ref": "7"}, "ref is an element's ref"),
    ("/api/action", {"action": "swipe", "x1": float("nan")}, "x1"),
    ("/api/action", {"action": "key", "key": "no-such-key"}, "no-such-key"),
    ("/api/action", {"action": "type", "ref": 1}, "type needs a text"),
    ("/api/record", {"tab": "Nowhere"}, "tab is one of"),
])
def test_a_bad_request_is_answered_400_saying_what_was_wrong(api: Api, path: str, body: Any, says: str) -> None:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    with pytest.raises(urllib.error.HTTPError) as refused:
        api.post(path, data)
    assert refused.value.code == 400
    assert says in json.load(refused.value)["error"]


def test_an_element_asked_for_badly_is_a_400_and_one_not_there_a_404(api: Api) -> None:
    for params, code in (({"ref": "x"}, 400), ({"x": "1"}, 400), ({"ref": "999999"}, 404)):
        with pytest.raises(urllib.error.HTTPError) as refused:
            api.get("/api/element", **params)
        assert refused.value.code == code


def test_without_a_controller_the_screen_is_an_agent_screenshot_and_no_file_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    worker = DeviceWorker(lambda: opened(Settings.for_target("virtual", emulator_controller="off")))
    worker.start()
    try:
        with serving(Inspector(worker)) as url:
            base, _, query = url.partition("/?")
            with urllib.request.urlopen(f"{base}/api/screen?{query}", timeout=30) as reply:
                assert reply.headers["Content-Type"] == "image/png"
                assert reply.read().startswith(b"\x89PNG\r\n\x1a\n")
    finally:
        worker.stop()
    assert list(tmp_path.iterdir()) == []


def test_the_web_targets_are_listed_beside_the_windows(api: Api) -> None:
    api.post("/api/action", {"action": "tap", "ref": node_ref(api, 'TextView "Login"')})
    assert not [t for t in api.get("/api/web")["targets"] if t["package"] == FIXTURE_PACKAGE and t["pages"]]
    api.post("/api/action", {"action": "tap", "ref": node_ref(api, '"Sign in on the web"')})
    try:
        deadline = time.monotonic() + 30
        while True:
            [app] = [t for t in api.get("/api/web")["targets"] if t["package"] == FIXTURE_PACKAGE] or [None]
            titles = sorted(page["title"] for page in app["pages"]) if app is not None else []
            if titles == ["Terms", "Web sign-in"] or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert app is not None and app["socket"] == f"webview_devtools_remote_{app['pid']}"
        assert titles == ["Terms", "Web sign-in"]
        assert all(page["in_front"] for page in app["pages"])
    finally:
        api.post("/api/action", {"action": "key", "key": "back"})
