"""The clipboard method on the agent double, against SystemUI's clipboard overlay (Android 13+):
ClipboardListener shows an interactive system window for every clip that lacks
`com.android.systemui.SUPPRESS_CLIPBOARD_OVERLAY` (ClipboardListener.onPrimaryClipChanged,
shouldSuppressOverlay), and ClipboardService refuses a clip with another app's content URIs from the
shell (the UI model's `ui/clipboard.py`). The agent's paste and its restore both carry the extra,
and a clip it may not put back never masks the paste."""

from __future__ import annotations

import time

import pytest

from pytest_mobile_agent.virtual.ui import EmulatorUi
from pytest_mobile_agent.virtual.ui.clipboard import SHELL_PACKAGE, Clip, ClipRefused
from pytest_mobile_agent.virtual.ui.fixture import COMPOSE_MS, LAUNCH_MS
from tests.support.agent_host import Host


@pytest.fixture
def ui() -> EmulatorUi:
    model = EmulatorUi()
    model.start_app({"tab": "Login"})
    time.sleep((LAUNCH_MS + COMPOSE_MS["Login"] + 20) / 1000)
    model.advance()
    return model



def invite(snapshot: dict) -> dict:
    return next(n for w in snapshot["windows"] for n in w["nodes"] if n["res"] == "invite_code")


def titles(snapshot: dict) -> list[str]:
    return [w["title"] for w in snapshot["windows"]]


def test_a_paste_shows_no_clipboard_overlay_and_restores_the_users_clip_unseen(ui: EmulatorUi, host: Host) -> None:
    ui.set_clip(Clip("mine").unseen(), source=SHELL_PACKAGE)
    node = invite(host.result("snapshot"))
    assert host.result("text", {"node": node["id"], "text": "ünï", "method": "clipboard"})["method"] == "clipboard"
    assert ui.clipboard_overlay is None
    assert "ClipboardOverlay" not in titles(host.result("snapshot", {"evict_event_less": True}))
    assert ui.clipboard == "mine"


def test_a_clip_set_as_the_old_agent_did_brings_an_overlay_that_takes_touches(ui: EmulatorUi, host: Host) -> None:
    ui.set_clip(Clip("plain"), source=SHELL_PACKAGE)  # setPrimaryClip from the shell without the extra
    snap = host.result("snapshot")
    overlay = next(w for w in snap["windows"] if w["title"] == "ClipboardOverlay")
    assert (overlay["type"], overlay["owner"], overlay["modal"]) == ("system", "com.android.systemui", False)
    left, top, right, bottom = overlay["bounds"]
    window, _ = ui.hit((left + right) // 2, (top + bottom) // 2)
    assert window is ui.clipboard_overlay, "a tap there goes to the overlay, not to the app"


def test_a_clip_the_shell_may_not_put_back_never_masks_the_paste(ui: EmulatorUi, host: Host) -> None:
    ui.clip = Clip("a photo", uris=("content://media/external/images/media/1",))  # an app's clip
    with pytest.raises(ClipRefused):
        ui.set_clip(ui.clip, source=SHELL_PACKAGE)
    node = invite(host.result("snapshot"))
    assert host.result("text", {"node": node["id"], "text": "日本", "method": "clipboard"}) == \
        {"accepted": True, "method": "clipboard"}
    assert invite(host.result("snapshot", {"evict_event_less": True}))["text"] == "日本"
