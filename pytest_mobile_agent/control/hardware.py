"""The emulator's own sensors: a finger on the fingerprint sensor (sendFingerprint: a touch, then the
lift) and a foldable's posture (setPosture, read back with getPhysicalModel's POSTURE, the posture
the test found set again at the end). A device has no way to fake either: NotSupported says so.
"""

from __future__ import annotations

from typing import get_args

from pytest_mobile_agent.control.journal import Journal
from pytest_mobile_agent.control.means import Paths
from pytest_mobile_agent.emulator.hardware_state import PostureName
from pytest_mobile_agent.errors import InvalidArgument, StateRefused

POSTURE_NAMES: tuple[PostureName, ...] = get_args(PostureName)


def check_finger(finger: object) -> int:
    if isinstance(finger, bool) or not isinstance(finger, int) or not 1 <= finger <= 10:
        raise InvalidArgument(f"finger must be the number of an enrolled finger, 1 to 10, not {finger!r}")
    return finger


class Sensors:
    def __init__(self, paths: Paths, journal: Journal) -> None:
        self.paths = paths
        self.journal = journal

    def touch_fingerprint(self, finger: int) -> None:
        check_finger(finger)
        controller = self.paths.needs_controller("touching the fingerprint sensor", "sendFingerprint")
        controller.send_fingerprint(finger, True)
        controller.send_fingerprint(finger, False)

    def posture(self) -> PostureName | None:
        return self.paths.needs_controller("reading the posture", "getPhysicalModel").posture()

    def set_posture(self, posture: PostureName) -> None:
        if posture not in POSTURE_NAMES:
            raise InvalidArgument(f"posture must be one of {', '.join(POSTURE_NAMES)}, not {posture!r}")
        controller = self.paths.needs_controller("setting the posture", "setPosture")
        if not self.journal.knows("posture"):
            before = controller.posture()
            self.journal.remember("posture", lambda: controller.set_posture(before))
        controller.set_posture(posture)
        now = controller.posture()
        if now != posture:
            raise StateRefused(f"setting the posture to {posture}: the emulator reports {now or 'no posture'}",
                               advice="Only a foldable AVD has postures")
