"""The display's orientation, set and frozen through the window manager, restored to the user's
rotation setting.

`wm user-rotation lock N` (WindowManagerShellCommand.runDisplayUserRotation, Android 10+) freezes
the display at N quarter turns, writing the system settings `accelerometer_rotation` 0 and
`user_rotation` N (DisplayRotation.setUserRotation); an older release without it is told through
those settings directly, which DisplayRotation observes. What the display shows is read back from
`dumpsys display` (the logical display's DisplayInfo, `rotation N`). The user's two settings, read
before the first change, are written back at the end of the test.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from pytest_mobile_agent.control import shell
from pytest_mobile_agent.control.journal import Journal
from pytest_mobile_agent.control.paths import Paths
from pytest_mobile_agent.errors import InvalidArgument, StateRefused

Orientation = Literal["portrait", "landscape", "reverse_portrait", "reverse_landscape"]
ORIENTATIONS: tuple[Orientation, ...] = get_args(Orientation)
_LOGICAL_ROTATION = re.compile(r"mOverrideDisplayInfo=DisplayInfo\{.*?\brotation (\d)")
_VIEWPORT_ORIENTATION = re.compile(r"\borientation=(\d)")


def check_orientation(orientation: object) -> int:
    """The quarter turns of an orientation's name; InvalidArgument naming `orientation` otherwise."""
    if orientation not in ORIENTATIONS:
        raise InvalidArgument(f"orientation must be one of {', '.join(ORIENTATIONS)}, not {orientation!r}")
    return ORIENTATIONS.index(orientation)  # type: ignore[arg-type]


class Rotation:
    def __init__(self, paths: Paths, journal: Journal) -> None:
        self.paths = paths
        self.journal = journal

    def current(self) -> Orientation:
        dump = shell.text(self.paths.device, "dumpsys display")
        match = _LOGICAL_ROTATION.search(dump) or _VIEWPORT_ORIENTATION.search(dump)
        return ORIENTATIONS[int(match.group(1)) % 4] if match else "portrait"

    def set(self, orientation: Orientation) -> None:
        turns = check_orientation(orientation)
        device = self.paths.device
        self._remember_user_setting()
        output = shell.text(device, f"wm user-rotation lock {turns}")
        if "Unknown command" in output:  # before Android 10: the settings DisplayRotation observes
            shell.run(device, "settings put system accelerometer_rotation 0", what="freezing the rotation")
            shell.run(device, f"settings put system user_rotation {turns}", what=f"rotating to {orientation}")
        elif output.strip():
            raise StateRefused(f"rotating to {orientation}: the device refused `wm user-rotation lock {turns}`: "
                               f"{output.strip()}")
        shown = shell.settle(self.current, lambda now: now == orientation, between=self.paths.between_checks)
        if shown != orientation:
            raise StateRefused(f"rotating to {orientation}: the display stays {shown}",
                               advice="An app that fixes its orientation (android:screenOrientation) keeps its "
                                      "own; a device policy may lock the rotation")

    def _remember_user_setting(self) -> None:
        if self.journal.knows("rotation"):
            return
        device = self.paths.device
        auto = shell.text(device, "settings get system accelerometer_rotation").strip()
        user = shell.text(device, "settings get system user_rotation").strip()

        def put_back() -> None:
            for key, value in (("user_rotation", user), ("accelerometer_rotation", auto)):
                command = f"settings delete system {key}" if value in ("", "null") else \
                    f"settings put system {key} {value}"
                shell.run(device, command, what="restoring the user's rotation")

        self.journal.remember("rotation", put_back)
