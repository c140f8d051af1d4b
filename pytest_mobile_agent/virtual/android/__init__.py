"""The Android framework of the virtual device (what system_server and the platform hold), above
the kernel, below the programs that are its clients (`am`, `pm`, `wm`, `dumpsys`...).

The activity manager (`activity`), the package manager (`packages`), the UI-automation slot
(`automation`), the display and touchscreen (`display`), logcat's buffers (`logcat`), the system
properties' values (`properties`), the settings provider (`settings`), and `framework.Framework`,
the bundle of them the Android tools are given.
"""
