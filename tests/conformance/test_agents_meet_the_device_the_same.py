"""Both agents meet the device's rules the same (issue 37): the Java agent on the host JVM
(`HostMain`, whose FakePlatform plays ClipboardService, the keyguard, HWUI's read-back and a form
that moves the focus) and the agent double (the virtual device's UI model plays the same), each
scenario on fresh agents, every answer compared field by field.

- a clipboard read as root: ClipboardService's addActiveOwnerLocked would clear the clipboard, so
  the read is refused (`clipboard_unavailable`) and the user's clip survives;
- the access toast: a paste's reads (the shell's save, the app's read of the pasted clip) show
  "<label> pasted from your clipboard" (package `android`), which both mark `by_agent`;
- stale focus: a form that moves the focus on as the target gets it: `accepted: false` with the
  reason, nothing typed elsewhere;
- a black read-back: UiAutomation's bitmap all zero, the screenshot taken with screencap and saying why;
- a locked device: clipboard_get refused, a paste neither saves nor restores;
- a busy app: the paste key's wait bounded at 2 s, `accepted: false` with the reason, the pasted
  clip left for the pending paste, which inserts it once the app is free.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pytest_mobile_agent.virtual.agent.server import AgentCore
from pytest_mobile_agent.virtual.ui import EmulatorUi
from tests.conformance.test_agents_answer_the_same import JavaWire
from tests.support.agent_host import Host, double_on_login
from tests.support.java_agent import JavaAgent, needs_java, start_java_agent

ROLES = {"java": {"$direct": "username", "$keys": "pin"}, "double": {"$direct": "username", "$keys": "invite_code"}}
USERS_CLIP = "the user's clip"

Call = Callable[[str, dict[str, Any]], dict[str, Any]]


class JavaSide:
    def __init__(self, agent: JavaAgent) -> None:
        self.agent = agent
        self.wire = JavaWire(agent)
        self.roles = ROLES["java"]

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return self.wire.call(method, params)

    def as_root(self, root: bool) -> None:
        self.agent.control(f"agent-uid {0 if root else 2000}")

    def locked(self, on: bool) -> None:
        self.agent.control(f"locked {'on' if on else 'off'}")

    def app_clip(self, text: str) -> None:
        self.agent.control(f"clip {text}")

    def black_read_back(self) -> None:
        self.agent.control("readback-black")

    def focus_taken(self, role: str, by: str) -> None:
        self.agent.control(f"focus-taken-by {self.roles[role]} {self.roles[by]}")

    def refuses_paste_action(self, role: str) -> None:
        self.agent.control(f"refuses-paste-action {self.roles[role]}")

    def app_busy(self, busy: bool) -> None:
        self.agent.control(f"app-busy {'on' if busy else 'off'}")


class DoubleSide:
    def __init__(self, ui: EmulatorUi, core: AgentCore, host: Host) -> None:
        self.ui, self.core, self.host = ui, core, host
        self.roles = ROLES["double"]

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return self.host.call(method, params)

    def as_root(self, root: bool) -> None:
        uid = 0 if root else 2000
        self.core.clipboard.agent_uid = self.core.text_entry.agent_uid = uid

    def locked(self, on: bool) -> None:
        self.ui.device_locked = lambda: on

    def app_clip(self, text: str) -> None:
        self.ui.clipboard = text  # the foreground app copies it

    def black_read_back(self) -> None:
        self.core.platform.hardware_read_back_black = True

    def focus_taken(self, role: str, by: str) -> None:
        self._node(role).focus_taken_by = self._node(by)

    def refuses_paste_action(self, role: str) -> None:
        self._node(role).refuses_paste_action = True

    def app_busy(self, busy: bool) -> None:
        self.ui.set_app_busy(busy)

    def _node(self, role: str) -> Any:
        res = self.roles[role]
        return next(node for window in self.ui.windows() for node in window.nodes() if node.res == res)


@pytest.fixture
def java(classpath: str) -> Iterator[JavaSide]:
    agent = start_java_agent(classpath)
    side: JavaSide | None = None
    try:
        side = JavaSide(agent)
        yield side
    finally:
        if side is not None:
            side.wire.close()
        agent.stop()


@pytest.fixture
def double() -> Iterator[DoubleSide]:
    with double_on_login() as (ui, core, host):
        yield DoubleSide(ui, core, host)


def ids(side: JavaSide | DoubleSide) -> dict[str, int]:
    snapshot = side.call("snapshot", {})["result"]
    by_res = {node["res"]: node["id"] for window in snapshot["windows"] for node in window["nodes"]}
    return {role: by_res[res] for role, res in side.roles.items()}


def named(answer: dict[str, Any], roles: dict[str, int]) -> dict[str, Any]:
    """The answer without its id, node ids in its words named by role, a toast's age dropped."""
    by_id = {str(node): role for role, node in roles.items()}
    out = {k: v for k, v in answer.items() if k not in ("id", "type")}

    def words(text: str) -> str:
        return re.sub(r"node (\d+)", lambda m: f"node {by_id.get(m.group(1), m.group(1))}", text)

    if "error" in out:
        out["error"] = {**out["error"], "message": words(out["error"]["message"])}
    result = out.get("result")
    if isinstance(result, dict):
        result = dict(result)
        if isinstance(result.get("reason"), str):
            result["reason"] = words(result["reason"])
        if "toasts" in result:
            result["toasts"] = [{k: v for k, v in t.items() if k != "age_ms"} for t in result["toasts"]]
        if "data" in result:
            result = {k: result[k] for k in ("format", "capture", "fallback") if k in result}
        out["result"] = result
    return out


def both(java: JavaSide, double: DoubleSide, scenario: Callable[[JavaSide | DoubleSide], list[dict[str, Any]]]
         ) -> list[dict[str, Any]]:
    from_java, from_double = scenario(java), scenario(double)
    for index, (a, b) in enumerate(zip(from_java, from_double, strict=True)):
        assert b == a, f"answer {index}: the double's {b} != the Java agent's {a}"
    return from_java


def clipboard_under_root(side: JavaSide | DoubleSide) -> list[dict[str, Any]]:
    side.app_clip(USERS_CLIP)
    side.as_root(True)
    answers = [side.call("clipboard_get", {})]
    answers.append(side.call("clipboard_set", {"text": "abc"}))
    answers.append(side.call("clipboard_get", {}))
    side.as_root(False)
    answers.append(side.call("clipboard_get", {}))
    return [named(a, {}) for a in answers]


@needs_java
def test_a_clipboard_read_as_root_is_refused_and_never_clears_the_clip(java: JavaSide, double: DoubleSide) -> None:
    answers = both(java, double, clipboard_under_root)
    assert answers[0]["error"]["code"] == "clipboard_unavailable"
    assert answers[2]["error"]["code"] == "clipboard_unavailable"
    assert answers[3] == {"result": {"text": "abc"}}


def access_toasts(side: JavaSide | DoubleSide) -> list[dict[str, Any]]:
    side.app_clip(USERS_CLIP)
    roles = ids(side)
    pasted = side.call("text", {"node": roles["$keys"], "text": "日本", "method": "clipboard"})
    return [named(pasted, roles), named(side.call("toasts", {}), roles)]


@needs_java
def test_a_pastes_access_toasts_are_the_agents_on_both(java: JavaSide, double: DoubleSide) -> None:
    answers = both(java, double, access_toasts)
    assert answers[0]["result"]["accepted"] is True
    toasts = answers[1]["result"]["toasts"]
    assert [(t["text"], t["package"], t["by_agent"]) for t in toasts] == [
        ("Shell pasted from your clipboard", "android", True),
        ("Compose fixture pasted from your clipboard", "android", True)]


def stale_focus(side: JavaSide | DoubleSide) -> list[dict[str, Any]]:
    side.focus_taken("$keys", "$direct")
    roles = ids(side)
    typed = side.call("text", {"node": roles["$keys"], "text": "abc", "method": "keys"})
    after = side.call("snapshot", {"evict_event_less": True, "idle_timeout_ms": 500})["result"]
    texts = {node["res"]: node["text"] for window in after["windows"] for node in window["nodes"]}
    return [named(typed, roles), {role: texts[res] or "" for role, res in side.roles.items()}]


@needs_java
def test_keys_for_a_field_whose_focus_moved_are_refused_on_both(java: JavaSide, double: DoubleSide) -> None:
    answers = both(java, double, stale_focus)
    assert answers[0]["result"]["accepted"] is False
    assert "input focus moved from node $keys" in answers[0]["result"]["reason"]
    assert answers[1] == {"$direct": "", "$keys": ""}


def black_read_back(side: JavaSide | DoubleSide) -> list[dict[str, Any]]:
    side.black_read_back()
    return [named(side.call("screenshot", {"format": "png"}), {})]


@needs_java
def test_an_all_zero_read_back_is_taken_with_screencap_on_both(java: JavaSide, double: DoubleSide) -> None:
    answers = both(java, double, black_read_back)
    assert answers[0]["result"]["capture"] == "screencap"
    assert "all zero" in answers[0]["result"]["fallback"]


def locked_device(side: JavaSide | DoubleSide) -> list[dict[str, Any]]:
    side.app_clip(USERS_CLIP)
    roles = ids(side)
    side.locked(True)
    answers = [side.call("clipboard_get", {})]
    answers.append(side.call("text", {"node": roles["$keys"], "text": "日本", "method": "clipboard"}))
    side.locked(False)
    answers.append(side.call("clipboard_get", {}))
    return [named(a, roles) for a in answers]


@needs_java
def test_a_locked_device_refuses_clipboard_reads_and_a_paste_skips_its_restore_on_both(
        java: JavaSide, double: DoubleSide) -> None:
    answers = both(java, double, locked_device)
    assert answers[0]["error"]["code"] == "clipboard_unavailable"
    assert answers[2] == {"result": {"text": "日本"}}, "the paste's clip stays: nothing saved, nothing restored"


def busy_app(side: JavaSide | DoubleSide) -> list[dict[str, Any]]:
    side.app_clip(USERS_CLIP)
    side.refuses_paste_action("$keys")
    roles = ids(side)
    side.app_busy(True)
    answers = [side.call("text", {"node": roles["$keys"], "text": "日本", "method": "clipboard"})]
    answers.append(side.call("clipboard_get", {}))
    side.app_busy(False)
    after = side.call("snapshot", {"evict_event_less": True, "idle_timeout_ms": 500})["result"]
    texts = {node["res"]: node["text"] for window in after["windows"] for node in window["nodes"]}
    return [named(a, roles) for a in answers] + [{"$keys": texts[side.roles["$keys"]]}]


@needs_java
def test_a_paste_key_the_busy_app_holds_is_bounded_on_both(java: JavaSide, double: DoubleSide) -> None:
    answers = both(java, double, busy_app)
    assert answers[0]["result"]["accepted"] is False
    assert "did not finish the paste key within 2000 ms" in answers[0]["result"]["reason"]
    assert answers[1] == {"result": {"text": "日本"}}, "the pasted clip stays for the pending paste"
    assert answers[2] == {"$keys": "日本"}
