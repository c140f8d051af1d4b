"""The agent double's text entry answers as the Java agent's does (agent-android/src/.../input/
TextEntry.java, core/Agent.text; its JUnit TextTest), each case naming the platform behaviour it
follows: a refused direct set, key verdicts, the paste fallback, an unreadable clip, and the
screenshot's capture path."""

from __future__ import annotations

import time
from typing import Any

import pytest

from pytest_mobile_agent.virtual.agent import AgentCore
from pytest_mobile_agent.virtual.ui import EmulatorUi
from pytest_mobile_agent.virtual.ui.clipboard import SHELL_PACKAGE, Clip
from pytest_mobile_agent.virtual.ui.node import Node
from tests.support.agent_host import Host, on_tab


@pytest.fixture
def ui() -> EmulatorUi:
    model = EmulatorUi()
    on_tab(model, "Login")
    return model


def field(ui: EmulatorUi, res: str) -> Node:
    return next(n for w in ui.windows() for n in w.nodes() if n.res == res)


def known(host: Host, ui: EmulatorUi, res: str) -> int:
    """The node's id, read through a snapshot first (the ids the host has)."""
    host.result("snapshot")
    return field(ui, res).uid


def text(host: Host, node: int, value: str, method: str) -> dict[str, Any]:
    return host.call("text", {"node": node, "text": value, "method": method})


def test_a_direct_set_the_app_refuses_is_not_accepted(ui: EmulatorUi, host: Host) -> None:
    """TextView.performAccessibilityActionInternal refuses ACTION_SET_TEXT unless the view is
    enabled; the Java agent answers the action's false as `accepted: false` (TextEntry.enter), not
    invalid_params, which the old double answered."""
    username = known(host, ui, "username")
    field(ui, "username").enabled = False  # disabled after the host read it
    assert text(host, username, "ada", "direct") == {"type": "response", "id": 2,
                                                      "result": {"accepted": False, "method": "direct"}}
    assert field(ui, "username").text == ""


def test_direct_asked_of_a_node_without_the_action_is_invalid_params(ui: EmulatorUi, host: Host) -> None:
    invite = known(host, ui, "invite_code")
    assert text(host, invite, "x", "direct")["error"] == {
        "code": "invalid_params", "message": f"node {invite} does not accept text set directly", "retryable": False}


def test_the_key_method_ands_every_keys_verdict(ui: EmulatorUi, host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each key's verdict counts, and every key still goes out (TextEntry.typeKeys: ok &= inject);
    the old double answered accepted whatever the platform said."""
    invite = known(host, ui, "invite_code")
    sent: list[int] = []
    inject = ui.inject_key

    def second_refused(code: int, meta: int = 0) -> bool:
        sent.append(code)
        return inject(code, meta) and len(sent) != 2

    monkeypatch.setattr(ui, "inject_key", second_refused)
    assert text(host, invite, "abc", "keys")["result"] == {"accepted": False, "method": "keys"}
    assert len(sent) == 3


def test_typed_keys_reach_the_field_after_the_answer(ui: EmulatorUi, host: Host) -> None:
    """INJECT_INPUT_EVENT_MODE_ASYNC: the keys are queued for the app and handled by the time
    anything looks at the screen (the Java fake's AppThread)."""
    invite = known(host, ui, "invite_code")
    assert text(host, invite, "Ab 12", "keys")["result"] == {"accepted": True, "method": "keys"}
    assert field(ui, "invite_code").text == "Ab 12"


def test_where_the_app_refuses_action_paste_the_paste_key_pastes(ui: EmulatorUi, host: Host) -> None:
    """The Java agent falls back to KEYCODE_PASTE injected waiting for the app (TextView.doKeyDown
    pastes the clip on the DOWN); the old double answered invalid_params."""
    invite = known(host, ui, "invite_code")
    field(ui, "invite_code").refuses_paste_action = True
    ui.set_clip(Clip("mine").unseen(), source=SHELL_PACKAGE)
    assert text(host, invite, "日本", "clipboard")["result"] == {"accepted": True, "method": "clipboard"}
    assert field(ui, "invite_code").text == "日本"
    assert ui.clipboard == "mine", "the user's clip went back only after the app read the pasted one"


def test_a_paste_that_never_arrives_is_not_accepted(ui: EmulatorUi, host: Host) -> None:
    """Neither the action nor the key pastes: accepted only when the text arrived (within 1 s,
    TextEntry.PASTE_ARRIVAL_MS), never an `accepted` over an unchanged field."""
    invite = known(host, ui, "invite_code")
    node = field(ui, "invite_code")
    node.refuses_paste_action = node.ignores_paste_key = True
    started = time.monotonic()
    assert text(host, invite, "日本", "clipboard")["result"] == {
        "accepted": False, "method": "clipboard", "reason": "the field's text did not come to hold the pasted text"}
    assert 0.9 < time.monotonic() - started < 3.0
    assert node.text == ""


def test_a_clip_the_shell_cannot_read_is_left_alone_not_cleared(ui: EmulatorUi, host: Host) -> None:
    """hasPrimaryClip says a clip is there, getPrimaryClip gives the shell none (ClipboardService):
    the Java agent's restore leaves the clipboard alone (the paste's clip stays) instead of clearing
    it; the old double read the model's clip behind the shell's back and put it back."""
    invite = known(host, ui, "invite_code")
    ui.clip = Clip("the user's secret", shell_readable=False)
    assert text(host, invite, "日本", "clipboard")["result"] == {"accepted": True, "method": "clipboard"}
    assert ui.clip is not None and ui.clip.text == "日本"


def test_an_empty_clipboard_is_cleared_again_after_the_paste(ui: EmulatorUi, host: Host) -> None:
    invite = known(host, ui, "invite_code")
    ui.clear_clip()
    assert text(host, invite, "日本", "clipboard")["result"]["accepted"] is True
    assert ui.clip is None


def test_the_params_are_read_in_the_java_agents_order(ui: EmulatorUi, host: Host) -> None:
    """An unknown node with an unknown method is not_found, as core/Agent.text looks the node up
    before TextEntry.enter checks the method; a missing text is invalid_params."""
    assert host.call("text", {"node": 999_999, "text": "x", "method": "morse"})["error"]["code"] == "not_found"
    assert host.call("text", {"node": None})["error"]["message"] == "`text` is required"
    invite = known(host, ui, "invite_code")
    assert text(host, invite, "x", "morse")["error"]["message"] == \
        "method must be one of auto, direct, keys, clipboard, not morse"


def test_a_screenshot_names_its_capture_path(ui: EmulatorUi, core: AgentCore, host: Host) -> None:
    """`capture` (docs/protocol.md): ui_automation, or screencap when reading UiAutomation's
    HARDWARE bitmap back fails in the shell process (the Java agent's platform/Screenshots)."""
    assert host.result("screenshot")["capture"] == "ui_automation"
    core.platform.hardware_read_back_fails = True
    shot = host.result("screenshot")
    assert (shot["capture"], shot["width"], shot["height"]) == ("screencap", 1080, 2400)
