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

from typing import TYPE_CHECKING

from pytest_mobile_agent._version import __version__
from pytest_mobile_agent.lazy import Deprecated, lazy_exports

if TYPE_CHECKING:
    from pytest_mobile_agent.adb.device import Device
    from pytest_mobile_agent.adb.server import AdbServer
    from pytest_mobile_agent.agent.deploy import Attached
    from pytest_mobile_agent.control.app_under_test import AppUnderTest as App
    from pytest_mobile_agent.control.device import DeviceControl
    from pytest_mobile_agent.control.perf.gfxinfo import FrameStats
    from pytest_mobile_agent.control.perf.launch import Launch
    from pytest_mobile_agent.control.perf.meminfo import Memory
    from pytest_mobile_agent.control.perf.sampler import Perf
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
    from pytest_mobile_agent.mirror.keyboard import Keyboard, KeyboardAction
    from pytest_mobile_agent.mirror.mirror import Mirror as Screen
    from pytest_mobile_agent.mirror.replica import View
    from pytest_mobile_agent.mirror.unique import Locator
    from pytest_mobile_agent.mirror.vocabulary import Criteria, Direction
    from pytest_mobile_agent.mirror.watchers import Watcher
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

__getattr__, __dir__ = lazy_exports(globals(), {
    # the screen and what it gives
    "Screen": "pytest_mobile_agent.mirror.mirror:Mirror",
    "Element": "pytest_mobile_agent.mirror.element",
    "Locator": "pytest_mobile_agent.mirror.unique",
    "View": "pytest_mobile_agent.mirror.replica",
    "Window": "pytest_mobile_agent.session.backends",
    "Node": "pytest_mobile_agent.session.backends",
    "Ack": "pytest_mobile_agent.session.backends",
    "Screenshot": "pytest_mobile_agent.session.backends",
    "Toast": "pytest_mobile_agent.session.backends",
    "Watcher": "pytest_mobile_agent.mirror.watchers",
    "Keyboard": "pytest_mobile_agent.mirror.keyboard",
    "KeyboardAction": "pytest_mobile_agent.mirror.keyboard",
    "Criteria": "pytest_mobile_agent.mirror.vocabulary",
    "Direction": "pytest_mobile_agent.mirror.vocabulary",
    "TextMethod": "pytest_mobile_agent.session.backends",
    "ImageFormat": "pytest_mobile_agent.session.backends",
    # what the other fixtures give
    "Session": "pytest_mobile_agent.session.session",
    "Controller": "pytest_mobile_agent.emulator.controller",
    "Attached": "pytest_mobile_agent.agent.deploy",
    "Device": "pytest_mobile_agent.adb.device",
    "AdbServer": "pytest_mobile_agent.adb.server",
    "App": "pytest_mobile_agent.control.app_under_test:AppUnderTest",
    "DeviceControl": "pytest_mobile_agent.control.device",
    "Orientation": "pytest_mobile_agent.control.rotation",
    "Perf": "pytest_mobile_agent.control.perf.sampler",
    "Launch": "pytest_mobile_agent.control.perf.launch",
    "FrameStats": "pytest_mobile_agent.control.perf.gfxinfo",
    "Memory": "pytest_mobile_agent.control.perf.meminfo",
    # what a test catches
    "MobileAgentError": "pytest_mobile_agent.errors",
    "Timeout": "pytest_mobile_agent.errors",
    "NoMatch": "pytest_mobile_agent.errors",
    "WaitTimeout": "pytest_mobile_agent.errors",
    "StaleElement": "pytest_mobile_agent.errors",
    "InvalidSelector": "pytest_mobile_agent.errors",
    "InvalidArgument": "pytest_mobile_agent.errors",
    "Disconnected": "pytest_mobile_agent.errors",
    "Conflict": "pytest_mobile_agent.errors",
    "DeviceDisturbed": "pytest_mobile_agent.errors",
    "PackageManagerError": "pytest_mobile_agent.errors",
    "AgentError": "pytest_mobile_agent.errors",
    "WatcherFailed": "pytest_mobile_agent.errors",
    "WatcherLoop": "pytest_mobile_agent.errors",
    "StateRefused": "pytest_mobile_agent.errors",
    "NotSupported": "pytest_mobile_agent.errors",
}, deprecated={
    # the project's own suite's gate, not a user's name (issue 38, item 5): the `host_gate` fixture
    # and marker stay; the fixture's type is importable from the plugin
    "HostGate": Deprecated("pytest_mobile_agent.plugin.gates",
                           "annotate the host_gate fixture with pytest_mobile_agent.plugin.gates.HostGate"),
})

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
    "FrameStats",
    "ImageFormat",
    "InvalidArgument",
    "InvalidSelector",
    "Keyboard",
    "KeyboardAction",
    "Launch",
    "Locator",
    "Memory",
    "MobileAgentError",
    "NoMatch",
    "Node",
    "NotSupported",
    "Orientation",
    "PackageManagerError",
    "Perf",
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

