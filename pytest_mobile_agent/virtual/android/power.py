"""The power manager and the keyguard of the virtual device: whether the screen is on, and whether
the lock screen shows.

Keys reach them before any window, as PhoneWindowManager.interceptKeyBeforeQueueing takes them
(frameworks/base services/core/java/com/android/server/policy/PhoneWindowManager.java):
KEYCODE_POWER (26) toggles the screen, KEYCODE_WAKEUP (224) turns it on, KEYCODE_SLEEP (223) off;
the screen going off shows the keyguard (KeyguardViewMediator.onStartedGoingToSleep). With the
keyguard showing and no secure lock (the emulator's swipe lock), KEYCODE_MENU (82) dismisses it
(KeyguardViewMediator: the menu key unlocks an insecure keyguard, the old `input keyevent 82`
idiom), and so does `wm dismiss-keyguard` (WindowManagerShellCommand runDismissKeyguard,
IWindowManager.dismissKeyguard); a secure lock (a PIN) stays until it is entered.

`dumpsys power` reads `mWakefulness=Awake|Asleep` and `Display Power: state=ON|OFF`
(PowerManagerService.dumpInternal); `dumpsys window` reads `mKeyguardShowing=` (KeyguardController.dump).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

KEYCODE_MENU = 82
KEYCODE_POWER = 26
KEYCODE_SLEEP = 223
KEYCODE_WAKEUP = 224
KEY_NAMES = {"POWER": KEYCODE_POWER, "SLEEP": KEYCODE_SLEEP, "WAKEUP": KEYCODE_WAKEUP, "MENU": KEYCODE_MENU}


def power_key(code: str) -> int | None:
    """The power-related key code a keyevent argument names (`26`, `KEYCODE_POWER`, `POWER`)."""
    word = code.strip().upper().removeprefix("KEYCODE_")
    if word.isascii() and word.isdigit():
        number = int(word)
        return number if number in KEY_NAMES.values() else None
    return KEY_NAMES.get(word)


@dataclass
class Power:
    awake: bool = True
    keyguard_showing: bool = False
    #: a PIN, pattern or password: the keyguard cannot be dismissed without it
    secure_lock: bool = False
    #: told when the keyguard shows or goes (the UI draws it)
    listeners: list[Callable[[], None]] = field(default_factory=list)

    def key(self, code: int) -> bool:
        """A key before dispatch: True when the power policy consumed it (the menu key only while
        the keyguard shows)."""
        if code == KEYCODE_POWER:
            self.sleep() if self.awake else self.wake()
        elif code == KEYCODE_WAKEUP:
            self.wake()
        elif code == KEYCODE_SLEEP:
            self.sleep()
        elif code == KEYCODE_MENU and self.keyguard_showing and self.awake:
            self.dismiss_keyguard()
        else:
            return False
        return True

    def wake(self) -> None:
        self.awake = True

    def sleep(self) -> None:
        self.awake = False
        if not self.keyguard_showing:
            self.keyguard_showing = True
            self._changed()

    def dismiss_keyguard(self) -> None:
        if self.keyguard_showing and not self.secure_lock:
            self.keyguard_showing = False
            self._changed()

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()
