"""Write the golden frames of agent protocol 1 with the Python codec: one file per message kind.

    python3 tests/golden/make_golden.py

Each `<name>.frame` is one whole frame (the 4-byte big-endian length, then the UTF-8 JSON). Both
codecs are tested against these files (tests/unit/agent/test_golden.py and the Java agent's tests):
each must decode to the message below and encode back to a frame that decodes equal.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pytest_mobile_agent.agent.protocol import encode

HERE = Path(__file__).resolve().parent
SOCKET = "mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae"


def _request(request_id: int, method: str, params: dict[str, Any], deadline_ms: int = 5000) -> dict[str, Any]:
    return {"type": "request", "id": request_id, "method": method, "deadline_ms": deadline_ms, "params": params}


MESSAGES: dict[str, dict[str, Any]] = {
    "auth": {"type": "auth", "token": "0123456789abcdef0123456789abcdef"},
    "refused": {"type": "refused", "code": "unauthorized", "message": "unauthorized"},
    "refused-peer": {"type": "refused", "code": "peer_not_allowed", "message": "peer not allowed"},
    "hello": {"type": "hello", "agent": "mobile-agent-android", "version": "0.1.0", "build": "7fec0cb05341",
              "protocols": [1], "capabilities": ["events", "bounds", "window_metadata", "text_clipboard",
                                                 "multi_touch", "a11y_fields"],
              "pid": 2973, "socket": SOCKET},
    "welcome": {"type": "welcome", "protocol": 1, "host": "pytest-mobile-agent 0.1.0"},
    "refuse": {"type": "refuse", "code": "version_mismatch", "message": "host speaks protocols [1]"},
    "closing": {"type": "closing", "reason": "replaced"},
    "request-snapshot": _request(1, "snapshot", {"idle_timeout_ms": 500, "idle_quiet_ms": 200, "evict": [3],
                                                 "evict_event_less": False, "max_nodes": 5000, "max_depth": 80},
                                 10000),
    "request-bounds": _request(2, "bounds", {"ids": [57, 58]}, 500),
    "request-tap": _request(3, "tap", {"x": 540, "y": 1200, "hold_ms": 0}),
    "request-swipe": _request(4, "swipe", {"x1": 540, "y1": 1800, "x2": 540, "y2": 600, "duration_ms": 300,
                                           "rest_ms": 60}, 5300),
    "request-key": _request(5, "key", {"code": 4, "meta": 0}),
    "request-text": _request(6, "text", {"node": 88, "text": "h\u00e9llo \U0001f44b", "method": "auto"}),
    "request-screenshot": _request(7, "screenshot", {"format": "jpeg", "quality": 80}, 10000),
    "request-resync": _request(8, "resync", {}),
    "request-shutdown": _request(9, "shutdown", {}),
    "request-toasts": _request(10, "toasts", {"after": 0}, 1000),
    "request-gesture": _request(11, "gesture", {"paths": [[[420, 1100, 0], [400, 1080, 16], [300, 980, 416],
                                                           [300, 980, 476]],
                                                          [[660, 1340, 0], [680, 1360, 16], [780, 1460, 416],
                                                           [780, 1460, 476]]]}, 5476),
    "request-ime_enter": _request(11, "ime_enter", {"node": 88}),
    "response-result": {"type": "response", "id": 3, "result": {"accepted": True}},
    "response-snapshot": {"type": "response", "id": 1, "result": {
        "windows": [{
            "id": 12, "type": "application", "title": "Browser", "package": "dev.mobileagent.webfixture",
            "layer": 1, "focused": True, "active": True, "bounds": [0, 0, 1080, 2400],
            "sends_change_events": True, "owner": None, "modal": False, "node_count": 2, "skipped_children": 1,
            "nodes": [
                {"id": 56, "parent": None, "depth": 0, "class": "android.webkit.WebView", "text": None, "desc": None,
                 "res": "web", "hint": None, "package": "dev.mobileagent.webfixture", "bounds": [0, 63, 1080, 2400],
                 "clickable": False, "long_clickable": False, "focusable": False, "focused": False,
                 "editable": False, "checkable": False, "checked": False, "enabled": True, "selected": False,
                 "scrollable": False, "visible": True, "password": False, "scroll": None, "children": [57]},
                {"id": 57, "parent": 56, "depth": 1, "class": "android.widget.Button", "text": "Continue",
                 "desc": None, "res": None, "hint": None, "package": "dev.mobileagent.webfixture",
                 "bounds": [0, 400, 1080, 520], "clickable": True, "long_clickable": False, "focusable": True,
                 "focused": False, "editable": False, "checkable": False, "checked": False, "enabled": True,
                 "selected": False, "scrollable": False, "visible": True, "password": False, "scroll": None,
                 "children": [], "role": "button", "state": "collapsed", "actions": ["expand", "Share"],
                 "labeled_by": 56, "traversal_after": 56},
            ]}],
        "node_count": 2, "truncated": False, "idle": {"waited_ms": 212, "idle": True}, "seq": 41,
        "display": {"width": 1080, "height": 2400, "density": 420, "rotation": 0}}},
    "response-toasts": {"type": "response", "id": 10, "result": {
        "toasts": [{"id": 1, "text": "Continuing as guest", "package": "dev.mobileagent.fixture",
                    "class": "android.widget.Toast", "age_ms": 290, "by_agent": False},
                   {"id": 2, "text": "Saved", "package": "dev.mobileagent.fixture", "class": "android.widget.Toast",
                    "age_ms": 40, "by_agent": False}],
        "last": 2}},
    "response-error": {"type": "response", "id": 1, "error": {"code": "busy", "message": "a read is in progress",
                                                              "retryable": True}},
    "event": {"type": "event", "seq": 42, "name": "window_changed",
              "data": {"window": 12, "nodes": [57, 58], "kinds": ["text"]}},
    "ping": {"type": "ping", "nonce": 5},
    "pong": {"type": "pong", "nonce": 5},
}


def main() -> int:
    for name, message in MESSAGES.items():
        (HERE / f"{name}.frame").write_bytes(encode(message))
    print(f"wrote {len(MESSAGES)} golden frames to {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
