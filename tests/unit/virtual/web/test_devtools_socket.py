"""A device process that shows web content serves DevTools on its abstract socket, as Android's
WebView and Chrome do: listed in /proc/net/unix, discovery over HTTP, the protocol over a
WebSocket, all relayed to that process's own headless chromium."""

from __future__ import annotations

import contextlib
import json

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.ui.fixture import PACKAGE
from pytest_mobile_agent.virtual.web.browser import Kind
from pytest_mobile_agent.virtual.web.chromium import live_processes_in_group
from tests.support.chromium import WebSocket, http_get, needs_chromium, receive_until
from tests.support.polling import wait_until
from tests.unit.virtual.web.conftest import DESCRIPTION, WINDOW, OpenWebView


def test_proc_net_unix_lists_each_listening_abstract_socket_as_the_kernel_does(vdev: VirtualDevice) -> None:
    with vdev.sockets.listen_abstract("webview_devtools_remote_4242", 4242):
        status, out, _ = vdev.shell("cat /proc/net/unix")
    lines = out.decode().splitlines()
    assert status == 0
    assert lines[0] == "Num       RefCount Protocol Flags    Type St Inode Path"
    entry = next(line for line in lines if line.endswith("@webview_devtools_remote_4242"))
    fields = entry.split()
    assert fields[:6] == ["0000000000000000:", "00000002", "00000000", "00010000", "0001", "01"]
    assert fields[6].isdigit()
    assert b"webview_devtools_remote_4242" not in vdev.shell("cat /proc/net/unix")[1]  # closed: gone


@needs_chromium
def test_the_app_process_serves_its_webview_socket_named_by_its_pid(webview: OpenWebView) -> None:
    device = webview.device
    pid = device.activity.pid_of(PACKAGE)
    assert webview.browser.socket_name == f"webview_devtools_remote_{pid}"
    listing = device.shell("grep devtools_remote /proc/net/unix")[1].decode()
    assert listing.rstrip().endswith(f"@webview_devtools_remote_{pid}")
    # the owner is found from the pid as Playwright's android.ts does: the last column of `ps -A`
    ps_line = device.shell(f"ps -A | grep {pid}")[1].decode().strip()
    assert ps_line.split()[-1] == PACKAGE
    assert device.shell(f"cat /proc/{pid}/cmdline")[1].rstrip(b"\0") == PACKAGE.encode()


@needs_chromium
def test_json_version_answers_as_android_webview_with_the_clients_host(webview: OpenWebView) -> None:
    stream = webview.device.open_service(f"localabstract:{webview.browser.socket_name}")
    try:
        status, version = http_get(stream, "/json/version", host="127.0.0.1:40123")
    finally:
        stream.close()
    assert status == 200
    assert version["Android-Package"] == PACKAGE
    assert version["Browser"].startswith("Chrome/")
    assert "; wv)" in version["User-Agent"] and "Version/4.0 Chrome/" in version["User-Agent"]
    assert version["webSocketDebuggerUrl"] == "ws://127.0.0.1:40123/devtools/browser"


@needs_chromium
def test_json_list_lists_the_processes_pages_with_the_webview_description(webview: OpenWebView) -> None:
    stream = webview.device.open_service(f"localabstract:{webview.browser.socket_name}")
    try:
        _, listed = http_get(stream, "/json/list", host="localhost:5555")
        _, same = http_get(stream, "/json", host="localhost:5555")  # the same connection, kept alive
    finally:
        stream.close()
    assert [entry["id"] for entry in listed] == [webview.page.target_id] == [entry["id"] for entry in same]
    entry = listed[0]
    assert (entry["type"], entry["title"]) == ("page", "Probe")
    assert entry["webSocketDebuggerUrl"] == f"ws://localhost:5555/devtools/page/{webview.page.target_id}"
    assert entry["description"] == json.dumps(DESCRIPTION, separators=(",", ":"), sort_keys=True)
    assert list(json.loads(entry["description"])) == sorted(DESCRIPTION)


@needs_chromium
def test_a_cdp_round_trip_through_the_browser_target_as_playwright_opens_it(webview: OpenWebView) -> None:
    stream = webview.device.open_service(f"localabstract:{webview.browser.socket_name}")
    try:
        socket = WebSocket(stream, "/devtools/browser", host=None)  # android.ts sends no Host
        assert socket.status == 101
        targets = socket.command("Target.getTargets")["result"]["targetInfos"]
        pages = [t for t in targets if t["type"] == "page"]
        assert [(p["targetId"], p["title"]) for p in pages] == [(webview.page.target_id, "Probe")]
        attached = socket.command("Target.attachToTarget", {"targetId": webview.page.target_id, "flatten": True})
        assert "sessionId" in attached["result"]
    finally:
        stream.close()


@needs_chromium
def test_a_page_websocket_evaluates_in_the_page(webview: OpenWebView) -> None:
    stream = webview.device.open_service(f"localabstract:{webview.browser.socket_name}")
    try:
        socket = WebSocket(stream, f"/devtools/page/{webview.page.target_id}", host="127.0.0.1:1")
        answer = socket.command("Runtime.evaluate", {"expression": "document.title + ' ' + devicePixelRatio",
                                                     "returnByValue": True})
    finally:
        stream.close()
    assert answer["result"]["result"]["value"] == f"Probe {WINDOW.scale}"


@needs_chromium
def test_chromium_is_killed_when_the_device_stops(vdev: VirtualDevice, webview: OpenWebView) -> None:
    chromium = webview.browser.chromium
    assert chromium is not None and chromium.alive()
    group = chromium.pid
    vdev.close()
    assert chromium.process.returncode is not None  # reaped: the pid is gone
    assert live_processes_in_group(group) == []
    assert not chromium.profile.exists()


@needs_chromium
def test_the_apps_death_removes_its_socket_and_its_chromium(webview: OpenWebView) -> None:
    device = webview.device
    name = webview.browser.socket_name
    chromium = webview.browser.chromium
    assert chromium is not None
    device.shell(f"am force-stop {PACKAGE}")
    assert name.encode() not in device.shell("cat /proc/net/unix")[1]
    assert wait_until(lambda: chromium.process.poll() is not None, timeout=10.0)
    assert wait_until(lambda: live_processes_in_group(chromium.pid) == [], timeout=10.0)
    # the next WebView of the next process gets a chromium and a socket of its own
    device.shell(f"am start -W -n {PACKAGE}/.MainActivity")
    again = device.web.browser_of(PACKAGE, Kind.WEBVIEW, WINDOW)
    assert again.socket_name != name and again.chromium is not None and again.chromium.pid != chromium.pid


@needs_chromium
def test_json_new_is_refused_as_webview_refuses_it_and_other_paths_are_chromiums(webview: OpenWebView) -> None:
    stream = webview.device.open_service(f"localabstract:{webview.browser.socket_name}")
    try:
        stream.send(b"PUT /json/new?about:blank HTTP/1.1\r\nHost: localhost\r\n\r\n")
        answer = receive_until(stream, lambda data: data.endswith(b"Could not create new page"))
        status, protocol = http_get(stream, "/json/protocol")
    finally:
        stream.close()
    assert answer.startswith(b"HTTP/1.1 500 ")
    assert [entry["id"] for entry in listed_on(webview)] == [webview.page.target_id]  # nothing was created
    assert status == 200 and any(domain["domain"] == "Runtime" for domain in protocol["domains"])


def listed_on(webview: OpenWebView) -> list[dict[str, object]]:
    stream = webview.device.open_service(f"localabstract:{webview.browser.socket_name}")
    try:
        return list(http_get(stream, "/json/list")[1])
    finally:
        stream.close()


@needs_chromium
def test_an_attached_client_sees_its_stream_end_when_the_app_dies(webview: OpenWebView) -> None:
    device = webview.device
    stream = device.open_service(f"localabstract:{webview.browser.socket_name}")
    try:
        socket = WebSocket(stream, f"/devtools/page/{webview.page.target_id}")
        assert socket.command("Runtime.evaluate", {"expression": "1 + 1"})["result"]["result"]["value"] == 2
        device.shell(f"am force-stop {PACKAGE}")
        receive_until(stream, lambda data: False, timeout=10.0)  # fails unless the end comes: never a hang
        assert stream.recv(1.0) == b""
    finally:
        stream.close()


@needs_chromium
def test_only_the_shell_root_and_the_app_itself_may_connect(webview: OpenWebView) -> None:
    sockets = webview.device.sockets
    app_uid = webview.browser.uid
    for uid, allowed in ((2000, True), (0, True), (app_uid, True), (app_uid + 1, False)):
        stream = sockets.connect_abstract(webview.browser.socket_name, peer_uid=uid)
        try:
            with contextlib.suppress(errors.Closed):  # a refused peer's stream is closed at once
                stream.send(b"GET /json/version HTTP/1.1\r\nHost: localhost\r\n\r\n")
            answer = receive_until(stream, lambda data: b"Android-Package" in data)
        finally:
            stream.close()
        assert (b"Android-Package" in answer) is allowed, uid


def test_the_product_is_chromes_as_android_names_it_whichever_chromium_renders() -> None:
    from pytest_mobile_agent.virtual.web.browser import android_product

    assert android_product("HeadlessChrome/156.0.8078.114") == "Chrome/156.0.8078.114"
    assert android_product("Chrome/156.0.8078.114") == "Chrome/156.0.8078.114"
    assert android_product("") == ""
