"""Selectors at the floor (issue 40, item 2): criteria checked once where a selector is built, the
selector kept per set of criteria, and values written into the compiled loop only as literals."""

from __future__ import annotations

import builtins

import pytest

from pytest_mobile_agent.errors import InvalidSelector
from pytest_mobile_agent.mirror import selectors
from pytest_mobile_agent.mirror.selectors import Selector
from tests.support.mirror_fakes import login_screen, view_of


def test_the_same_criteria_give_the_selector_built_before_without_checking_again(monkeypatch) -> None:
    checked: list[str] = []
    real = selectors._check_type
    monkeypatch.setattr(selectors, "_check_type", lambda name, value: (checked.append(name), real(name, value)))
    first = Selector.of({"text": "Login", "clickable": True, "within": 3})
    assert checked == ["text", "clickable", "within"]
    assert Selector.of({"text": "Login", "clickable": True, "within": 3}) is first
    assert checked == ["text", "clickable", "within"]  # the second query is a look-up
    assert Selector.of({"text": "Login"}) is not first


def test_a_value_equal_to_a_kept_ones_but_of_another_type_is_still_refused() -> None:
    """1 == True and hash(1) == hash(True): the kept selector of clickable=True must not answer for
    clickable=1, which is refused as it always was."""
    Selector.of({"clickable": True})
    with pytest.raises(InvalidSelector, match="clickable= takes True or False, not 1"):
        Selector.of({"clickable": 1})
    Selector.of({"window": 1})
    with pytest.raises(InvalidSelector, match="window= takes a window id"):
        Selector.of({"window": True})


def test_an_unknown_or_invalid_criterion_is_refused_every_time_it_is_asked() -> None:
    for _ in range(2):
        with pytest.raises(InvalidSelector, match="did you mean 'text'"):
            Selector.of({"txt": "Login"})
        with pytest.raises(InvalidSelector, match="not a valid regular expression"):
            Selector.of({"text_matches": "("})


class _Hostile(str):
    def __repr__(self) -> str:
        return "__import__('builtins').__dict__.setdefault('_selector_ran_code', True)"


@pytest.mark.parametrize("text", ["it's \"quoted\"", "back\\slash\nnew line", "nul\x00", "lone \ud800", "Ünïcode ✓"])
def test_any_text_is_matched_as_itself(text: str) -> None:
    screen = login_screen()
    screen["windows"][0]["nodes"][1]["text"] = text
    view = view_of(*screen["windows"])
    for criteria in ({"text": text}, {"text_contains": text[2:]}, {"text": text, "clickable": True}):
        found = Selector.of(criteria).select(view)
        assert [e.node.text for e in found] == [text], criteria
        assert Selector.of(criteria).first(view) is found[0]


def test_a_str_whose_repr_is_code_is_matched_as_its_value_and_runs_nothing() -> None:
    value = _Hostile("Login")
    view = view_of(*login_screen()["windows"])
    found = Selector.of({"text": value, "class_name": _Hostile("TextView")}).select(view)
    assert [e.node.text for e in found] == ["Login"]
    assert not hasattr(builtins, "_selector_ran_code")


def test_a_selector_within_an_element_is_not_kept_so_the_element_and_its_mirror_are_not_held() -> None:
    class Anchor:  # an element: hashable, carrying a ref
        ref = 3

        def __hash__(self) -> int:
            return 3

    anchor = Anchor()
    first = Selector.of({"text": "Login", "within": anchor})
    assert Selector.of({"text": "Login", "within": anchor}) is not first
    assert all(anchor not in (value for _, value in key[0]) for key in selectors._built)
