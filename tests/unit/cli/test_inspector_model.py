"""The recorder's test source and the page's hit test, on views made for them (no browser)."""

from __future__ import annotations

import ast

import pytest

from pytest_mobile_agent.cli.inspector.page import element_at, element_details
from pytest_mobile_agent.cli.inspector.recorder import Recording
from pytest_mobile_agent.mirror.unique import Locator
from tests.support.mirror_fakes import node, tree, view_of, window


def test_a_recording_is_a_test_function_with_one_line_per_step() -> None:
    recording = Recording.of_fixture("Login")
    recording.tap(Locator((("id", "username"),)))
    recording.type_text(Locator((("id", "username"),)), 'say "hi"')
    recording.press_key("back")
    recording.swipe(540, 1800, 540, 600)
    recording.tap(Locator((("text", "OK"),), within=Locator((("id", "second"),))))
    recording.assert_text(Locator((("id", "alert_message"),)), "Welcome, ada")
    source = recording.source()
    function = ast.parse(source).body[-1]
    assert isinstance(function, ast.FunctionDef) and function.name == "test_recorded"
    assert [a.arg for a in function.args.args] == ["compose_fixture", "screen"]
    assert source.splitlines()[4:] == [
        '    compose_fixture(tab="Login")',
        '    screen.wait_for(id="username").tap()',
        """    screen.wait_for(id="username").type_text('say "hi"')""",
        '    screen.press_key("back")',
        "    screen.swipe(540, 1800, 540, 600, resting=True)",
        "    screen.settle()",
        "    screen.settle()",
        '    screen.find(text="OK", within=screen.find(id="second")).tap()',
        '    assert screen.wait_for(id="alert_message").text == "Welcome, ada"',
    ]


def test_a_recording_of_the_app_under_test_starts_it_with_the_app_fixture() -> None:
    source = Recording.of_app().source("test_checkout")
    assert "def test_checkout(app, screen):\n    app.start()\n" in source


@pytest.mark.parametrize("name", ["", "1st", "test-x", "test_x; import os", "x\n"])
def test_a_recordings_name_must_be_an_identifier(name: str) -> None:
    with pytest.raises(ValueError, match="identifier"):
        Recording.of_app().source(name)


def test_a_click_lands_on_the_smallest_node_of_the_top_most_window_there() -> None:
    app = window(7, tree(node(1, None, 0), node(2, 1, 1, text="Field", bounds=(0, 1500, 1080, 1700)),
                         node(3, 2, 2, text="Inner", bounds=(100, 1550, 300, 1650))))
    keyboard = window(9, tree(node(11, None, 0, bounds=(0, 1600, 1080, 2400)),
                              node(12, 11, 1, text="q", bounds=(0, 1600, 108, 1750)),
                              node(13, 11, 1, text="hidden", bounds=(0, 1600, 108, 1750), visible=False)),
                      type="input_method")
    view = view_of(keyboard, app)
    assert element_at(view, 50, 1620).node.text == "q"  # type: ignore[union-attr]
    assert element_at(view, 150, 1560).node.text == "Inner"  # type: ignore[union-attr]
    assert element_at(view, 900, 1520).node.text == "Field"  # type: ignore[union-attr]
    assert element_at(view, 5000, 5000) is None


def test_an_elements_details_carry_the_line_that_finds_it_and_say_it_was_tried() -> None:
    view = view_of(window(7, tree(node(1, None, 0), node(2, 1, 1, text="Login", res="pkg:id/login",
                                                         bounds=(0, 0, 10, 10)))))
    details = element_details(view, next(e for e in view.entries if e.node.text == "Login"))
    assert details["python"] == 'screen.find(id="login")'
    assert details["finds_it"] is True
    assert details["attributes"]["resource_id"] == "pkg:id/login"
