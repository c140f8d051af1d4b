"""What the screen tells the web room: which packages show a WebView (a node of class
android.webkit.WebView, as WebView.java names itself to accessibility) and which is in front."""

from __future__ import annotations

from pytest_mobile_agent.mirror.web_views import front_package, webview_packages
from tests.support.mirror_fakes import node, tree, view_of, window


def test_the_packages_whose_windows_hold_a_webview_node() -> None:
    shop = window(1, tree(node(1), node(2, 1, 1, cls="android.webkit.WebView"),
                          node(3, 2, 2, text="Pay", cls="android.widget.Button")), package="com.example.shop")
    keyboard = window(2, tree(node(10)), type="input_method", title="keyboard", package="com.example.ime")
    assert webview_packages(view_of(shop, keyboard)) == {"com.example.shop"}
    assert front_package(view_of(shop, keyboard)) == "com.example.shop"


def test_no_webview_node_no_package_and_no_view_nothing() -> None:
    plain = window(1, tree(node(1), node(2, 1, 1, text="android.webkit.WebView", cls="android.widget.TextView")))
    assert webview_packages(view_of(plain)) == set()
    assert webview_packages(None) == set() and front_package(None) is None
