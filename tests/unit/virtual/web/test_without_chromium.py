"""Without chromium on the host the virtual device cannot render web content: the engine refuses
with the package to install, the WebView shows that reason, and nothing else of the device changes."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.ui.fixture import PACKAGE
from pytest_mobile_agent.virtual.web.browser import Kind
from pytest_mobile_agent.virtual.web.chromium import INSTALL_ADVICE, ChromiumMissing
from tests.support.polling import wait_until
from tests.support.ui_nodes import by_res, tap
from tests.unit.virtual.web.conftest import WINDOW


@pytest.fixture
def no_chromium(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOBILE_AGENT_CHROMIUM", "/nonexistent/chromium")


def test_the_engine_names_the_package_to_install(vdev: VirtualDevice, no_chromium: None) -> None:
    vdev.shell(f"am start -W -n {PACKAGE}/.MainActivity")
    advice = r"chromium is not installed \(apt-get install chromium-headless-shell, or chromium\)"
    with pytest.raises(ChromiumMissing, match=advice):
        vdev.web.browser_of(PACKAGE, Kind.WEBVIEW, WINDOW)
    assert b"devtools_remote" not in vdev.shell("cat /proc/net/unix")[1]


def test_the_webview_shows_why_it_has_no_page(vdev: VirtualDevice, no_chromium: None) -> None:
    vdev.shell(f"am start -W -n {PACKAGE}/.MainActivity")
    tap(vdev.ui, by_res(vdev.ui, "web_sign_in_button"))
    assert wait_until(lambda: vdev.ui.app.web_sign_in is not None, timeout=15.0)
    web = vdev.ui.app.web_sign_in
    assert web is not None
    assert wait_until(lambda: web.sign_in.error is not None, timeout=15.0)
    shown = [n.text for n in web.sign_in.node.walk() if n.text]
    assert shown == [f"Web page not available: {web.sign_in.error}"]
    assert INSTALL_ADVICE in shown[0]
    assert vdev.ui.key(4)  # BACK still finishes the activity
    assert vdev.ui.app.web_sign_in is None
