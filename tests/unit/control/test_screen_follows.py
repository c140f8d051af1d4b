"""A change of the device's state that alters the screen is seen by the screen's next query (issue 41,
item 6): `rotate` returns once the screen shows the turned display; dark mode, font scale and the
screen's power mark the replica stale, so the next query reads afresh rather than answering from a
replica no event has touched yet (a Compose window sends none)."""

from __future__ import annotations

from typing import Any, cast

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.adb.shell import ShellOutput
from pytest_mobile_agent.control import DeviceControl, Paths
from pytest_mobile_agent.session.backends import ReadReason
from tests.support.mirror_fakes import Rig, login_screen, node, tree

PORTRAIT = {"width": 1080, "height": 2400, "density": 420, "rotation": 0}
LANDSCAPE = {"width": 2400, "height": 1080, "density": 420, "rotation": 1}


def login(display: dict[str, int]) -> dict[str, Any]:
    """The Login tab laid out for `display`: its window's bounds and a Login button as the app places it."""
    screen = login_screen()
    width, height = display["width"], display["height"]
    nodes = screen["windows"][0]["nodes"]
    nodes.append(node(9, 1, 1, text="Login", cls="android.widget.Button", bounds=(63, 1101, width - 63, 1248),
                      clickable=True, res="login_button"))
    screen["windows"] = [dict(screen["windows"][0], bounds=[0, 0, width, height], nodes=tree(*nodes))]
    screen["display"] = dict(display)
    return screen


class Shell:
    """A device whose shell turns the display at `wm user-rotation lock N` and switches night mode."""

    serial = "emulator-5554"

    def __init__(self) -> None:
        self.rotation = 0
        self.night = "no"
        self.on_command: Any = None

    def shell(self, command: Any) -> ShellOutput:
        command = command if isinstance(command, str) else " ".join(command)
        out = ""
        if command.startswith("wm user-rotation lock "):
            self.rotation = int(command.rsplit(" ", 1)[1])
        elif command == "dumpsys display":
            out = f"mOverrideDisplayInfo=DisplayInfo{{\"Built-in Screen\", rotation {self.rotation}, density 420}}"
        elif command.startswith("settings get system"):
            out = "0"
        elif command.startswith("cmd uimode night "):
            self.night = command.rsplit(" ", 1)[1]
            out = f"Night mode: {self.night}"
        elif command == "cmd uimode night":
            out = f"Night mode: {self.night}"
        if self.on_command is not None:
            self.on_command(command)
        return ShellOutput(0, out.encode(), b"")


def control_of(rig: Rig, device: Shell) -> DeviceControl:
    return DeviceControl(Paths(cast(Device, device), emulator=True, screen=rig.mirror), rig.mirror.steps)


def test_rotate_returns_once_the_screen_shows_the_turned_display() -> None:
    """The app lays itself out again a moment after the display turned (its activity relaunched):
    before, `rotate` returned on `dumpsys display` alone and `find` answered the portrait layout
    from the replica, with no event to say otherwise."""
    rig = Rig(login(PORTRAIT))
    device = Shell()
    assert rig.mirror.find(id="login_button").bounds == (63, 1101, 1017, 1248)
    turned_at: list[int] = []

    def relayout(read: int) -> None:
        if device.rotation == 1:
            turned_at.append(read)
            if len(turned_at) >= 2:  # the second read after the turn shows the new layout
                rig.tree.screen = login(LANDSCAPE)

    rig.tree.on_read = relayout
    control_of(rig, device).rotate("landscape")
    view = rig.mirror.snapshot()
    assert view.snapshot.display.rotation == 1
    button = rig.mirror.find(id="login_button")
    assert button.bounds == (63, 1101, 2337, 1248) and button.visible is False  # below the 1080-high display


def test_dark_mode_marks_the_replica_stale_so_the_next_query_reads_afresh() -> None:
    rig = Rig(login(PORTRAIT))
    rig.mirror.snapshot()
    reads = len(rig.tree.reads)
    control_of(rig, Shell()).set_dark_mode(True)
    rig.mirror.find(id="login_button")
    assert len(rig.tree.reads) == reads + 1 and rig.reasons[-1] is ReadReason.POLL
