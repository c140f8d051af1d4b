"""XPath over the replica (issue 25, item 4): uiautomator dump's names, every query, wait and
action, one XML view per replica generation, and an invalid expression named by its position."""

from __future__ import annotations

import copy

import pytest
from lxml import etree

from pytest_mobile_agent.errors import InvalidSelector, NoMatch, WaitTimeout
from pytest_mobile_agent.mirror.replica import Replica, View
from pytest_mobile_agent.mirror.xpath import compile_xpath, tag_of, xml_view
from pytest_mobile_agent.session.backends import ProtocolEvent, ReadReason
from pytest_mobile_agent.session.tree import parse_snapshot
from tests.support.mirror_fakes import Rig, login_screen, node, tree, window


def keyboard_screen() -> dict:
    screen = login_screen()
    kb = window(31, tree(node(100, None, 0, cls="android.widget.FrameLayout", bounds=(0, 1500, 1080, 2400)),
                         node(101, 100, 1, text="Login", cls="android.widget.Button", bounds=(0, 1500, 108, 1650),
                              clickable=True)),
                type="input_method", title="Gboard", package="com.google.android.inputmethod.latin")
    screen["windows"].insert(0, kb)
    return screen


def test_expressions_as_appium_inspector_and_uiautomator2_write_them_find_the_nodes() -> None:
    screen = Rig(login_screen()).mirror
    assert screen.find(xpath="//android.widget.Button[@content-desc='Sign in']").desc == "Sign in"
    assert screen.find(xpath='//*[@resource-id="dev.mobileagent.fixture:id/tab_login"]').text == "Login"
    assert screen.find(xpath="//android.widget.TextView[@text='Big' and @clickable='true']").text == "Big"
    assert screen.find(xpath="(//android.widget.TextView)[2]").text == "Big"
    assert screen.find(xpath="//*[contains(@text, 'Bi')]").text == "Big"
    assert screen.find(xpath="//*[@class='android.widget.EditText'][@hint='User name']").editable
    assert screen.find(xpath="//*[@bounds='[60,700][1020,840]']").desc == "Sign in"
    assert screen.find(xpath="/hierarchy/android.view.View/*[@index='2']").resource_id == "user"
    assert [e.text for e in screen.find_all(xpath="//*[@clickable='true'][@text!='']")] == ["Login", "Big"]
    assert screen.exists(xpath="//android.widget.EditText") and not screen.exists(xpath="//android.widget.Switch")


def test_the_xml_view_writes_uiautomator_dumps_attributes() -> None:
    rig = Rig(login_screen())
    root = xml_view(rig.mirror.snapshot()).root
    assert root.tag == "hierarchy" and root.get("rotation") == "0"
    field = root.find(".//android.widget.EditText")
    assert field is not None
    assert dict(field.attrib) == {
        "index": "2", "text": "", "resource-id": "user", "class": "android.widget.EditText",
        "package": "dev.mobileagent.fixture", "content-desc": "", "checkable": "false", "checked": "false",
        "clickable": "true", "enabled": "true", "focusable": "true", "focused": "false", "scrollable": "false",
        "long-clickable": "false", "password": "false", "selected": "false", "bounds": "[60,500][1020,640]",
        "displayed": "true", "hint": "User name",
    }


def test_the_top_most_window_comes_first_as_find_has_it_and_other_criteria_filter() -> None:
    screen = Rig(keyboard_screen()).mirror
    assert screen.find(xpath="//*[@text='Login']").window.type == "input_method"
    assert screen.find(xpath="//*[@text='Login']", window="application").window.id == 12
    assert screen.find(xpath="//*[@text='Login']", class_name="TextView").window.id == 12


def test_a_relative_expression_within_an_element_starts_at_it() -> None:
    screen = Rig(keyboard_screen()).mirror
    keyboard = screen.find(class_name="FrameLayout")
    assert keyboard.find(xpath=".//*[@text='Login']").class_name == "android.widget.Button"
    assert keyboard.find_all(xpath="//*[@text='Big']") == []  # absolute, but kept within the element
    app_root = screen.find(class_name="android.view.View", window=12)
    assert [e.text for e in app_root.find_all(xpath="./*[@clickable='true']")] == ["Login", "Big", None, None]


def test_waits_and_actions_take_xpath() -> None:
    rig = Rig(login_screen())
    rig.events.at(rig.clock.now + 0.5, ProtocolEvent(seq=1, name="window_changed", data={"window": 12},
                                                     received_at=rig.clock.now + 0.5))
    rig.tree.screen = login_screen(welcome=True)
    assert rig.mirror.wait_for(xpath="//*[starts-with(@text, 'Welcome')]", timeout=2).text == "Welcome, ada"
    rig.mirror.tap(xpath="//android.widget.Button")
    assert rig.input.calls[-1][0] == "tap"
    rig.events.put(ProtocolEvent(seq=2, name="window_changed", data={"window": 12}, received_at=rig.clock.now))
    rig.tree.screen = login_screen()
    rig.mirror.wait_gone(xpath="//*[starts-with(@text, 'Welcome')]", timeout=2)
    with pytest.raises(WaitTimeout, match="actionable"):
        rig.mirror.tap(xpath="//android.widget.Switch", timeout=0.2)


def test_a_failed_query_names_the_expression_and_the_nodes_like_its_literals() -> None:
    screen = Rig(login_screen()).mirror
    with pytest.raises(NoMatch) as caught:
        screen.find(xpath="//android.widget.Button[@text='Logn']")
    assert "no element matches xpath=\"//android.widget.Button[@text='Logn']\"" in str(caught.value)
    assert caught.value.candidates[0].startswith('@2 TextView "Login"')


@pytest.mark.parametrize(("expression", "position"), [("//a[", 4), ("//*[@text='x']]", 14), ("//*[foo(", 8)])
def test_an_invalid_expression_is_invalid_selector_naming_the_position(expression: str, position: int) -> None:
    screen = Rig(login_screen()).mirror
    with pytest.raises(InvalidSelector, match=f"xpath= is not a valid XPath expression: .* at position {position}:"):
        screen.find(xpath=expression)


@pytest.mark.parametrize(("expression", "why"), [
    ("count(//*)", "must select elements"), ("//*/@text", "must select elements"),
    ("//*[nosuch(@text)]", "cannot be evaluated"), ("", "takes an XPath expression"),
])
def test_an_expression_that_selects_no_elements_or_cannot_run_is_invalid_selector(expression: str, why: str) -> None:
    with pytest.raises(InvalidSelector, match=why):
        Rig(login_screen()).mirror.find(xpath=expression)


def test_a_value_not_a_str_names_the_criterion() -> None:
    with pytest.raises(InvalidSelector, match="xpath= takes an XPath expression"):
        Rig(login_screen()).mirror.find(xpath=5)  # type: ignore[arg-type]


def test_the_xml_view_is_built_once_per_replica_generation() -> None:
    rig = Rig(login_screen())
    first = rig.mirror.snapshot()
    assert xml_view(first) is xml_view(first)
    rig.mirror.find(xpath="//*")
    rig.mirror.find_all(xpath="//android.widget.Button")
    assert xml_view(rig.mirror.snapshot()) is xml_view(first)  # no read came between: the same generation
    rig.events.put(ProtocolEvent(seq=1, name="window_changed", data={"window": 12}, received_at=rig.clock.now))
    rig.tree.screen = login_screen(welcome=True)
    second = rig.mirror.snapshot()
    assert second.generation > first.generation and xml_view(second) is not xml_view(first)
    assert rig.mirror.find(xpath="//*[@text='Welcome, ada']").text == "Welcome, ada"


def test_text_that_xml_cannot_hold_is_written_as_a_question_mark_and_class_names_become_element_names() -> None:
    screen = login_screen()
    screen["windows"][0]["nodes"][1]["text"] = "Lo\x00g\x1bin"
    rig = Rig(screen)
    assert rig.mirror.find(xpath="//*[@text='Lo?g?in']").text == "Lo\x00g\x1bin"
    assert tag_of("com.example.Outer$Inner") == "com.example.Outer_Inner" and tag_of("1x") == "_1x"
    assert tag_of("") == "node"
    etree.XPath("//" + tag_of("a b$c:d"))  # a name XPath reads


@pytest.mark.parametrize("expression", ["\x00", "//*[@text='\x01']", "//a\ud800", "//" + "a/" * 5000 + "b",
                                        "(" * 3000 + "1" + ")" * 3000, "string(/)", "//*[$x]"])
def test_any_expression_that_cannot_select_is_invalid_selector_and_nothing_else(expression: str) -> None:
    with pytest.raises(InvalidSelector, match="xpath="):
        Rig(login_screen()).mirror.find_all(xpath=expression)


def _applied(replica: Replica, screen: dict) -> View:
    replica.apply(parse_snapshot(screen, scale=2.625, reason=ReadReason.POLL, read_at=0.0))
    assert replica.view is not None
    return replica.view


def _renamed(screen: dict, shift: int) -> dict:
    """The same screen read again after an eviction: every node id new."""
    out = copy.deepcopy(screen)
    for w in out["windows"]:
        for n in w["nodes"]:
            n["id"] += shift
            n["parent"] = None if n["parent"] is None else n["parent"] + shift
            n["children"] = [c + shift for c in n["children"]]
    return out


def test_a_window_unchanged_since_the_last_generation_is_not_written_or_parsed_again() -> None:
    """Issue 40 item 3: after a change to one window, the next view takes the elements parsed for
    the others (the same elements, moved), and stands each for the new generation's entry."""
    screen = keyboard_screen()
    replica = Replica()
    first = xml_view(_applied(replica, screen))
    login_before = first.elements[first.view.entries[0].ref]  # the keyboard's root, then the app's nodes
    app = [e for e in first.view.entries if e.window.id == 12]
    app_elements = [first.elements[e.ref] for e in app]
    changed = copy.deepcopy(screen)
    changed["windows"][0]["nodes"][1]["text"] = "Go"  # the keyboard's key, the app's window as it was
    second = xml_view(_applied(replica, changed))
    assert [second.elements[e.ref] for e in second.view.entries if e.window.id == 12] == app_elements
    assert all(a is b for a, b in zip(app_elements, (second.elements[e.ref] for e in app), strict=True))
    assert second.elements[second.view.entries[0].ref] is not login_before  # the keyboard's, parsed anew
    assert [e.node.text for e in second.select(compile_xpath("//*[@text='Go']"), "")] == ["Go"]
    # the app's window read again under new ids: the same elements, standing for the new nodes
    third = xml_view(_applied(replica, _renamed(changed, 1000)))
    found = third.select(compile_xpath("//android.widget.EditText[@hint='User name']"), "")
    assert [e.node.id for e in found] == [next(n["id"] for n in changed["windows"][1]["nodes"]
                                               if n.get("hint") == "User name") + 1000]
    assert third.elements[found[0].ref] in app_elements


def test_an_older_view_queried_after_a_newer_one_took_its_elements_is_built_again_and_answers_right() -> None:
    screen = keyboard_screen()
    replica = Replica()
    old = _applied(replica, screen)
    xml_view(old)
    new = _applied(replica, _renamed(screen, 1000))
    xml_view(new)  # takes the elements the old view's document held
    for view, shift in ((old, 0), (new, 1000), (old, 0)):
        found = xml_view(view).select(compile_xpath("//*[@text='Login']"), "")
        assert [e.node.id for e in found] == [101 + shift, 2 + shift] and all(e in view.entries for e in found)
