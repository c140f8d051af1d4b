"""A page as the double drives it: its accessibility boxes are where the page lays its elements
out (CSS pixels of the viewport, scrolled or not), and a touch at a box's centre reaches that
element."""

from __future__ import annotations

import json

from tests.support.chromium import needs_chromium
from tests.unit.virtual.web.conftest import OpenWebView

pytestmark = needs_chromium

TALL = ("data:text/html,<meta name=viewport content='width=device-width'><div style='height:1000px'></div>"
        "<button id=far onclick=\"this.textContent='Pressed'\">Far</button><div style='height:1000px'></div>")


def evaluate(opened: OpenWebView, expression: str) -> object:
    return opened.page.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})["result"]["value"]


def test_boxes_are_the_pages_own_layout_scrolled_or_not(webview: OpenWebView) -> None:
    webview.page.navigate(TALL)
    for scrolled in (0, 700):
        evaluate(webview, f"scrollTo(0, {scrolled}); 1")
        rect = json.loads(str(evaluate(webview, "JSON.stringify(document.getElementById('far')"
                                                ".getBoundingClientRect())")))
        (box,) = [n.box for n in webview.page.accessibility().values() if n.role == "button"]
        assert box is not None
        assert [round(v, 1) for v in box] == [round(v, 1) for v in (rect["left"], rect["top"], rect["right"],
                                                                    rect["bottom"])], scrolled


def test_a_touch_at_a_boxs_centre_reaches_its_element(webview: OpenWebView) -> None:
    webview.page.navigate(TALL)
    evaluate(webview, "scrollTo(0, 700); 1")
    (box,) = [n.box for n in webview.page.accessibility().values() if n.role == "button"]
    assert box is not None
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    webview.page.call("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    webview.page.call("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    assert evaluate(webview, "document.getElementById('far').textContent") == "Pressed"
