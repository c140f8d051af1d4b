"""The mirror's public API: selectors, waits with their errors, actions, the dump."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_mobile_agent.errors import InvalidSelector, NoMatch, WaitTimeout
from pytest_mobile_agent.mirror import Selector, key_code
from pytest_mobile_agent.session.backends import ReadReason, Release
from tests.support.mirror_fakes import Rig, list_screen, login_screen, node, tree, window


def keyboard_screen() -> dict:
    screen = login_screen()
    kb = window(31, tree(node(100, None, 0, cls="android.widget.FrameLayout", bounds=(0, 1500, 1080, 2400)),
                         node(101, 100, 1, text="Login", cls="android.widget.Button", bounds=(0, 1500, 108, 1650))),
                type="input_method", title="Gboard", package="com.google.android.inputmethod.latin")
    screen["windows"].insert(0, kb)
    return screen


def test_selectors_match_text_exactly_by_part_or_by_pattern() -> None:
    screen = Rig(login_screen(welcome=True)).mirror
    assert screen.find(text="Login").resource_id == "dev.mobileagent.fixture:id/tab_login"
    assert screen.find_all(text="Welcome") == []
    assert screen.find(text_contains="Welcome").text == "Welcome, ada"
    assert screen.find(text_matches=r"^B.g$").text == "Big"
    assert screen.find(text_matches=re.compile(r"ada$")).text == "Welcome, ada"
    assert [e.text for e in screen.find_all(clickable=True, class_name="TextView")] == ["Login", "Big"]


def test_selectors_match_ids_descriptions_classes_and_states() -> None:
    screen = Rig(login_screen()).mirror
    assert screen.find(id="tab_login").text == "Login"  # the part after :id/
    assert screen.find(id="dev.mobileagent.fixture:id/tab_login").text == "Login"
    assert screen.find(id="tab_big").text == "Big"  # a bare resource name matches itself
    assert screen.find(desc="Sign in").class_name == "android.widget.Button"
    assert screen.find(desc_contains="Sign").clickable
    assert screen.find(class_name="android.widget.EditText").hint == "User name"
    assert screen.find(class_name="EditText", editable=True, focused=False).editable
    assert not screen.exists(text="Login", clickable=False)
    assert screen.exists(enabled=True, visible=True)


def test_selectors_scope_to_a_window_or_an_element() -> None:
    screen = Rig(keyboard_screen()).mirror
    assert screen.find(text="Login").window.type == "input_method"  # the top-most window first
    assert screen.find(text="Login", window="application").window.id == 12
    assert screen.find(text="Login", window=12).class_name == "android.widget.TextView"
    assert screen.find(text="Login", window="dev.mobileagent.fixture").window.id == 12
    root = screen.find(class_name="FrameLayout")
    assert root.find(text="Login").class_name == "android.widget.Button"
    assert [c.text for c in root.children] == ["Login"] and root.children[0].parent == root
    app_root = screen.find(class_name="android.view.View", window=12)
    assert len(app_root.find_all(clickable=True)) == 4


def test_a_selector_refuses_what_it_cannot_mean() -> None:
    with pytest.raises(InvalidSelector, match="at least one criterion"):
        Selector()
    with pytest.raises(InvalidSelector, match="regular expression"):
        Selector(text_matches="(")
    screen = Rig(login_screen()).mirror
    with pytest.raises(InvalidSelector, match="unknown selector criterion 'txt' \\(did you mean 'text'\\?\\)"):
        screen.find(txt="Login")
    with pytest.raises(InvalidSelector, match="not both"):
        screen.tap(screen.find(text="Login"), text="Big")


@pytest.mark.parametrize("value", ["False", "no", "yes", "True", 1, 0, "off"])
def test_a_state_takes_true_or_false_and_nothing_truthy(value: object) -> None:
    """`clickable="False"`, "no" and "yes" all matched clickable nodes (issue 28, item 7)."""
    screen = Rig(login_screen()).mirror
    with pytest.raises(InvalidSelector, match=f"clickable= takes True or False, not {re.escape(repr(value))}"):
        screen.find(clickable=value)
    assert screen.find_all(clickable=False) and screen.find_all(clickable=True)


@pytest.mark.parametrize(("criteria", "named"), [
    ({"id": 5}, "id= takes a str, not 5 (a int)"),
    ({"text": b"Login"}, "text= takes a str, not b'Login' (a bytes)"),
    ({"text_contains": ["Log"]}, "text_contains= takes a str"),
    ({"text_matches": 3}, "text_matches= takes a str or a compiled pattern"),
    ({"desc": 1.5}, "desc= takes a str"),
    ({"class_name": True}, "class_name= takes a str"),
    ({"package": object}, "package= takes a str"),
    ({"enabled": "yes"}, "enabled= takes True or False"),
    ({"window": True}, "window= takes a window id (int) or a str"),
    ({"window": 1.0}, "window= takes a window id (int) or a str"),
    ({"within": "Login"}, "within= takes an element or its ref (int)"),
])
def test_every_criterion_checks_its_type_and_names_itself(criteria: dict, named: str) -> None:
    """`find(id=5)` raised a bare TypeError from inside the compiled matcher."""
    screen = Rig(login_screen()).mirror
    for query in (screen.find, screen.find_all, screen.exists, screen.wait_for):
        with pytest.raises(InvalidSelector, match=re.escape(named)):
            query(**criteria)


def test_an_unknown_criterion_suggests_the_closest_known_name() -> None:
    screen = Rig(login_screen()).mirror
    with pytest.raises(InvalidSelector) as unknown:
        screen.find(resource_idd="x", clikable=True, zzz=1)
    message = str(unknown.value)
    assert message.startswith("unknown selector criteria 'clikable' (did you mean 'clickable'?), 'resource_idd', "
                              "'zzz'; known: action, checked, class_name, clickable, desc, ")


def test_find_shows_the_nearest_candidates_and_the_tree() -> None:
    screen = Rig(login_screen()).mirror
    with pytest.raises(NoMatch) as info:
        screen.find(text="Logn")
    message = str(info.value)
    assert message.startswith("no element matches text='Logn'")
    assert info.value.candidates[0].startswith('@2 TextView "Login" id=tab_login clickable')
    assert "current tree:\nwindow 12 application" in message


def test_wait_for_times_out_with_the_nearest_candidates_and_the_tree() -> None:
    rig = Rig(login_screen(), can_probe=False)
    with pytest.raises(WaitTimeout) as info:
        rig.mirror.wait_for(text="Welcome", timeout=3)
    error = info.value
    assert error.is_timeout()
    assert str(error).startswith("waiting for text='Welcome' timed out after its deadline of 3 s")
    assert "nearest candidates:" in str(error) and '@1 View [0,0][1080,2400]' in error.tree
    assert rig.reasons == [ReadReason.ATTACH, ReadReason.POLL, ReadReason.POLL, ReadReason.POLL]


def test_wait_gone_returns_once_nothing_matches() -> None:
    rig = Rig(login_screen(welcome=True), can_probe=False)
    rig.tree.on_read = lambda n: setattr(rig.tree, "screen", login_screen()) if n == 2 else None
    rig.mirror.wait_gone(text_contains="Welcome", timeout=5)
    assert not rig.mirror.exists(text_contains="Welcome")
    with pytest.raises(WaitTimeout, match="to go"):
        rig.mirror.wait_gone(text="Login", timeout=1)
    login = rig.mirror.find(text="Login")
    rig.tree.on_read = lambda n: setattr(rig.tree, "screen", {**login_screen(), "windows": []})
    login.wait_gone(timeout=3)
    assert not login.exists
    assert rig.mirror.wait_until(lambda view: view.node_count == 0, timeout=1) is True


def test_a_no_match_or_a_stale_element_inside_a_wait_until_condition_means_not_yet() -> None:
    """A condition written with the screen's own queries raises NoMatch while the element is not there
    (and StaleElement for one that went): the wait goes on, as a falsy result would, until it holds."""
    rig = Rig(login_screen(), can_probe=False)
    rig.tree.on_read = lambda n: setattr(rig.tree, "screen", login_screen(welcome=True)) if n >= 3 else None
    screen = rig.mirror
    found = screen.wait_until(lambda view: screen.find(text_contains="Welcome"), timeout=5, what="the welcome")
    assert found.text == "Welcome, ada"
    reads = len(rig.tree.reads)
    rig.tree.on_read = lambda n: setattr(rig.tree, "screen", login_screen(welcome=n >= reads + 3))
    screen.refresh()
    assert not found.exists  # gone: its text is a StaleElement now, and comes back with the node
    assert screen.wait_until(lambda view: found.text, timeout=5) == "Welcome, ada"
    rig.tree.on_read = None
    with pytest.raises(WaitTimeout) as caught:
        screen.wait_until(lambda view: screen.find(text="Welcom"), timeout=1, what="the welcome")
    assert "waiting for the welcome (the condition's last look: no element matches text='Welcom')" in str(caught.value)


def test_a_tap_goes_to_the_centre_in_pixels_and_the_next_read_takes_the_action_bound() -> None:
    rig = Rig(login_screen())
    ack = rig.mirror.find(text="Login").tap()
    assert ack.accepted
    assert rig.input.calls == [("tap", 180, 273)]
    rig.mirror.snapshot()
    assert rig.reasons == [ReadReason.ATTACH, ReadReason.ACTION]
    rig.mirror.tap(desc="Sign in")
    rig.mirror.long_press(text="Big", hold=1.0)
    rig.mirror.tap_at(540, 1200)
    assert rig.input.calls[1][0] == "tap" and rig.input.calls[2] == ("long_press", 540, 273, 1.0)
    assert rig.input.calls[3] == ("tap", 540, 1200)
    with pytest.raises(TypeError):
        rig.mirror.tap()


def test_an_action_takes_the_element_by_the_keyword_readme_names() -> None:
    """README documents `tap(element=...)`, `long_press(element=...)`, `type_text(..., element=...)`
    (issue 28, item 2): the keyword was `target`, and `element=` was an unknown criterion."""
    rig = Rig(login_screen())
    login = rig.mirror.find(text="Login")
    rig.mirror.tap(element=login)
    rig.mirror.long_press(element=login, hold=0.7)
    rig.mirror.type_text("ada", element=rig.mirror.find(text="Big"))
    assert [c[0] for c in rig.input.calls] == ["tap", "long_press", "tap", "text"]
    assert rig.input.calls[0] == ("tap", 180, 273)
    with pytest.raises(InvalidSelector, match="not both"):
        rig.mirror.tap(element=login, text="Big")


def test_type_text_taps_an_unfocused_field_first_and_names_its_node() -> None:
    rig = Rig(login_screen())
    def focus(call: tuple) -> None:
        if call[0] == "tap":
            screen = login_screen(first=20)
            screen["windows"][0]["nodes"][3]["focused"] = True
            rig.tree.screen = screen
    rig.input.on_input = focus
    ack = rig.mirror.type_text("ada", id="user")
    assert ack.method == "direct"
    assert [c[0] for c in rig.input.calls] == ["tap", "text"]
    assert rig.input.calls[1] == ("text", "ada", 23, "auto")  # the field's id after the re-read
    rig.mirror.type_text("again", method="keys")  # the focused node, named by the session
    assert rig.input.calls[-1] == ("text", "again", None, "keys")
    rig.mirror.find(id="user").type_text("x")  # focused already: no tap
    assert [c[0] for c in rig.input.calls] == ["tap", "text", "text", "text"]


def test_keys_go_by_code_or_name() -> None:
    rig = Rig(login_screen())
    rig.mirror.press_key("back")
    rig.mirror.press_key("KEYCODE_ENTER", meta=1)
    rig.mirror.press_key(187)
    assert rig.input.calls == [("key", 4, 0), ("key", 66, 1), ("key", 187, 0)]
    with pytest.raises(ValueError, match="unknown key"):
        key_code("hyperspace")
    with pytest.raises(TypeError):
        key_code(True)


def test_a_criterion_given_as_none_is_an_error_naming_what_to_write_instead() -> None:
    """`find(text=None)` used to match every node (None meant "not given"), an element with text included."""
    screen = Rig(login_screen()).mirror
    with pytest.raises(InvalidSelector, match=r"text=None is not a criterion .*leave text= out .*xpath="):
        screen.find(text=None)  # type: ignore[arg-type]
    with pytest.raises(InvalidSelector, match="id=None is not a criterion"):
        screen.tap(id=None, timeout=0)  # type: ignore[arg-type]


def test_paste_copy_and_cut_are_named_and_a_misspelt_key_gets_a_did_you_mean() -> None:
    """KEYCODE_CUT 277, KEYCODE_COPY 278, KEYCODE_PASTE 279 (KeyEvent.java, API 24+)."""
    assert [key_code(name) for name in ("paste", "KEYCODE_COPY", "cut")] == [279, 278, 277]
    with pytest.raises(InvalidSelector, match=r"unknown key 'bak' \(did you mean 'back'\?\)"):
        key_code("bak")


def test_swipes_go_out_in_pixels_with_their_release() -> None:
    rig = Rig(login_screen())
    rig.mirror.swipe(540, 1800, 540, 600, duration=0.4, resting=True)
    assert rig.input.calls == [("swipe", 540, 1800,
                                540, 600, 0.4, Release.RESTING)]
    rig.mirror.find(desc="Sign in").swipe("left", distance=0.5)
    _, x1, y1, x2, y2, _, release = rig.input.calls[1]
    assert (x1, y1, x2, y2) == pytest.approx((780, 770, 300, 770))
    assert release is Release.MOVING
    with pytest.raises(ValueError, match="direction"):
        rig.mirror.find(desc="Sign in").swipe("sideways")


def test_scroll_until_swipes_the_scrollable_container_until_the_element_shows() -> None:
    rig = Rig(list_screen(0))
    position = [0]

    def scrolled(call: tuple) -> None:
        if call[0] == "swipe":
            position[0] += 8
            rig.tree.screen = list_screen(position[0])

    rig.input.on_input = scrolled
    item = rig.mirror.scroll_until(text="Item 20")
    assert item.text == "Item 20" and position[0] == 16
    swipe = rig.input.calls[0]
    assert swipe[2] > swipe[4] and swipe[6] is Release.RESTING  # the finger goes up, and rests
    with pytest.raises(NoMatch, match="after scrolling down"):
        rig.mirror.scroll_until(text="Item 99")
    assert position[0] == 40  # stopped where the list said it could not scroll further


def test_the_dump_reads_as_the_tree() -> None:
    screen = Rig(keyboard_screen()).mirror
    assert screen.dump() == "\n".join([
        'window 31 input_method "Gboard" com.google.android.inputmethod.latin focused, sends no change events',
        "  @1 FrameLayout [0,1500][1080,2400]",
        '    @2 Button "Login" [0,1500][108,1650]',
        'window 12 application "Compose fixture" dev.mobileagent.fixture focused, sends no change events',
        "  @3 View [0,0][1080,2400]",
        '    @4 TextView "Login" id=tab_login clickable [0,210][360,336]',
        '    @5 TextView "Big" id=tab_big clickable [360,210][720,336]',
        '    @6 EditText id=user hint="User name" clickable editable [60,500][1020,640]',
        '    @7 Button desc="Sign in" clickable [60,700][1020,840]',
    ])
    assert screen.find(class_name="FrameLayout").dump().splitlines()[1:] == [
        "  @1 FrameLayout [0,1500][1080,2400]", '    @2 Button "Login" [0,1500][108,1650]']
    assert repr(screen.find(text="Big")) == '<Element @5 TextView "Big" id=tab_big clickable [360,210][720,336]>'


def test_a_screenshot_comes_from_the_agent_and_can_be_saved(tmp_path: Path) -> None:
    screen = Rig(login_screen()).mirror
    shot = screen.screenshot(tmp_path / "shot.png")
    assert shot.data == b"\x89PNG-shot" and (tmp_path / "shot.png").read_bytes() == shot.data
