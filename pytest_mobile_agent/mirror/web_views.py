"""What the screen knows of web content: which packages show a WebView now, and which is in front.

The replica sees a WebView as accessibility exposes it, nodes under an `android.webkit.WebView`
(frameworks/base core/java/android/webkit/WebView.java, `getAccessibilityClassName`); the web room
(`web/content.py`) asks this when no DevTools socket answers, to tell a WebView that is not
debuggable from a page that has not appeared yet.
"""

from __future__ import annotations

from pytest_mobile_agent.mirror.blockers import front_window
from pytest_mobile_agent.mirror.replica import View

WEBVIEW_CLASS = "android.webkit.WebView"


def webview_packages(view: View | None) -> set[str]:
    """The packages of the windows that hold a WebView node."""
    if view is None:
        return set()
    return {entry.window.package for entry in view.entries
            if entry.node.class_name == WEBVIEW_CLASS and entry.window.package}


def front_package(view: View | None) -> str | None:
    window = front_window(view)
    return window.package if window is not None else None
