"""The display's orientation, set and frozen through the window manager, restored to the user's
rotation setting.

`wm user-rotation lock N` (WindowManagerShellCommand.runDisplayUserRotation, Android 10+) freezes
the display at N quarter turns, writing the system settings `accelerometer_rotation` 0 and
`user_rotation` N (DisplayRotation.setUserRotation); an older release without it is told through
those settings directly, which DisplayRotation observes. What the display shows is read back from
`dumpsys display` (the logical display's DisplayInfo, `rotation N`), and then, when the control has
the target's screen, `rotate` returns once the screen shows it: the agent's snapshot reports the
display at N quarter turns and every window laid out inside it, and the screen settled (issue 41,
item 6: the replica answered the old orientation for half a second). The user's two settings, read
before the first change, are written back at the end of the test.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from pytest_mobile_agent.control import shell
from pytest_mobile_agent.control.journal import Journal
from pytest_mobile_agent.control.means import Paths
from pytest_mobile_agent.errors import InvalidArgument, StateRefused, WaitTimeout
from pytest_mobile_agent.mirror.replica import View

Orientation = Literal["portrait", "landscape", "reverse_portrait", "reverse_landscape"]
ORIENTATIONS: tuple[Orientation, ...] = get_args(Orientation)
_LOGICAL_ROTATION = re.compile(r"mOverrideDisplayInfo=DisplayInfo\{.*?\brotation (\d)")
_VIEWPORT_ORIENTATION = re.compile(r"\borientation=(\d)")
SHOWN_TIMEOUT = 5.0
"""How long `rotate` waits for the screen to show the new orientation once the display reports it."""
SHOWN_QUIET = 0.2
"""Then how long nothing must change on the screen (the relaunched activity drawn)."""


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
        self._await_screen(turns, orientation)

    def _await_screen(self, turns: int, orientation: Orientation) -> None:
        """Return once the screen shows the orientation (nothing to wait for without a screen)."""
        screen = self.paths.screen
        if screen is None:
            return
        screen.invalidate()
        try:
            screen.wait_until(lambda view: laid_out_for(view, turns), timeout=SHOWN_TIMEOUT,
                              what=f"the screen to show {orientation}")
        except WaitTimeout as exc:
            raise StateRefused(f"rotating to {orientation}: the display reports it, but the screen does not show "
                               f"it: {str(exc).splitlines()[0]}",
                               advice="An app that fixes its orientation (android:screenOrientation) keeps its "
                                      "own") from None
        screen.settle(timeout=SHOWN_TIMEOUT, quiet=SHOWN_QUIET)

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


def laid_out_for(view: View, turns: int) -> bool:
    """Whether the agent's snapshot shows the display at `turns` quarter turns with every window laid
    out inside it (a window still at the old orientation's size sticks out of the turned display)."""
    display = view.snapshot.display
    if display.width <= 0 or display.height <= 0:
        return True  # an agent that does not report its display: the fresh read is all there is to wait for
    if display.rotation != turns:
        return False
    return all(w.bounds[2] <= display.width and w.bounds[3] <= display.height for w in view.windows)
