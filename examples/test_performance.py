"""The app measured while it is tested: a budget the smooth List keeps, and the Feed's dropped frames."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_mobile_agent import Perf
from pytest_mobile_agent.mirror import Mirror


@pytest.mark.perf(jank_percent=25, pss_mb=400)
def test_the_list_scrolls_within_its_budget(on_tab: Callable[[str], Mirror]) -> None:
    screen = on_tab("List")
    assert screen.scroll_until(text="Item 60").text == "Item 60"


def test_the_feed_drops_frames_when_scrolled(on_tab: Callable[[str], Mirror], perf: Perf) -> None:
    screen = on_tab("Feed")
    perf.reset()
    screen.swipe(540, 1900, 540, 700)
    frames = perf.frames()
    assert frames.total > 0 and frames.janky_percent > 25, frames.metrics()
