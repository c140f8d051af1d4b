"""The UI model plugged into a virtual device: `am start`, `am force-stop`, the display, input."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.ui import PACKAGE, EmulatorUi
from pytest_mobile_agent.virtual.ui.attach import DisplayContent, FixtureAppEntry
from pytest_mobile_agent.virtual.ui.fixture import COMPOSE_MS, LAUNCH_MS


@pytest.fixture
def vdev() -> Iterator[VirtualDevice]:
    dev = VirtualDevice("emulator-5572")
    yield dev
    dev.close()


@pytest.fixture
def ui(vdev: VirtualDevice) -> EmulatorUi:
    return vdev.ui


def settle(tab: str) -> None:
    time.sleep((LAUNCH_MS + COMPOSE_MS[tab] + 30) / 1000)


def test_the_device_attaches_its_one_ui_to_the_display_and_the_activity_manager(vdev: VirtualDevice,
                                                                                ui: EmulatorUi) -> None:
    content = vdev.display.content
    assert isinstance(content, DisplayContent) and content.model is ui
    entry = vdev.activity.apps[PACKAGE]
    assert isinstance(entry, FixtureAppEntry) and entry.model is ui


def test_am_start_starts_the_fixture_on_a_tab_and_force_stop_stops_it(vdev: VirtualDevice, ui: EmulatorUi) -> None:
    status, out, err = vdev.shell(f"am start -W -S -n {PACKAGE}/.MainActivity --es tab Big")
    assert status == 0, err
    settle("Big")
    assert ui.foreground() == PACKAGE
    assert sum(w.node_count() for w in ui.windows()) == 573
    status, _, _ = vdev.shell(f"am force-stop {PACKAGE}")
    assert status == 0
    assert ui.foreground() is None
    assert [w.title for w in ui.windows()][-1] == "Home"


def test_a_prompt_extra_brings_up_the_permission_prompt(vdev: VirtualDevice, ui: EmulatorUi) -> None:
    vdev.shell(f"am start -n {PACKAGE}/.MainActivity --es prompt camera")
    prompt = ui.permission_prompt
    assert prompt is not None and prompt.package == "com.google.android.permissioncontroller"


def test_the_display_shows_the_ui_and_counts_its_changes(vdev: VirtualDevice, ui: EmulatorUi) -> None:
    vdev.shell(f"am start -n {PACKAGE}/.MainActivity --es tab Login")
    settle("Login")
    image = vdev.display.render()
    assert image.size == (1080, 2400)
    assert image.getpixel((540, 2390)) != image.getpixel((540, 500))  # the navigation bar, the screen
    seen = vdev.display.change_count
    tab = next(n for w in ui.windows() for n in w.nodes() if n.res == "tab_list")
    vdev.display.touch(540, (tab.bounds[1] + tab.bounds[3]) // 2, True)
    vdev.display.touch(540, (tab.bounds[1] + tab.bounds[3]) // 2, False)
    assert vdev.display.wait_change(seen, 1.0) != seen
    settle("List")
    assert any(n.res == "list" for w in ui.windows() for n in w.nodes())  # composed without a reader


def test_input_from_the_shell_reaches_the_ui(vdev: VirtualDevice, ui: EmulatorUi) -> None:
    vdev.shell(f"am start -n {PACKAGE}/.MainActivity --es tab Login")
    settle("Login")
    field = next(n for w in ui.windows() for n in w.nodes() if n.res == "username")
    x, y = (field.bounds[0] + field.bounds[2]) // 2, (field.bounds[1] + field.bounds[3]) // 2
    status, _, err = vdev.shell(f"input tap {x} {y}")
    assert status == 0, err
    assert ui.keyboard_shown and field.focused


def test_input_keyevent_and_text_from_the_shell_type_into_the_focused_field(vdev: VirtualDevice,
                                                                            ui: EmulatorUi) -> None:
    vdev.shell(f"am start -n {PACKAGE}/.MainActivity --es tab Login")
    field = next(n for w in ui.windows() for n in w.nodes() if n.res == "username")
    ui.focus(field)
    assert vdev.shell("input text Ada%sL")[0] == 0
    assert vdev.shell("input keyevent KEYCODE_DEL")[0] == 0
    assert vdev.shell("input keyevent 29")[0] == 0
    assert field.text == "Ada a"
    vdev.shell("input keyevent KEYCODE_BACK")
    assert not ui.keyboard_shown


def test_uiautomator_dump_writes_every_windows_tree(vdev: VirtualDevice, ui: EmulatorUi) -> None:
    import xml.etree.ElementTree as ET

    vdev.shell(f"am start -n {PACKAGE}/.MainActivity --es tab Big")
    status, _, err = vdev.shell("uiautomator dump /sdcard/window_dump.xml")
    assert status == 0, err
    _, xml, _ = vdev.shell("cat /sdcard/window_dump.xml")
    root = ET.fromstring(xml)
    assert root.tag == "hierarchy" and len(root) == 3  # status bar, navigation bar, the app
    assert len(root.findall(".//node")) == 573
    cell = root.find(".//node[@resource-id='cell_1']")
    assert cell is not None and cell.get("text") == "Cell 1" and cell.get("clickable") == "true"
    assert vdev.automation.holder() is None


def focus_of(vdev: VirtualDevice) -> str:
    status, out, err = vdev.shell("dumpsys window")
    assert status == 0, err
    return next(line.strip() for line in out.decode().splitlines() if "mCurrentFocus=" in line)


@pytest.mark.parametrize("key", ["3", "KEYCODE_HOME", "4"])
def test_home_or_back_on_the_fixture_moves_the_focus_to_the_launcher(vdev: VirtualDevice, ui: EmulatorUi,
                                                                      key: str) -> None:
    vdev.shell(f"am start -W -n {PACKAGE}/.MainActivity --es tab Login")
    settle("Login")
    assert PACKAGE in focus_of(vdev)
    status, _, err = vdev.shell(f"input keyevent {key}")
    assert status == 0, err
    assert ui.foreground() is None  # the screen shows the launcher...
    assert [w.title for w in ui.windows()][-1] == "Home"
    focus = focus_of(vdev)  # ...and the window manager says so
    assert PACKAGE not in focus and "com.google.android.apps.nexuslauncher" in focus, focus
    vdev.shell(f"am start -W -n {PACKAGE}/.MainActivity")  # and back again
    assert PACKAGE in focus_of(vdev) and ui.foreground() == PACKAGE


def test_back_that_only_closes_the_keyboard_leaves_the_focus_on_the_fixture(vdev: VirtualDevice,
                                                                            ui: EmulatorUi) -> None:
    vdev.shell(f"am start -W -n {PACKAGE}/.MainActivity --es tab Login")
    settle("Login")
    window = next(w for w in ui.windows() if w.package == PACKAGE)
    field = window.by_res("username")
    assert field is not None
    ui.focus(field)
    assert ui.keyboard_shown
    vdev.shell("input keyevent 4")
    assert not ui.keyboard_shown and ui.foreground() == PACKAGE
    assert PACKAGE in focus_of(vdev)
