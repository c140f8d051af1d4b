"""Both agents answer the same: one script of `text`, `key` and `ime_enter` requests, sent in the same order to the
Java agent on the host JVM (`HostMain`: its fake platform's fixed UI, the status bar over the Compose
fixture's Login tab) and to the agent double (its UI model on the fixture's Login tab), with every
response compared field by field: a result whole, an error's code, retryable and message (node ids
named by role), and afterwards the fields' texts.

The two fixtures are laid out differently, so the script names nodes by role: `$direct`, a field
that takes ACTION_SET_TEXT (`username` on both), `$keys`, one that does not (the Java fixture's
`pin`, the double's `invite_code`), `$unknown`, an id neither agent knows. Every text method is
covered, with its refusals and its params' errors, and keys with theirs.

Not covered, because the agents differ there: a `node` that is not editable. The double answers
`invalid_params` ("node N is not editable"); the Java agent (core/Agent.text, TextEntry.enter)
has no such check, so `keys` types into whatever has the focus and is accepted, and `clipboard` is
answered `accepted: false`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_mobile_agent.agent.protocol import FrameDecoder, encode
from tests.support.agent_host import Host, double_on_login
from tests.support.java_agent import JavaAgent, needs_java, start_java_agent

UNKNOWN_NODE = 987_654
ROLES = {"java": {"$direct": "username", "$keys": "pin"}, "double": {"$direct": "username", "$keys": "invite_code"}}

#: (method, params): the script, in order; "$role" stands for that role's node id
SCRIPT: list[tuple[str, dict[str, Any]]] = [
    ("text", {"node": None, "text": "x"}),  # nothing has the focus yet
    ("text", {"node": "$direct", "text": "héllo 👋", "method": "direct"}),
    ("text", {"node": "$direct", "text": "ada", "method": "auto"}),
    ("text", {"node": "$keys", "text": "1234", "method": "keys"}),
    ("text", {"node": "$keys", "text": "56", "method": "auto"}),
    ("text", {"node": "$keys", "text": "日本", "method": "auto"}),
    ("text", {"node": "$direct", "text": "x", "method": "clipboard"}),
    ("text", {"node": "$keys", "text": "", "method": "keys"}),
    ("text", {"node": "$keys", "text": "1", "method": "direct"}),
    ("text", {"node": "$keys", "text": "日本", "method": "keys"}),
    ("text", {"node": "$keys", "text": "x", "method": "morse"}),
    ("text", {"node": "$unknown", "text": "x", "method": "morse"}),
    ("text", {"node": "$keys"}),
    ("text", {"node": "$keys", "text": 5}),
    ("text", {"node": "$keys", "text": "x", "method": 3}),
    ("text", {"node": 0, "text": "x"}),
    ("text", {"node": "abc", "text": "x"}),
    ("text", {"node": None, "text": "Zed", "method": "keys"}),  # the focused node: $keys, which "" focused
    ("key", {"code": 29}),
    ("key", {"code": 29, "meta": 1}),
    ("key", {"code": 10_001}),
    ("key", {"code": 29, "meta": -1}),
    ("key", {}),
    ("key", {"code": "29"}),
    ("key", {"code": 1.5}),
    ("ime_enter", {"node": "$direct"}),  # not focused: ACTION_IME_ENTER not offered
    ("ime_enter", {"node": None}),  # the focused field, $keys: offered and performed
    ("ime_enter", {"node": "$unknown"}),
    ("ime_enter", {"node": "abc"}),
]


class JavaWire:
    """Protocol 1 frames to the Java agent over its loopback port: every response as it came."""

    def __init__(self, agent: JavaAgent) -> None:
        self.sock = agent.stream()
        self.decoder = FrameDecoder()
        self.inbox: list[dict[str, Any]] = []
        self.next_id = 1
        self.sock.sendall(encode({"type": "auth", "token": agent.token}))
        assert self._next("hello")["agent"] == "mobile-agent-android"
        self.sock.sendall(encode({"type": "welcome", "protocol": 1, "host": "conformance"}))

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id, self.next_id = self.next_id, self.next_id + 1
        self.sock.sendall(encode({"type": "request", "id": request_id, "method": method, "deadline_ms": 10_000,
                                  "params": params}))
        response = self._next("response")
        assert response["id"] == request_id
        return response

    def _next(self, kind: str, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            while self.inbox:
                message = self.inbox.pop(0)
                if message["type"] == kind:
                    return message
                if message["type"] == "ping":
                    self.sock.sendall(encode({"type": "pong", "nonce": message["nonce"]}))
            left = deadline - time.monotonic()
            assert left > 0, f"no {kind} from the Java agent"
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                continue
            assert data, "the Java agent closed the connection"
            self.inbox.extend(self.decoder.feed(data))

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def java_wire(classpath: str) -> Iterator[JavaWire]:
    agent = start_java_agent(classpath)
    wire: JavaWire | None = None
    try:
        wire = JavaWire(agent)
        yield wire
    finally:
        if wire is not None:
            wire.close()
        agent.stop()


@pytest.fixture
def double_host() -> Iterator[Host]:
    with double_on_login() as (_, _, host):
        yield host


def node_ids(snapshot: dict[str, Any], roles: dict[str, str]) -> dict[str, int]:
    by_res = {node["res"]: node["id"] for window in snapshot["windows"] for node in window["nodes"]}
    return {role: by_res[res] for role, res in roles.items()} | {"$unknown": UNKNOWN_NODE}


def fields(snapshot: dict[str, Any], roles: dict[str, str]) -> dict[str, str | None]:
    text = {node["res"]: node["text"] for window in snapshot["windows"] for node in window["nodes"]}
    return {role: text[res] or "" for role, res in roles.items()}


def filled(params: dict[str, Any], ids: dict[str, int]) -> dict[str, Any]:
    return {k: ids[v] if isinstance(v, str) and v in ids else v for k, v in params.items()}


def comparable(response: dict[str, Any], ids: dict[str, int]) -> dict[str, Any]:
    """The response with the request's id dropped and node ids in messages named by role."""
    out = {k: v for k, v in response.items() if k not in ("id", "type")}
    if "error" in out:
        roles = {str(node): role for role, node in ids.items()}
        message = re.sub(r"node (\d+)", lambda m: f"node {roles.get(m.group(1), m.group(1))}", out["error"]["message"])
        out["error"] = {**out["error"], "message": message}
    return out


def run_script(call: Any, roles: dict[str, str]) -> tuple[list[dict[str, Any]], dict[str, str | None]]:
    ids = node_ids(call("snapshot", {})["result"], roles)
    answers = [comparable(call(method, filled(params, ids)), ids) for method, params in SCRIPT]
    after = call("snapshot", {"evict_event_less": True, "idle_timeout_ms": 500})["result"]
    return answers, fields(after, roles)


@needs_java
def test_the_java_agent_and_the_double_answer_every_text_method_and_key_the_same(
        java_wire: JavaWire, double_host: Host) -> None:
    java, java_fields = run_script(java_wire.call, ROLES["java"])
    double, double_fields = run_script(double_host.call, ROLES["double"])
    for (method, params), from_java, from_double in zip(SCRIPT, java, double, strict=True):
        assert from_double == from_java, f"{method} {params}"
    assert double_fields == java_fields, (double_fields, java_fields)
    assert java_fields == {"$direct": "adax", "$keys": "123456日本ZedaA"}
    assert sum("result" in answer for answer in java) == 12, "the script's accepted requests"


@needs_java
def test_both_agents_send_the_tabs_role_and_the_host_decodes_it_into_the_node(
        java_wire: JavaWire, double_host: Host) -> None:
    """The accessibility fields (docs/protocol.md, capability a11y_fields) from the Java agent on the host
    JVM and from the double, through the host's typed decoder: the tabs' role "Tab", and none of the other
    fields' keys on nodes that hold their defaults."""
    from pytest_mobile_agent.session.backends import ReadReason
    from pytest_mobile_agent.session.tree import parse_snapshot

    def roles(snapshot: dict[str, Any]) -> dict[str, str | None]:
        typed = parse_snapshot(snapshot, scale=2.625, reason=ReadReason.POLL, read_at=0.0)
        return {node.res: node.role for window in typed.windows for node in window.nodes
                if node.res and node.res.startswith("tab_")}

    java = java_wire.call("snapshot", {})["result"]
    double = double_host.call("snapshot", {})["result"]
    assert roles(java) == roles(double) == {"tab_login": "Tab", "tab_list": "Tab", "tab_big": "Tab"}
    optional = {"role", "state", "range", "error", "actions", "labeled_by", "important", "traversal_before",
                "traversal_after"}
    for snapshot in (java, double):
        extra = {key for window in snapshot["windows"] for node in window["nodes"]
                 if not (node["res"] or "").startswith("tab_") for key in node} & optional
        assert extra == set(), extra
