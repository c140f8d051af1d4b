"""The virtual UI model's nodes in tests: found by resource id, tapped at their centre, and the
fixture app composed on a tab by a manual clock."""

from __future__ import annotations

from pytest_mobile_agent.virtual.ui import EmulatorUi, ManualClock
from pytest_mobile_agent.virtual.ui.fixture import COMPOSE_MS, LAUNCH_MS
from pytest_mobile_agent.virtual.ui.model import UiModel
from pytest_mobile_agent.virtual.ui.node import Node, Window


def by_res(ui: UiModel | Window, res: str) -> Node:
    """The node with resource id `res` in any window of `ui` (or in that one window)."""
    windows = [ui] if isinstance(ui, Window) else ui.windows()
    node = next((n for w in windows if (n := w.by_res(res)) is not None), None)
    assert node is not None, f"no node {res!r} on the screen"
    return node


def tap(ui: UiModel, node: Node) -> None:
    """A finger down and up at the node's centre."""
    left, top, right, bottom = node.bounds
    ui.touch((left + right) // 2, (top + bottom) // 2, True)
    ui.touch((left + right) // 2, (top + bottom) // 2, False)


def composed_on(tab: str) -> EmulatorUi:
    """A UI model on a manual clock with the fixture app started on `tab` and its screen composed."""
    clock = ManualClock()
    ui = EmulatorUi(clock)
    ui.start_app({"tab": tab})
    clock.advance(LAUNCH_MS + COMPOSE_MS[tab] + 1)
    ui.advance()
    return ui
