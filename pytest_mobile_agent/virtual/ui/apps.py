"""What an app is to the UI model: a plug-in that registers with it (`UiModel.register_app`).

The model knows no app of its own; the emulator image's (the Compose fixture app, Settings:
virtual/ui/emulator.py) register with it, as the activity manager's plain windows for other
packages do not (they are windows the model shows, virtual/ui/plain.py). The model asks a
registered app to start (the launcher's icons), to stop (HOME, a relayout), to handle BACK when its
window is in front, and how to relaunch itself after the display changed size or orientation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from pytest_mobile_agent.virtual.ui.node import Window


class UiApp(Protocol):
    package: str

    @property
    def running(self) -> bool:
        """Whether the app has a window on the screen."""
        ...

    def start(self, extras: Mapping[str, str] | None = None) -> None:
        """Bring the app's activity to the front (its intent's string extras)."""
        ...

    def stop(self) -> None:
        """Every window of the app goes (HOME, a relayout); the activity manager's force-stop kills
        its process as well (the fixture app's `kill`)."""
        ...

    def back(self) -> bool:
        """The BACK key reached the app. True when it consumed it."""
        ...

    def owns(self, window: Window) -> bool:
        """Whether the window is one of the app's."""
        ...

    def relaunch_extras(self) -> Mapping[str, str]:
        """The extras that start the app again where it is (after a relayout)."""
        ...
