"""The names of the device's users and groups (AOSP's android_filesystem_config.h), as `id`, `ls -l`
and `stat` print them."""

from __future__ import annotations

USERS = {0: "root", 1000: "system", 2000: "shell", 9997: "everybody", 1004: "input", 1007: "log",
         1011: "adb", 1015: "sdcard_rw", 1028: "sdcard_r", 3001: "net_bt_admin", 3002: "net_bt",
         3003: "inet", 3006: "net_bw_stats", 3009: "readproc", 3011: "uhid", 1041: "audioserver"}
#: the shell user's groups, in the order `id` lists them
SHELL_GROUP_ORDER = (2000, 1004, 1007, 1011, 1015, 1028, 3001, 3002, 3003, 3006, 3009, 3011, 9997)


def user_name(uid: int) -> str:
    """A user (or group) by name: an app's uid as `u0_aN`."""
    return USERS.get(uid, f"u0_a{uid - 10000}" if uid >= 10000 else str(uid))
