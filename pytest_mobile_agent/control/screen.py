"""The screen and the lock screen: off, on, and unlocked when no PIN, pattern or password guards it.

Keys do it, as a person's buttons do: KEYCODE_SLEEP (223) and KEYCODE_WAKEUP (224), API 20+, which
PhoneWindowManager.interceptKeyBeforeQueueing takes before any window; the lock screen goes with
`wm dismiss-keyguard` (IWindowManager.dismissKeyguard, WindowManagerShellCommand) and, where that
is missing, KEYCODE_MENU (82), which dismisses an insecure keyguard. The state is read back from
`dumpsys power` (`mWakefulness=Awake|Asleep`, PowerManagerService.dumpInternal) and `dumpsys window`
(`mKeyguardShowing=`, KeyguardController.dump; `mShowingLockscreen=` before Android 10). At the end
of the test a screen the test turned off is turned on again and the lock screen it caused dismissed.
Each change marks the screen's replica stale: its next query reads afresh.
"""

from __future__ import annotations

import re

from pytest_mobile_agent.control import shell
from pytest_mobile_agent.control.journal import Journal
from pytest_mobile_agent.control.means import Paths
from pytest_mobile_agent.errors import StateRefused

_WAKEFULNESS = re.compile(r"mWakefulness=(\w+)")
_KEYGUARD = re.compile(r"(?:mKeyguardShowing|mShowingLockscreen)=(true|false)")
SECURE_LOCK_ADVICE = ("A PIN, pattern or password guards the lock screen, which unlock() does not enter: remove "
                      "it on test devices (Settings > Security > Screen lock > None, or `adb shell locksettings "
                      "clear --old PIN`)")


class Screen:
    def __init__(self, paths: Paths, journal: Journal) -> None:
        self.paths = paths
        self.journal = journal

    @property
    def on(self) -> bool:
        match = _WAKEFULNESS.search(shell.text(self.paths.device, "dumpsys power"))
        return match is None or match.group(1) == "Awake"

    @property
    def locked(self) -> bool:
        match = _KEYGUARD.search(shell.text(self.paths.device, "dumpsys window"))
        return match is not None and match.group(1) == "true"

    def turn_off(self) -> None:
        self._remember()
        shell.run(self.paths.device, "input keyevent KEYCODE_SLEEP", what="turning the screen off")
        if shell.settle(lambda: self.on, lambda on: not on, between=self.paths.between_checks):
            raise StateRefused("turning the screen off: `dumpsys power` still reports mWakefulness=Awake",
                               advice="A wake lock held with ACQUIRE_CAUSES_WAKEUP, or `svc power stayon`, may "
                                      "keep it on")
        self.paths.screen_changed()

    def turn_on(self) -> None:
        self._remember()
        shell.run(self.paths.device, "input keyevent KEYCODE_WAKEUP", what="turning the screen on")
        if not shell.settle(lambda: self.on, lambda on: on, between=self.paths.between_checks):
            raise StateRefused("turning the screen on: `dumpsys power` still reports the screen asleep")
        self.paths.screen_changed()

    def unlock(self) -> None:
        """Turn the screen on and dismiss a lock screen without PIN; StateRefused with the advice
        when a PIN, pattern or password guards it."""
        self.turn_on()
        if not self.locked:
            return
        output = shell.text(self.paths.device, "wm dismiss-keyguard")
        if "Unknown command" in output or not shell.settle(lambda: self.locked, lambda locked: not locked,
                                                           timeout=1.0, between=self.paths.between_checks):
            shell.run(self.paths.device, "input keyevent KEYCODE_MENU", what="unlocking")
        if shell.settle(lambda: self.locked, lambda locked: not locked, between=self.paths.between_checks):
            raise StateRefused("unlocking: the lock screen stays (`dumpsys window`: mKeyguardShowing=true)",
                               advice=SECURE_LOCK_ADVICE)
        self.paths.screen_changed()

    def _remember(self) -> None:
        if self.journal.knows("screen"):
            return
        was_on, was_locked = self.on, self.locked

        def put_back() -> None:
            if was_on and not self.on:
                shell.run(self.paths.device, "input keyevent KEYCODE_WAKEUP", what="turning the screen back on")
            if was_on and not was_locked and self.locked:
                shell.run(self.paths.device, "wm dismiss-keyguard", what="dismissing the lock screen")
            if not was_on and self.on:
                shell.run(self.paths.device, "input keyevent KEYCODE_SLEEP", what="turning the screen back off")

        self.journal.remember("screen", put_back)
