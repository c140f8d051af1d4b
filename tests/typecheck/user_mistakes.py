"""Mistakes a user makes that `mypy --strict` must flag, each on the line that carries its
`# E: <error code>` marker (and, after a colon, words its message holds); test_mypy_strict.py
expects exactly these errors and no others."""

from __future__ import annotations

from pytest_mobile_agent import Controller, Criteria, Element, Screen, Session


def test_a_misspelled_criterion(screen: Screen) -> None:
    screen.find(txt="Login")  # E: call-arg: did you mean "text"?
    screen.wait_for(timeout=5, clikable=True)  # E: call-arg: did you mean "clickable"?
    where: Criteria = {"txt": "Login"}  # E: typeddict-unknown-key
    screen.tap(**where)


def test_a_value_of_the_wrong_type(screen: Screen) -> None:
    screen.tap_at("10", 20)  # E: arg-type
    screen.wait_for(timeout="5", text="Login")  # E: arg-type
    screen.find(clickable="False")  # E: arg-type: Argument "clickable"
    screen.find(id=5)  # E: arg-type: Argument "id"
    screen.find(text=None)  # E: arg-type: Argument "text"
    screen.swipe(0, 0, 100, "100")  # E: arg-type


def test_a_word_that_is_not_one_of_its_literals(screen: Screen, element: Element) -> None:
    screen.scroll_until(direction="sideways", text="Item 60")  # E: arg-type
    element.swipe("diagonal")  # E: arg-type
    screen.type_text("ada", method="typing")  # E: arg-type
    screen.screenshot(format="gif")  # E: arg-type


def test_the_element_keyword_and_the_scope(screen: Screen, element: Element) -> None:
    screen.tap(target=element)  # E: call-arg: "target"
    element.find(within=element, text="x")  # E: call-arg
    screen.type_text("ada", text="Login")  # E: misc


def test_what_a_wait_returns_and_a_fixture_is(screen: Screen, controller: Controller | None) -> None:
    count: str = screen.wait_until(lambda view: view.node_count or None)  # E: assignment
    session: Session = controller  # E: assignment
    assert count and session


def test_the_new_calls_take_their_keywords(screen: Screen) -> None:
    screen.tap(text="Login", timeout="soon")  # E: arg-type
    screen.find(xpath=5)  # E: arg-type
    screen.wait_for_toast(txt="Saved")  # E: call-arg
