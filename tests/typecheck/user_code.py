"""An app's test suite as its authors write it against the public API, annotated: `mypy --strict`
passes on it (test_mypy_strict.py). It is type-checked, not collected: its functions take the
plugin's fixtures, as a user's tests do."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mobile_agent import (
    Ack,
    AdbServer,
    App,
    Attached,
    Controller,
    Criteria,
    Device,
    Direction,
    Element,
    FrameStats,
    ImageFormat,
    Launch,
    Locator,
    Memory,
    MobileAgentError,
    Node,
    NoMatch,
    Perf,
    Screen,
    Screenshot,
    Session,
    StaleElement,
    TextMethod,
    Toast,
    View,
    WaitTimeout,
    Watcher,
    WatcherFailed,
    Window,
)
from pytest_mobile_agent.plugin.gates import HostGate  # the host_gate fixture's type


@pytest.fixture
def signed_in(app: App, screen: Screen) -> Screen:
    """The app on its login screen, a user signed in (README, "Testing your app")."""
    app.start(extras={"tab": "Login", "retries": 2, "fast": True})
    screen.find(id="username").type_text("ada")
    screen.type_text("correct horse", id="password", method="keys")
    ack: Ack = screen.tap(text="Login", class_name="android.widget.Button")
    assert ack.accepted and ack.path in ("agent", "controller")
    screen.wait_for(id="alert_ok", timeout=10).tap()
    return screen


def test_the_status_names_the_user(signed_in: Screen) -> None:
    status: Element = signed_in.wait_for(id="login_status", timeout=5)
    text: str | None = status.text
    assert text == "Signed in as ada"


def test_criteria_kept_in_a_value(screen: Screen) -> None:
    cells: Criteria = {"text_matches": re.compile(r"Cell \d+"), "clickable": True, "window": "application"}
    found: list[Element] = screen.find_all(**cells)
    assert screen.exists(**cells) == bool(found)
    first = screen.find(within=found[0], class_name="TextView") if found else None
    assert first is None or first.ref >= 0


def test_waits_return_what_their_condition_gave(screen: Screen) -> None:
    nodes: int = screen.wait_until(lambda view: view.node_count or None, timeout=2.0, what="a read")
    window: Window = screen.wait_until(lambda view: next(iter(view.windows), None))
    seen: bool = screen.wait_until(lambda view: view.node_count > 0)
    view: View = screen.snapshot()
    assert nodes == view.node_count and window.id >= 0 and seen
    screen.wait_gone(text="Loading", timeout=3)
    assert screen.settle(timeout=3.0, quiet=0.5) in (True, False)


def test_elements_read_and_act(screen: Screen, tmp_path: Path) -> None:
    lst = screen.find(id="list")
    item: Element = lst.scroll_until("down", max_swipes=20, text="Item 60")
    node: Node = item.node
    left, top, right, bottom = item.bounds
    x, y = item.center
    assert node.clickable and right > left and bottom > top and x > 0 and y > 0
    for direction in ("up", "down"):
        way: Direction = direction
        lst.swipe(way, distance=0.5)
    item.long_press(hold=1.0)
    parent = item.parent
    children: list[Element] = lst.children
    assert parent is None or item not in children
    where: Locator = screen.locator(item)
    line: str = where.python()
    assert line.startswith("screen.")
    lst.find(text="Item 61").tap()
    lst.wait_for(timeout=2, text_contains="Item")
    item.type_text("x", method="clipboard")
    print(lst.dump(), screen.dump(within=lst, max_lines=40))


def test_actions_take_what_they_document(screen: Screen, tmp_path: Path) -> None:
    method: TextMethod = "direct"
    kind: ImageFormat = "jpeg"
    field = screen.find(id="username")
    screen.type_text("ada", field, method=method)
    screen.type_text("ada", element=field)
    screen.tap(element=field)
    screen.long_press(field, hold=0.8)
    screen.tap_at(540, 1200)
    screen.swipe(540, 1800, 540, 600, duration=0.3, resting=True)
    screen.swipe_within(screen.find(id="list"), "up", distance=0.7)
    screen.press_key("back")
    screen.press_key(66, meta=1)
    shot: Screenshot = screen.screenshot(tmp_path / "screen.jpg", format=kind)
    assert (shot.width, shot.height) > (0, 0) and shot.format == "jpeg"


def test_the_keyboard_reads_hides_and_submits(screen: Screen) -> None:
    screen.type_text("espresso", id="search_query", submit=True)
    if screen.keyboard.shown and screen.keyboard.bounds is not None:
        top: int = screen.keyboard.bounds[1]
        assert top > 0
    pressed = screen.keyboard.press_action()
    declared: str | None = pressed.action
    assert pressed.ack.accepted and declared in (None, "search") and pressed.via in ("ime_enter", "enter_key")
    hidden: bool = screen.keyboard.hide(timeout=2.0)
    assert hidden in (True, False)


def test_errors_are_caught_by_their_names(screen: Screen) -> None:
    with pytest.raises(NoMatch) as missing:
        screen.find(text="Nothing like it")
    assert missing.value.candidates == [] or "likeness" in missing.value.candidates[0]
    with pytest.raises(WaitTimeout):
        screen.wait_for(timeout=0.5, desc="never")
    gone = screen.find(id="tab_login")
    try:
        gone.tap()
    except StaleElement:
        pass
    except MobileAgentError as other:
        raise AssertionError(other.advice) from other


def test_the_other_fixtures(session: Session, controller: Controller | None, agent: Attached,
                            device: Device, adb_server: AdbServer, host_gate: HostGate,
                            compose_fixture: Callable[..., App]) -> None:
    status: list[str] = session.status()
    keyboard: bool = controller.keys_supported if controller is not None else False
    serial: str = agent.record.serial
    output: str = device.shell("getprop ro.build.version.sdk").text()
    version: int = adb_server.version()
    shown: App = compose_fixture(tab="Big")
    shown.stop()
    host_gate.check(1.5, 50.0, "a measured figure")
    assert status and serial == device.serial and output and version > 0 and keyboard in (True, False)


def test_actions_that_wait_watchers_toasts_and_xpath(screen: Screen) -> None:
    allow: Watcher = screen.watch(text="While using the app", window="com.google.android.permissioncontroller").tap()
    screen.watch(name="rate us", id="rate_dialog").call(lambda element: element.find(text="Later").tap())
    screen.watch_builtin("dismiss_anr", "dismiss_crash")
    ack: Ack = screen.tap(xpath="//android.widget.Button[@text='Login']", timeout=10)
    screen.find(xpath="//*[@resource-id='username']").type_text("ada", timeout=2.5)
    toast: Toast = screen.wait_for_toast(text="Saved", timeout=5)
    shown: list[Toast] = screen.toasts
    try:
        screen.long_press(text="Item 3", hold=1.0, timeout=0)
    except WatcherFailed as failed:
        raise AssertionError(failed.watcher) from failed
    assert ack.accepted and allow.fired >= 0 and toast.text in [t.text for t in shown]


@pytest.mark.perf(startup_ms=2000, jank_percent=10, pss_mb=300)
def test_the_app_measured(app: App, screen: Screen, perf: Perf) -> None:
    launch: Launch = app.start(extras={"tab": "Feed"})
    started: int | None = launch.total_ms
    assert launch.state in ("COLD", "WARM", "HOT") and (started is None or started >= 0)
    perf.reset()
    screen.swipe(540, 1900, 540, 700)
    frames: FrameStats = perf.frames()
    slowest: int = frames.percentiles[99]
    memory: Memory = perf.memory()
    figures: dict[str, float] = frames.metrics()
    assert slowest >= 0 and memory.pss_mb > 0 and perf.cpu() >= 0 and figures["gfxFrameTotalCount"] >= 0
