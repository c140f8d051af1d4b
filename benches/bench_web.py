"""Web content on the virtual device, side by side with Playwright attached to the same chromium
directly (its `--remote-debugging-port` on loopback), in one run:

* attach: `WebContent.page(url_contains=...)` (the socket listed from /proc/net/unix, /json/version,
  a bridge, `connect_over_cdp` through it, the page found by its target id) against
  `connect_over_cdp` on chromium's own port and the page found by its url: cold, each side starting
  its Playwright driver (as a test's first attach does: the driver stops at the test's end), and warm,
  a driver already started (a test's later attaches, another target's);
* a `page.fill` plus a `page.click` on the attached page, through the bridge and the device's
  `localabstract:` stream, against the same calls on the direct connection.

The page is the fixture app's web sign-in (the Login tab's "Sign in on the web"). With `--peer
loopback` the device is instead a scripted one whose abstract socket leads to Debian's chromium on
loopback (tests/support/web_peer.py), the same page in it: the bridge's own cost without the
double. Rounds alternate between the two sides, so that both see the same machine.

    python benches/bench_web.py [--cold 7] [--rounds 15] [--actions 30] [--virtual-adb builtin|real]
                                [--peer virtual|loopback] [--front]

`--front` brings the page's tab to the front of its chromium first: until the double gave each page a
window of its own, its chromium held the sign-in screen's two WebViews as two tabs, and in a tab
behind Playwright's click waited about 2 s for its element to be stable (no animation frames there),
on both sides alike.

Prints each side's p50/p95 and the ratio of the p50s (bridge over direct).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from pytest_mobile_agent.adb import AdbServer  # noqa: E402
from pytest_mobile_agent.mirror.steps import Steps  # noqa: E402
from pytest_mobile_agent.virtual.lab import VirtualLab  # noqa: E402
from pytest_mobile_agent.virtual.ui.fixture import PACKAGE  # noqa: E402
from pytest_mobile_agent.web import playwright_attach  # noqa: E402
from pytest_mobile_agent.web.content import WebContent  # noqa: E402
from pytest_mobile_agent.web.seam import DeviceSockets  # noqa: E402
from tests.support.polling import wait_until  # noqa: E402
from tests.support.ui_nodes import by_res, tap  # noqa: E402

PAGE = "signin.html"


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def line(name: str, values: list[float]) -> str:
    return f"{name:<28} p50 {p(values, 0.5) * 1000:8.1f} ms   p95 {p(values, 0.95) * 1000:8.1f} ms   (n={len(values)})"


def open_sign_in(lab: VirtualLab) -> int:
    """The fixture app's web sign-in shown; the loopback port of its process's chromium."""
    vdev = lab.device(lab.serials[0])
    vdev.shell(f"am start -W -n {PACKAGE}/.MainActivity")
    tap(vdev.ui, by_res(vdev.ui, "web_sign_in_button"))
    assert wait_until(lambda: vdev.ui.app.web_sign_in is not None, timeout=10.0)
    web = vdev.ui.app.web_sign_in
    assert web is not None
    for webview in web.webviews:
        assert webview.loaded.wait(30.0), webview.error
    [browser] = [b for b in vdev.web.browsers() if b.package == PACKAGE]
    assert browser.chromium is not None
    return int(browser.chromium.port)


@contextlib.contextmanager
def on_the_virtual_device(real_adb: bool) -> Iterator[tuple[DeviceSockets, int]]:
    with VirtualLab.start(1, real_adb=real_adb) as lab:
        port = open_sign_in(lab)
        yield AdbServer(port=lab.adb_port).device(lab.serials[0]), port


@contextlib.contextmanager
def on_loopback() -> Iterator[tuple[DeviceSockets, int]]:
    from tests.support.web_peer import LoopbackDevice, chromium_on_loopback

    with chromium_on_loopback(f"data:text/html,<title>{PAGE}</title><input id=name><p>{PAGE}</p>", PAGE) as port:
        device = LoopbackDevice()
        device.serve("webview_devtools_remote_4242", port, 4242, PACKAGE)
        yield device, port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--cold", type=int, default=7, help="attaches that start the Playwright driver")
    parser.add_argument("--actions", type=int, default=30)
    parser.add_argument("--virtual-adb", choices=["builtin", "real"], default="builtin")
    parser.add_argument("--peer", choices=["virtual", "loopback"], default="virtual")
    parser.add_argument("--front", action="store_true",
                        help="bring the page's tab to the front of its chromium before the actions")
    args = parser.parse_args()
    peer = on_loopback() if args.peer == "loopback" else on_the_virtual_device(args.virtual_adb == "real")
    with peer as (device, port):
        find = {"title": PAGE} if args.peer == "loopback" else {"url_contains": PAGE}
        cold_bridge: list[float] = []
        cold_direct: list[float] = []
        for _ in range(args.cold):
            web = WebContent(device, Steps())
            started = time.perf_counter()
            web.page(PACKAGE, timeout=30, **find)
            cold_bridge.append(time.perf_counter() - started)
            web.close()  # its lease was the only one: the driver stops
            started = time.perf_counter()
            with sync_playwright() as playwright:
                browser = playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
                next(page for context in browser.contexts for page in context.pages if PAGE in page.url)
                cold_direct.append(time.perf_counter() - started)
                browser.close()
        print(line("cold attach, through device", cold_bridge))
        print(line("cold attach, direct", cold_direct))
        print(f"cold attach ratio (p50): {p(cold_bridge, 0.5) / p(cold_direct, 0.5):.2f}x")

        playwright = playwright_attach.lease_driver()  # held: the attaches below share a started driver
        attach_bridge: list[float] = []
        attach_direct: list[float] = []
        for _ in range(args.rounds):
            web = WebContent(device, Steps())
            started = time.perf_counter()
            web.page(PACKAGE, timeout=30, **find)
            attach_bridge.append(time.perf_counter() - started)
            web.close()
            started = time.perf_counter()
            browser = playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
            next(page for context in browser.contexts for page in context.pages if PAGE in page.url)
            attach_direct.append(time.perf_counter() - started)
            browser.close()
        print(line("warm attach, through device", attach_bridge))
        print(line("warm attach, direct", attach_direct))
        print(f"warm attach ratio (p50): {p(attach_bridge, 0.5) / p(attach_direct, 0.5):.2f}x")

        web = WebContent(device, Steps())
        bridged = web.page(PACKAGE, url_contains=PAGE, timeout=30)
        browser = playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
        direct = next(page for context in browser.contexts for page in context.pages if PAGE in page.url)
        if args.front:
            direct.bring_to_front()  # a tab behind another gets no animation frames
        act_bridge: list[float] = []
        act_direct: list[float] = []
        for index in range(args.actions):
            for page, times in ((bridged, act_bridge), (direct, act_direct)):
                started = time.perf_counter()
                page.fill("#name", f"Ada {index}")
                page.click("#name")
                times.append(time.perf_counter() - started)
        browser.close()
        web.close()
        playwright_attach.release_driver()
        print(line("fill+click, through the device", act_bridge))
        print(line("fill+click, direct", act_direct))
        print(f"fill+click ratio (p50): {p(act_bridge, 0.5) / p(act_direct, 0.5):.2f}x")
        print(f"(mean ratio {statistics.mean(act_bridge) / statistics.mean(act_direct):.2f}x)")


if __name__ == "__main__":
    main()
