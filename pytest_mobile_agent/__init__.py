"""pytest-mobile-agent: drive Android devices and emulators from pytest.

The names a test annotates or catches, in one place (README, "The public API"):

    from pytest_mobile_agent import Screen, Element, NoMatch, WaitTimeout

    def test_login(screen: Screen) -> None:
        button: Element = screen.find(text="Login", class_name="Button")
        button.tap()

Each is loaded on first use (PEP 562): importing the package loads none of the layers (no grpc, no
numpy, no Pillow), and `if TYPE_CHECKING:` gives IDEs and mypy the real classes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pytest_mobile_agent._version import __version__

if TYPE_CHECKING:
    from pytest_mobile_agent.adb.device import Device
    from pytest_mobile_agent.adb.server import AdbServer
    from pytest_mobile_agent.agent.deploy import Attached
    from pytest_mobile_agent.control.device import DeviceControl
    from pytest_mobile_agent.control.rotation import Orientation
    from pytest_mobile_agent.emulator.controller import Controller
    from pytest_mobile_agent.errors import (
        AgentError,
        Conflict,
        DeviceDisturbed,
        Disconnected,
        InvalidArgument,
        InvalidSelector,
        MobileAgentError,
        NoMatch,
        NotSupported,
        PackageManagerError,
        StaleElement,
        StateRefused,
        Timeout,
        WaitTimeout,
        WatcherFailed,
        WatcherLoop,
    )
    from pytest_mobile_agent.mirror.element import Element
    from pytest_mobile_agent.mirror.mirror import Mirror as Screen
    from pytest_mobile_agent.mirror.replica import View
    from pytest_mobile_agent.mirror.unique import Locator
    from pytest_mobile_agent.mirror.vocabulary import Criteria, Direction
    from pytest_mobile_agent.mirror.watchers import Watcher
    from pytest_mobile_agent.plugin.gates import HostGate
    from pytest_mobile_agent.session.backends import (
        Ack,
        ImageFormat,
        Node,
        Screenshot,
        TextMethod,
        Toast,
        Window,
    )
    from pytest_mobile_agent.session.session import Session
    from pytest_mobile_agent.stack.app import AppUnderTest as App

_EXPORTS: dict[str, tuple[str, str]] = {
    # the screen and what it gives
    "Screen": ("pytest_mobile_agent.mirror.mirror", "Mirror"),
    "Element": ("pytest_mobile_agent.mirror.element", "Element"),
    "Locator": ("pytest_mobile_agent.mirror.unique", "Locator"),
    "View": ("pytest_mobile_agent.mirror.replica", "View"),
    "Window": ("pytest_mobile_agent.session.backends", "Window"),
    "Node": ("pytest_mobile_agent.session.backends", "Node"),
    "Ack": ("pytest_mobile_agent.session.backends", "Ack"),
    "Screenshot": ("pytest_mobile_agent.session.backends", "Screenshot"),
    "Toast": ("pytest_mobile_agent.session.backends", "Toast"),
    "Watcher": ("pytest_mobile_agent.mirror.watchers", "Watcher"),
    "Criteria": ("pytest_mobile_agent.mirror.vocabulary", "Criteria"),
    "Direction": ("pytest_mobile_agent.mirror.vocabulary", "Direction"),
    "TextMethod": ("pytest_mobile_agent.session.backends", "TextMethod"),
    "ImageFormat": ("pytest_mobile_agent.session.backends", "ImageFormat"),
    # what the other fixtures give
    "Session": ("pytest_mobile_agent.session.session", "Session"),
    "Controller": ("pytest_mobile_agent.emulator.controller", "Controller"),
    "Attached": ("pytest_mobile_agent.agent.deploy", "Attached"),
    "Device": ("pytest_mobile_agent.adb.device", "Device"),
    "AdbServer": ("pytest_mobile_agent.adb.server", "AdbServer"),
    "App": ("pytest_mobile_agent.stack.app", "AppUnderTest"),
    "HostGate": ("pytest_mobile_agent.plugin.gates", "HostGate"),
    "DeviceControl": ("pytest_mobile_agent.control.device", "DeviceControl"),
    "Orientation": ("pytest_mobile_agent.control.rotation", "Orientation"),
    # what a test catches
    "MobileAgentError": ("pytest_mobile_agent.errors", "MobileAgentError"),
    "Timeout": ("pytest_mobile_agent.errors", "Timeout"),
    "NoMatch": ("pytest_mobile_agent.errors", "NoMatch"),
    "WaitTimeout": ("pytest_mobile_agent.errors", "WaitTimeout"),
    "StaleElement": ("pytest_mobile_agent.errors", "StaleElement"),
    "InvalidSelector": ("pytest_mobile_agent.errors", "InvalidSelector"),
    "InvalidArgument": ("pytest_mobile_agent.errors", "InvalidArgument"),
    "Disconnected": ("pytest_mobile_agent.errors", "Disconnected"),
    "Conflict": ("pytest_mobile_agent.errors", "Conflict"),
    "DeviceDisturbed": ("pytest_mobile_agent.errors", "DeviceDisturbed"),
    "PackageManagerError": ("pytest_mobile_agent.errors", "PackageManagerError"),
    "AgentError": ("pytest_mobile_agent.errors", "AgentError"),
    "WatcherFailed": ("pytest_mobile_agent.errors", "WatcherFailed"),
    "WatcherLoop": ("pytest_mobile_agent.errors", "WatcherLoop"),
    "StateRefused": ("pytest_mobile_agent.errors", "StateRefused"),
    "NotSupported": ("pytest_mobile_agent.errors", "NotSupported"),
}

__all__ = [
    "Ack",
    "AdbServer",
    "AgentError",
    "App",
    "Attached",
    "Conflict",
    "Controller",
    "Criteria",
    "Device",
    "DeviceControl",
    "DeviceDisturbed",
    "Direction",
    "Disconnected",
    "Element",
    "HostGate",
    "ImageFormat",
    "InvalidArgument",
    "InvalidSelector",
    "Locator",
    "MobileAgentError",
    "NoMatch",
    "Node",
    "NotSupported",
    "Orientation",
    "PackageManagerError",
    "Screen",
    "Screenshot",
    "Session",
    "StaleElement",
    "StateRefused",
    "TextMethod",
    "Timeout",
    "Toast",
    "View",
    "WaitTimeout",
    "Watcher",
    "WatcherFailed",
    "WatcherLoop",
    "Window",
    "__version__",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its layer on first use (and kept); AttributeError for any
    other, so that `from pytest_mobile_agent import errors` still finds the submodule."""
    try:
        module, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
