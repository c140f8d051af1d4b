"""What web content costs on the virtual device (issue 35, item 4).

    python3 benches/bench_webview.py [ROUNDS]     # default 20

* opening the fixture's web sign-in until its page's nodes are in the replica: cold (the app's
  process starts its chromium: a fresh device each time, 3 times) and warm (the process's chromium
  already runs: the activity closed and opened again, 5 times);
* a DevTools round trip (`Runtime.evaluate("1 + 1")` on the sign-in page) through the device's
  relay (`localabstract:webview_devtools_remote_<pid>` on the in-process seam, then the relay's
  TCP connection to chromium) beside the same call on a WebSocket straight to chromium's own port,
  taking turns (`timing.interleaved`): ROUNDS samples of 20 calls each.
"""

from __future__ import annotations

import socket
import sys
import time

from timing import interleaved, median, stamp, summary

from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.ui.fixture import PACKAGE
from pytest_mobile_agent.virtual.ui.fixture_web import WebSignIn
from tests.support.chromium import WebSocket


class _Tcp:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv(self, timeout: float | None = None) -> bytes:
        self.sock.settimeout(timeout)
        data: bytes = self.sock.recv(1 << 16)
        return data


def open_sign_in(device: VirtualDevice) -> WebSignIn:
    device.ui.app.open_web_sign_in()
    web = device.ui.app.web_sign_in
    assert web is not None
    deadline = time.monotonic() + 30
    while not any(n.text == "Continue" for n in web.sign_in.node.walk()):
        assert time.monotonic() < deadline, web.sign_in.error
        time.sleep(0.005)
    return web


def started_device() -> VirtualDevice:
    device = VirtualDevice()
    device.shell(f"am start -W -n {PACKAGE}/.MainActivity")
    return device


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    print(stamp())
    cold = []
    for _ in range(3):
        device = started_device()
        started = time.perf_counter()
        open_sign_in(device)
        cold.append((time.perf_counter() - started) * 1000)
        device.close()
    print(f"open, cold (chromium starts): {summary(cold, 0)}")
    device = started_device()
    try:
        open_sign_in(device).finish()
        warm = []
        for _ in range(5):
            started = time.perf_counter()
            web = open_sign_in(device)
            warm.append((time.perf_counter() - started) * 1000)
            web.finish()
        print(f"open, warm (chromium runs):   {summary(warm, 0)}")
        web = open_sign_in(device)
        page = web.sign_in.page
        browser = web.sign_in.browser
        assert page is not None and browser is not None and browser.chromium is not None
        path = f"/devtools/page/{page.target_id}"
        relayed = WebSocket(device.open_service(f"localabstract:{browser.socket_name}"), path)
        direct = WebSocket(_Tcp(socket.create_connection(("127.0.0.1", browser.chromium.port))), path,
                           host=f"127.0.0.1:{browser.chromium.port}")
        call = ("Runtime.evaluate", {"expression": "1 + 1", "returnByValue": True})
        samples = interleaved({"relay": lambda: relayed.command(*call), "direct": lambda: direct.command(*call)},
                              rounds, 20)
        relay_ms, direct_ms = median(samples["relay"]) * 1000, median(samples["direct"]) * 1000
        print(f"round trip through localabstract: p50 {relay_ms:.3f} ms; straight to chromium: p50 "
              f"{direct_ms:.3f} ms; ratio {relay_ms / direct_ms:.2f}")
    finally:
        device.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
