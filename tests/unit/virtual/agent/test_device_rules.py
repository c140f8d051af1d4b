"""The agent double meets the device's rules as the Java agent does (issue 37; its JUnit
ClipboardReadRefusalTest, LiveFocusTest, TextTest and ScreenshotTest): the virtual device plays
ClipboardService (a root read clears the clip, nothing is read while the device is locked, the
access toast for a reader that does not own the clip), a form that moves the focus, and HWUI's
silent all-zero read-back."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_mobile_agent.virtual.agent import AgentCore
from pytest_mobile_agent.virtual.kernel.streams import Kernel
from pytest_mobile_agent.virtual.ui import EmulatorUi
from pytest_mobile_agent.virtual.ui.node import Node
from tests.support.agent_host import Host, make_core, on_tab

USERS_CLIP = "the user's clip"


@pytest.fixture
def ui() -> EmulatorUi:
    model = EmulatorUi()
    on_tab(model, "Login")
    model.clipboard = USERS_CLIP  # the fixture app copied it
    return model


@pytest.fixture
def root_host(ui: EmulatorUi) -> Iterator[Host]:
    """A welcomed host of an agent started by root (no `su 2000`), connected as adbd under adb root."""
    core, _ = make_core(ui, uid=0)
    h = Host(core, Kernel(), peer_uid=0)
    h.handshake()
    yield h
    h.close()
    core.stop()


def field(ui: EmulatorUi, res: str) -> Node:
    return next(n for w in ui.windows() for n in w.nodes() if n.res == res)


def node_id(host: Host, ui: EmulatorUi, res: str) -> int:
    host.result("snapshot")
    return field(ui, res).uid


def paste(host: Host, ui: EmulatorUi, res: str, value: str) -> dict[str, Any]:
    return host.call("text", {"node": node_id(host, ui, res), "text": value, "method": "clipboard"})


def toasts(host: Host) -> list[tuple[str, str, bool]]:
    return [(t["text"], t["package"], t["by_agent"]) for t in host.result("toasts")["toasts"]]


# --- item 1: the clipboard under root ----------------------------------------------------------


def test_a_root_read_clears_the_clipboard_on_the_device(ui: EmulatorUi) -> None:
    """ClipboardService.getPrimaryClip for root naming com.android.shell: addActiveOwnerLocked throws,
    the clipboard is cleared (what the agent must never call)."""
    assert ui.shell_clip(0) is None
    assert ui.clipboard is None


def test_under_root_clipboard_get_is_refused_and_the_users_clip_survives(ui: EmulatorUi, root_host: Host) -> None:
    error = root_host.call("clipboard_get")["error"]
    assert error["code"] == "clipboard_unavailable" and "root" in error["message"]
    assert ui.clipboard == USERS_CLIP


def test_under_root_a_paste_skips_the_save_that_would_clear_the_clip(ui: EmulatorUi, root_host: Host) -> None:
    assert paste(root_host, ui, "invite_code", "日本")["result"] == {"accepted": True, "method": "clipboard"}
    assert field(ui, "invite_code").text == "日本"
    assert ui.clipboard == "日本", "nothing restored: the paste's clip stays"


# --- H3: a locked device -------------------------------------------------------------------------


def test_while_locked_clipboard_get_is_refused_and_a_paste_never_clears_the_clip(ui: EmulatorUi, host: Host) -> None:
    ui.device_locked = lambda: True
    error = host.call("clipboard_get")["error"]
    assert error["code"] == "clipboard_unavailable" and "locked" in error["message"]
    paste(host, ui, "invite_code", "日本")
    ui.device_locked = lambda: False
    assert ui.clipboard == "日本", "not cleared by restoring the empty clipboard a locked read sees"


# --- item 2: the access toast --------------------------------------------------------------------


def test_a_pastes_access_toasts_are_marked_as_the_agents_and_the_apps_toast_is_not(ui: EmulatorUi,
                                                                                  host: Host) -> None:
    assert paste(host, ui, "invite_code", "日本")["result"]["accepted"] is True
    ui.toasts.show("dev.mobileagent.fixture", "Invalid email")
    assert toasts(host) == [("Shell pasted from your clipboard", "android", True),
                            ("Compose fixture pasted from your clipboard", "android", True),
                            ("Invalid email", "dev.mobileagent.fixture", False)]


def test_with_the_setting_off_no_access_toast_shows(ui: EmulatorUi, host: Host) -> None:
    ui.clipboard_access_notifications = lambda: False
    assert host.result("clipboard_get") == {"text": USERS_CLIP}
    assert toasts(host) == []


def test_the_access_toast_shows_once_per_clip_and_reader(ui: EmulatorUi, host: Host) -> None:
    host.result("clipboard_get")
    host.result("clipboard_get")
    assert toasts(host) == [("Shell pasted from your clipboard", "android", True)]


# --- item 3: live focus --------------------------------------------------------------------------


def test_keys_for_a_field_whose_focus_was_taken_are_refused_and_nothing_is_typed(ui: EmulatorUi,
                                                                                 host: Host) -> None:
    field(ui, "invite_code").focus_taken_by = field(ui, "username")
    invite = node_id(host, ui, "invite_code")
    result = host.result("text", {"node": invite, "text": "abc", "method": "keys"})
    assert result["accepted"] is False and "input focus moved" in result["reason"]
    assert field(ui, "username").text == "" and field(ui, "invite_code").text == ""


def test_keys_stop_when_the_focus_advances_to_another_field(ui: EmulatorUi, host: Host) -> None:
    field(ui, "invite_code").advances_to = field(ui, "username")
    invite = node_id(host, ui, "invite_code")
    assert host.result("text", {"node": invite, "text": "123", "method": "keys"})["accepted"] is False
    assert (field(ui, "invite_code").text, field(ui, "username").text) == ("1", "")


# --- H1: a paste is its text arriving ------------------------------------------------------------


def test_a_paste_of_the_users_old_clip_is_not_accepted(ui: EmulatorUi, host: Host) -> None:
    ui.shell_clip_writes_ignored = True
    result = paste(host, ui, "invite_code", "日本")["result"]
    assert field(ui, "invite_code").text == USERS_CLIP
    assert result == {"accepted": False, "method": "clipboard",
                      "reason": "the field's text did not come to hold the pasted text"}


# --- H4: an all-zero read-back -------------------------------------------------------------------


def test_an_all_zero_read_back_is_taken_with_screencap_and_says_so(core: AgentCore, host: Host) -> None:
    core.platform.hardware_read_back_black = True
    shot = host.result("screenshot", {"format": "png"})
    assert shot["capture"] == "screencap" and "all zero" in shot["fallback"]


# --- H6: a bounded paste key ---------------------------------------------------------------------


def test_a_paste_key_the_busy_app_does_not_finish_is_bounded_and_leaves_the_pasted_clip(ui: EmulatorUi,
                                                                                       host: Host) -> None:
    """InputManagerService would wait 30 s for the busy app; the agent waits 2 s, leaves the pasted
    clip for the pending paste (restoring would have it insert the user's clip), and says why."""
    invite = field(ui, "invite_code")
    invite.refuses_paste_action = True
    node = node_id(host, ui, "invite_code")
    ui.set_app_busy(True)
    started = time.monotonic()
    result = host.result("text", {"node": node, "text": "日本", "method": "clipboard"})
    took = time.monotonic() - started
    assert result["accepted"] is False and "did not finish the paste key within 2000 ms" in result["reason"]
    assert took < 10.0, "bounded, not InputManagerService's 30 s"
    assert ui.clipboard == "日本", "the pasted clip is left for the pending paste"
    ui.set_app_busy(False)
    assert invite.text == "日本", "the pending paste inserts the pasted text, not the user's clip"
