"""The adb server client (the seed's `adb` module)."""
