"""The fixture app's Loading screen: a spinner whose every frame differs while its tree stays still."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.virtual.ui import EmulatorUi, ManualClock, NodesChanged
from pytest_mobile_agent.virtual.ui.fixture import COMPOSE_MS, LAUNCH_MS, PACKAGE, TABS
from pytest_mobile_agent.virtual.ui.node import Window
from pytest_mobile_agent.virtual.ui.spinner import FRAME_MS, SCREEN


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def ui(clock: ManualClock) -> EmulatorUi:
    return EmulatorUi(clock)


def loading(ui: EmulatorUi, clock: ManualClock, **extras: str) -> Window:
    ui.start_app({"tab": SCREEN, **extras})
    clock.advance(LAUNCH_MS + COMPOSE_MS[SCREEN] + 1)
    ui.advance()
    return next(w for w in ui.windows() if w.package == PACKAGE and not w.modal)


def below_status_bar(ui: EmulatorUi) -> bytes:
    image = ui.render(540, 1200)
    return image.crop((0, 80, 540, 1200)).tobytes()


def test_the_spinner_turns_on_every_frame_while_the_tree_stays_still(ui: EmulatorUi, clock: ManualClock) -> None:
    window = loading(ui, clock)
    spinner = window.by_res("spinner")
    assert spinner is not None and spinner.cls == "android.widget.ProgressBar" and spinner.desc == "Loading"
    assert SCREEN not in TABS  # a screen of its own: the tab row, and the Big tab's 573 nodes, are unchanged
    notices: list[object] = []
    ui.add_listener(notices.append)
    tree = window.read()
    frames = []
    for _ in range(5):
        frames.append(below_status_bar(ui))
        clock.advance(FRAME_MS)
        ui.advance()
    assert len(set(frames)) == 5  # every frame differs below the status bar
    assert window.read() is tree  # the same cached dicts: no node changed
    redraws = [n for n in notices if isinstance(n, NodesChanged)]
    assert len(redraws) == 5 and all(n.window == window.id and n.nodes == () and n.kinds == () for n in redraws)
    assert not any(n.sends_change_events for n in redraws)  # no accessibility event for a turning arc


def test_spin_ms_stops_the_spinner_and_shows_loaded(ui: EmulatorUi, clock: ManualClock) -> None:
    window = loading(ui, clock, spin_ms="200")
    clock.advance(200)
    ui.advance()
    assert window.by_res("spinner") is None
    loaded = window.by_res("loaded_text")
    assert loaded is not None and loaded.text == "Loaded"
    clock.advance(FRAME_MS)
    ui.advance()
    still = below_status_bar(ui)
    notices: list[object] = []
    ui.add_listener(notices.append)
    clock.advance(5 * FRAME_MS)
    ui.advance()
    assert below_status_bar(ui) == still and not [n for n in notices if isinstance(n, NodesChanged)]
    assert ui.animations == []


def test_leaving_the_screen_stops_the_spinner(ui: EmulatorUi, clock: ManualClock) -> None:
    window = loading(ui, clock)
    login = window.by_res("tab_login")
    assert login is not None and login.on_click is not None
    login.on_click()
    clock.advance(COMPOSE_MS["Login"] + 2 * FRAME_MS)
    ui.advance()
    notices: list[object] = []
    ui.add_listener(notices.append)
    clock.advance(5 * FRAME_MS)
    ui.advance()
    assert not [n for n in notices if isinstance(n, NodesChanged)] and ui.animations == []
    ui.start_app({"tab": SCREEN})
    clock.advance(COMPOSE_MS[SCREEN] + 1)
    ui.advance()
    assert len(ui.animations) == 1  # back on the Loading screen: one spinner, not two
