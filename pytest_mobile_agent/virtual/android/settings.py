"""The settings provider of the virtual device: `settings get|put|delete|list NAMESPACE [KEY [VALUE]]`
reads and writes these three namespaces, with the values an API 36 emulator starts with
(SettingsProvider's defaults: frameworks/base/packages/SettingsProvider/res/values/defaults.xml)."""

from __future__ import annotations

DEFAULT_BRIGHTNESS = 102  # SettingsProvider's def_screen_brightness


def default_settings() -> dict[str, dict[str, str]]:
    """Namespace -> key -> value."""
    return {
        "system": {"screen_off_timeout": "2147483647", "font_scale": "1.0",
                   "screen_brightness": str(DEFAULT_BRIGHTNESS), "screen_brightness_mode": "0"},
        "secure": {"enabled_accessibility_services": "null", "default_input_method":
                   "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"},
        "global": {"adb_enabled": "1", "window_animation_scale": "1.0", "transition_animation_scale": "1.0",
                   "animator_duration_scale": "1.0", "development_settings_enabled": "1"},
    }
