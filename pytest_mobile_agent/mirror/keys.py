"""Android key codes by name, for `press_key("back")` (frameworks/base, core/java/android/view/
KeyEvent.java: KEYCODE_*)."""

from __future__ import annotations

import difflib

from pytest_mobile_agent.errors import InvalidSelector

KEY_CODES: dict[str, int] = {
    "home": 3,
    "back": 4,
    "call": 5,
    "endcall": 6,
    "dpad_up": 19,
    "dpad_down": 20,
    "dpad_left": 21,
    "dpad_right": 22,
    "dpad_center": 23,
    "volume_up": 24,
    "volume_down": 25,
    "power": 26,
    "camera": 27,
    "tab": 61,
    "space": 62,
    "enter": 66,
    "del": 67,
    "backspace": 67,
    "menu": 82,
    "search": 84,
    "media_play_pause": 85,
    "page_up": 92,
    "page_down": 93,
    "escape": 111,
    "forward_del": 112,
    "move_home": 122,
    "move_end": 123,
    "app_switch": 187,
    "cut": 277,
    "copy": 278,
    "paste": 279,
}


def key_code(key: int | str) -> int:
    """A key code from a code or a name (`back`, `KEYCODE_BACK`, `Enter`)."""
    if isinstance(key, bool):
        raise InvalidSelector("a key is a key code or a key name, not a bool")
    if isinstance(key, int):
        if not 0 <= key <= 0xFFFF:
            raise InvalidSelector(f"key code {key} is out of range")
        return key
    name = key.strip().lower()
    name = name.removeprefix("keycode_")
    if name in KEY_CODES:
        return KEY_CODES[name]
    close = difflib.get_close_matches(name, KEY_CODES, n=1)
    guess = f" (did you mean {close[0]!r}?)" if close else ""
    raise InvalidSelector(f"unknown key {key!r}{guess}; known names: {', '.join(sorted(KEY_CODES))}, "
                          "or pass a key code")
