"""The UI model of the virtual device: the Compose fixture app `dev.mobileagent.fixture`, the
system's windows, input handling, change notices and pixels.

`UiModel` is one device's screen. The agent double reads it for snapshots, injects input into it
and turns its change notices into protocol events; the display renders it and forwards the
controller double's touches to it; the activity manager starts and stops its fixture app.
"""

from .changes import Change, NodesChanged, WindowsChanged
from .clock import Clock, ManualClock, MonotonicClock
from .fixture import BIG_CELLS, LIST_ITEMS, MAIN_ACTIVITY, PACKAGE, TABS, FixtureApp
from .geometry import Geometry
from .model import KEY_MAP, UiModel
from .node import Node, ScrollInfo, Window

__all__ = [
    "BIG_CELLS", "KEY_MAP", "LIST_ITEMS", "MAIN_ACTIVITY", "PACKAGE", "TABS",
    "Change", "Clock", "FixtureApp", "Geometry", "ManualClock", "MonotonicClock", "Node",
    "NodesChanged", "ScrollInfo", "UiModel", "Window", "WindowsChanged",
]
