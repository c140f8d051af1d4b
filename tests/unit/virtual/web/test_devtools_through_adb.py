"""The DevTools sockets reached from the host the way every tool reaches them: `localabstract:NAME`
through adb, on both fronts of the virtual device (the built-in adb-server endpoint, and Debian's
own adb server with the device's adbd endpoint behind it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.adb.device import AdbStream
from pytest_mobile_agent.virtual.lab import VirtualLab, adb_binary
from pytest_mobile_agent.virtual.ui.fixture import PACKAGE
from tests.support.chromium import WebSocket, http_get, needs_chromium
from tests.unit.virtual.web.conftest import open_webview

pytestmark = needs_chromium


class AdbBytes:
    """An adb stream as the helpers' byte stream."""

    def __init__(self, stream: AdbStream) -> None:
        self.stream = stream

    def send(self, data: bytes) -> None:
        self.stream.sendall(data)

    def recv(self, timeout: float | None = None) -> bytes:
        return self.stream.recv(1 << 16, timeout)


@pytest.fixture(params=["builtin", "real-adb"])
def lab(request: pytest.FixtureRequest) -> Iterator[VirtualLab]:
    if request.param == "real-adb" and adb_binary() is None:
        pytest.skip("no adb binary (/usr/bin/adb): apt-get install adb")
    with VirtualLab.start(1, real_adb=request.param == "real-adb") as started:
        yield started


def test_discovery_and_a_cdp_round_trip_through_localabstract(lab: VirtualLab) -> None:
    serial = lab.serials[0]
    opened = open_webview(lab.device(serial))
    device = AdbServer(port=lab.adb_port).device(serial)
    listing = device.shell("cat /proc/net/unix").text()
    pid = device.shell(f"pidof {PACKAGE}").text().strip()
    assert f"@webview_devtools_remote_{pid}" in listing
    with device.open_abstract(f"webview_devtools_remote_{pid}") as raw:
        stream = AdbBytes(raw)
        status, version = http_get(stream, "/json/version", host="127.0.0.1:9333")
        _, pages = http_get(stream, "/json/list", host="127.0.0.1:9333")
    assert status == 200 and version["Android-Package"] == PACKAGE
    assert [page["id"] for page in pages] == [opened.page.target_id]
    with device.open_abstract(f"webview_devtools_remote_{pid}") as raw:
        socket = WebSocket(AdbBytes(raw), "/devtools/browser")
        assert socket.status == 101
        version_over_cdp = socket.command("Browser.getVersion")["result"]
    assert version_over_cdp["product"] == version["Browser"]
