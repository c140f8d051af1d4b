"""Watchers (issue 25, item 2): a selector and a reaction, fired from the screen's changes before the
test's next call and between a wait's looks, each firing a step; the errors name the watcher."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mobile_agent.errors import InvalidArgument, InvalidSelector, WaitTimeout, WatcherFailed, WatcherLoop
from pytest_mobile_agent.session.backends import ProtocolEvent
from tests.support.mirror_fakes import Rig, login_screen, node, tree, window
from tests.support.step_recorder import StepRecorder

RID = "com.android.permissioncontroller:id/"


def prompt_screen() -> dict[str, Any]:
    """The login screen under PermissionController's prompt (a modal window of its own, on top)."""
    screen = login_screen()
    prompt = window(40, tree(
        node(200, None, 0, cls="android.widget.LinearLayout", bounds=(63, 780, 1017, 1620), res=RID + "grant_dialog"),
        node(201, 200, 1, text="Allow Compose fixture to take pictures and record video?", bounds=(123, 950, 957, 1110),
             cls="android.widget.TextView", res=RID + "permission_message"),
        node(202, 200, 1, text="While using the app", cls="android.widget.Button", bounds=(123, 1160, 957, 1290),
             clickable=True, res=RID + "permission_allow_foreground_only_button"),
        node(203, 200, 1, text="Don\u2019t allow", cls="android.widget.Button", bounds=(123, 1440, 957, 1570),
             clickable=True, res=RID + "permission_deny_button"),
    ), package="com.google.android.permissioncontroller", title="Permission")
    screen["windows"].insert(0, prompt)
    return screen


def changed(rig: Rig) -> ProtocolEvent:
    return ProtocolEvent(seq=1, name="windows_changed", data={"windows": [12]}, received_at=rig.clock.now)


def dismissing(rig: Rig, answer: str = "While using the app", after: dict[str, Any] | None = None) -> None:
    """A tap on the prompt's button takes the prompt away (and says so on the event stream)."""
    def on_input(call: tuple[Any, ...]) -> None:
        if call[0] == "tap" and rig.tree.screen["windows"][0]["id"] == 40:
            button = next(n for n in rig.tree.screen["windows"][0]["nodes"] if n["text"] == answer)
            left, top, right, bottom = button["bounds"]
            if round(call[2]) in range(top, bottom):
                rig.tree.screen = after or login_screen()
                rig.events.put(changed(rig))

    rig.input.on_input = on_input


def test_a_watcher_taps_a_prompt_that_came_before_the_tests_next_call_and_the_firing_is_a_step() -> None:
    rig = Rig(login_screen())
    dismissing(rig)
    trace = StepRecorder()
    rig.mirror.steps.add_listener(trace)
    watcher = rig.mirror.watch(text="While using the app", window="com.google.android.permissioncontroller").tap()
    rig.mirror.find(text="Login")
    assert watcher.fired == 0
    rig.tree.screen = prompt_screen()
    rig.events.put(changed(rig))
    assert rig.mirror.find(text="Login").window.id == 12  # the prompt was gone before the find looked
    assert watcher.fired == 1
    names = trace.names()
    assert ("watcher", 0) in names and names.index(("watcher", 0)) < names.index(("find", 0), 1)
    firing = next(s for s in trace.ended if s.name == "watcher")
    assert firing.arguments["name"] == "text='While using the app', window='com.google.android.permissioncontroller'"
    assert firing.arguments["reaction"] == "tap" and firing.ended_by == "returned"
    assert ("element.tap", 1) in names  # the watcher's tap, nested in its firing


def test_a_watcher_fires_between_a_waits_looks_and_the_wait_goes_on() -> None:
    """The prompt came while the test waited (the app's welcome is behind it): between two looks
    the watcher answers it, and the wait finds what came after."""
    rig = Rig(login_screen())
    dismissing(rig, after=login_screen(welcome=True))
    rig.mirror.find(text="Login")
    rig.mirror.watch_builtin("allow_permissions")
    rig.events.at(rig.clock.now + 0.5, changed(rig))
    rig.tree.on_read = lambda n: setattr(rig.tree, "screen", prompt_screen()) if n == 2 else None
    assert rig.mirror.wait_for(text="Welcome, ada", timeout=3).text == "Welcome, ada"
    assert rig.mirror.watchers[0].fired == 1 and rig.mirror.watchers[0].name == "allow_permissions"


def test_a_watcher_looks_only_when_the_replica_changed() -> None:
    rig = Rig(login_screen())
    seen: list[object] = []
    rig.mirror.watch(text="Login").call(seen.append)
    rig.mirror.find(text="Big")  # the first look: the screen as it is
    assert len(seen) == 1
    reads = len(rig.tree.reads)
    for _ in range(5):
        rig.mirror.find(text="Big")
    assert len(seen) == 1 and len(rig.tree.reads) == reads  # no news, no look, no read
    rig.events.put(changed(rig))
    rig.mirror.find(text="Big")
    assert len(seen) == 2


def test_a_watcher_without_a_reaction_or_with_a_bad_selector_is_a_clear_error() -> None:
    rig = Rig(login_screen())
    rig.mirror.watch(name="allow", text="Allow")
    with pytest.raises(InvalidArgument, match="watcher 'allow' has no reaction: end screen.watch"):
        rig.mirror.find(text="Login")
    rig.mirror.find(text="Login")  # it was dropped
    with pytest.raises(InvalidSelector, match="unknown selector criterion 'txt'"):
        rig.mirror.watch(txt="Allow")  # type: ignore[call-arg]
    with pytest.raises(InvalidArgument, match="call\\(fn\\) takes a callable"):
        rig.mirror.watch(text="Login").call("tap")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="unknown built-in watcher 'allow'; known: allow_permissions"):
        rig.mirror.watch_builtin("allow")
    with pytest.raises(InvalidArgument, match="already watching"):
        rig.mirror.watch(name="x", text="A").tap()
        rig.mirror.watch(name="x", text="B").tap()


def test_a_reaction_that_raises_fails_the_call_naming_the_watcher_and_fail_says_its_message() -> None:
    rig = Rig(login_screen())

    def broken(element: object) -> None:
        raise RuntimeError("no such button")

    rig.mirror.watch(name="rate us", text="Big").call(broken)
    with pytest.raises(WatcherFailed, match=r"watcher 'rate us' failed in its reaction \(call\): RuntimeError: no"):
        rig.mirror.tap(text="Login")
    assert rig.input.calls == []
    rig2 = Rig(login_screen())
    rig2.mirror.watch(name="no anr", text_contains="Logi").fail("the app stopped answering")
    with pytest.raises(WatcherFailed, match="watcher 'no anr' matched .*: the app stopped answering") as caught:
        rig2.mirror.find(text="Big")
    assert caught.value.watcher == "no anr" and isinstance(caught.value, AssertionError)


def test_a_watcher_whose_reaction_does_not_take_the_match_away_is_stopped_as_a_loop() -> None:
    rig = Rig(prompt_screen())  # taps that change nothing: the prompt stays
    rig.mirror.watch(name="stuck", text="While using the app").tap()
    with pytest.raises(WatcherLoop, match="watcher 'stuck' kept firing \\(5 times in a row before one call\\)"):
        rig.mirror.find(text="Login")
    assert len(rig.input.calls) == 5


def test_removing_the_last_watcher_unhooks_the_steps() -> None:
    rig = Rig(login_screen())
    watcher = rig.mirror.watch(text="Login").call(lambda e: None)
    watcher.remove()
    assert rig.mirror.watchers == []
    reads = len(rig.tree.reads)
    rig.events.put(changed(rig))
    rig.mirror.press_key("back")
    assert len(rig.tree.reads) == reads  # no guard read the screen before the key


def test_the_builtins_deny_a_prompt_and_close_a_crash_dialog() -> None:
    rig = Rig(prompt_screen())
    dismissing(rig, answer="Don\u2019t allow")
    rig.mirror.watch_builtin("deny_permissions")
    assert rig.mirror.find(text="Login").window.id == 12
    crash = login_screen()
    crash["windows"].insert(0, window(50, tree(
        node(300, None, 0, cls="android.widget.FrameLayout", bounds=(63, 900, 1017, 1500)),
        node(301, 300, 1, text="Compose fixture keeps stopping", cls="android.widget.TextView",
             bounds=(123, 960, 957, 1100), res="android:id/alertTitle"),
        node(302, 300, 1, text="Close app", cls="android.widget.Button", bounds=(123, 1300, 957, 1440),
             clickable=True, res="android:id/aerr_close"),
    ), type="system", package="android", title="Application Error: dev.mobileagent.fixture"))
    rig2 = Rig(crash)
    rig2.mirror.watch_builtin("dismiss_crash")
    rig2.input.on_input = lambda call: (setattr(rig2.tree, "screen", login_screen()), rig2.events.put(changed(rig2)))
    assert rig2.mirror.find(text="Login").window.id == 12
    assert rig2.input.calls[0][0] == "tap" and round(rig2.input.calls[0][2]) == 1370


def test_a_timeout_behind_a_system_dialog_names_the_window_in_front_and_the_watchers_that_never_matched() -> None:
    """The prompt took the front and the app's window left the tree: "no element matches" alone sent
    the reader looking for a wrong selector. A watcher written with ' sits beside the device's ’."""
    rig = Rig(login_screen())
    screen = rig.mirror
    screen.watch(name="deny", text="Don't allow").tap()
    screen.snapshot()
    prompt = window(40, tree(node(50, None, 0, cls="android.widget.FrameLayout", bounds=(0, 800, 1080, 1600)),
                             node(51, 50, 1, text="Don’t allow", cls="android.widget.Button",
                                  bounds=(60, 1400, 1020, 1500), clickable=True)),
                    title="Permission", package="com.google.android.permissioncontroller")
    rig.tree.screen = {**login_screen(), "windows": [prompt]}
    rig.events.put(changed(rig))
    with pytest.raises(WaitTimeout) as caught:
        screen.wait_for(text="Sign in", timeout=1)
    message = str(caught.value)
    assert ("the window 'Permission' (com.google.android.permissioncontroller) took the front from "
            "'Compose fixture' (dev.mobileagent.fixture), whose window is no longer on the screen") in message
    assert "watcher 'deny' never matched; nearest: @" in message and '"Don’t allow"' in message
