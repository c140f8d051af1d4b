"""The pytest plugin: options, markers and the fixtures that carry the driver.

Registered through the `pytest11` entry point `mobile_agent`, so installing the package is enough.
"""

from __future__ import annotations

import importlib
import os

import pytest

SERIAL_ENV = "MOBILE_AGENT_ANDROID_SERIAL"
FIXTURES_PLUGIN = "mobile_agent_fixtures"  # pytest_mobile_agent.fixtures: android_target, adb_server, device

NO_SERIAL_REASON = (
    "no Android target named: pass --android-serial SERIAL (or `virtual` for the built-in "
    f"virtual device, `auto` for the only online target) or set {SERIAL_ENV}"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mobile-agent", "Android devices and emulators (pytest-mobile-agent)")
    group.addoption(
        "--android-serial",
        dest="android_serial",
        default=None,
        metavar="SERIAL",
        help=f"the Android target to drive: a serial, `auto`, or `virtual` (env {SERIAL_ENV})",
    )
    parser.addini("android_serial", "default for --android-serial", default="")
    group.addoption(
        "--virtual-adb",
        dest="virtual_adb",
        default="builtin",
        choices=("builtin", "real"),
        help="with --android-serial virtual: the built-in adb endpoint (default), or Debian's adb "
        "server with the virtual device's adbd endpoint attached",
    )


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin(FIXTURES_PLUGIN):
        config.pluginmanager.register(importlib.import_module("pytest_mobile_agent.fixtures"), FIXTURES_PLUGIN)
    config.addinivalue_line(
        "markers",
        "device: the test needs an Android target (skipped when none is named with --android-serial)",
    )


def android_serial(config: pytest.Config) -> str | None:
    """The target named by the option, the environment or the ini file, in that order."""
    value = config.getoption("android_serial") or os.environ.get(SERIAL_ENV) or config.getini("android_serial")
    return str(value).strip() or None if value else None


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("device") is not None and android_serial(item.config) is None:
        pytest.skip(NO_SERIAL_REASON)
