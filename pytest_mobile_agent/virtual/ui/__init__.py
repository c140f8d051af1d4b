"""The UI model of the virtual device: the Compose fixture app `dev.mobileagent.fixture`, the
system's windows, input handling, change notices and pixels.

`UiModel` is one device's screen. The agent double reads it for snapshots, injects input into it
and turns its change notices into protocol events; the display renders it and forwards the
controller double's touches to it; the activity manager starts and stops its fixture app
(`attach(device)` in `ui/attach.py` wires all of that).

Windows, top-most first: the status bar (6 nodes) and the navigation bar (4), owned by
com.android.systemui; the keyboard (input_method, 44 nodes) while a field has the focus; the
permission controller's prompt (modal); the fixture's in-app alert (modal, no change events); the
fixture's main window (Compose: no change events; 563 nodes on the Big tab, so 573 in all); the
Settings app and the launcher (View toolkits that send change events) when they are in front.
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
