"""The List tab: a LazyColumn of 100 items, only the visible ones in the tree."""

from __future__ import annotations

from collections.abc import Callable

from pytest_mobile_agent.mirror import Mirror


def test_the_list_starts_at_its_first_item_and_scrolls_to_a_far_one(on_tab: Callable[[str], Mirror]) -> None:
    screen = on_tab("List")
    assert screen.exists(text="Item 1")
    assert not screen.exists(text="Item 60")

    item = screen.find(id="list").scroll_until(direction="down", max_swipes=20, text="Item 60")

    assert item.text == "Item 60"
    assert not screen.exists(text="Item 1")


def test_tapping_another_tab_tears_the_list_down(on_tab: Callable[[str], Mirror]) -> None:
    screen = on_tab("List")
    screen.find(id="tab_login").tap()
    screen.wait_for(id="screen_login", timeout=5)
    screen.wait_gone(id="list", timeout=5)
