"""The UI of the virtual device: the window stack, the pointer and gestures, and the apps that plug
into it. Above the framework (it is the display's content and the activity manager's apps), below
the agent double that reads it.

`UiModel` (model.py) is one device's screen: windows top-most first (the status bar, the navigation
bar, the keyboard, dialogs, the apps' windows, the launcher), touches and keys, timers on the model
clock, change notices, pixels (render.py). Apps register with it (apps.py: `UiApp`); the emulator
image's are the Compose fixture app (fixture.py, with its Loading screen's spinner, spinner.py) and
Settings (settings.py), registered by `EmulatorUi` (emulator.py); any other installed package shows
a plain window (plain.py). `attach` (attach.py) wires a device's UI into its display, activity
manager, package manager and logcat.

Windows, top-most first: the status bar (6 nodes) and the navigation bar (4), owned by
com.android.systemui; the keyboard (input_method, 44 nodes) while a field has the focus; the
permission controller's prompt (modal); the fixture's in-app alert (modal, no change events); the
fixture's main window (Compose: no change events; 563 nodes on the Big tab, so 573 in all); the
Settings app and the launcher (View toolkits that send change events) when they are in front.
"""

from pytest_mobile_agent.virtual.ui.apps import UiApp
from pytest_mobile_agent.virtual.ui.changes import Change, NodesChanged, WindowsChanged
from pytest_mobile_agent.virtual.ui.clock import Clock, ManualClock, MonotonicClock
from pytest_mobile_agent.virtual.ui.emulator import EmulatorUi
from pytest_mobile_agent.virtual.ui.fixture import (
    BIG_CELLS,
    LIST_ITEMS,
    MAIN_ACTIVITY,
    PACKAGE,
    TABS,
    FixtureApp,
)
from pytest_mobile_agent.virtual.ui.geometry import Geometry
from pytest_mobile_agent.virtual.ui.model import KEY_MAP, UiModel
from pytest_mobile_agent.virtual.ui.node import Node, ScrollInfo, Window

__all__ = [
    "BIG_CELLS", "KEY_MAP", "LIST_ITEMS", "MAIN_ACTIVITY", "PACKAGE", "TABS",
    "Change", "Clock", "EmulatorUi", "FixtureApp", "Geometry", "ManualClock", "MonotonicClock", "Node",
    "NodesChanged", "ScrollInfo", "UiApp", "UiModel", "Window", "WindowsChanged",
]
