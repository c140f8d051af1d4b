"""The UI of the emulator image: the UI model with the image's own apps registered, the Compose
fixture app (`app`, virtual/ui/fixture.py) first, then Settings (`settings`, virtual/ui/settings.py),
and the fixture's start, stop (its process killed) and composition wait the activity manager and the tests use."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping

from pytest_mobile_agent.virtual.ui.changes import Change
from pytest_mobile_agent.virtual.ui.clock import Clock
from pytest_mobile_agent.virtual.ui.fixture import FIXTURE_MANIFEST, FixtureApp
from pytest_mobile_agent.virtual.ui.geometry import Geometry
from pytest_mobile_agent.virtual.ui.model import UiModel
from pytest_mobile_agent.virtual.ui.settings import SettingsApp
from pytest_mobile_agent.virtual.web.engine import WebEngine


class EmulatorUi(UiModel):
    """Everything on the screen of one virtual device, with the image's apps."""

    def __init__(self, clock: Clock | None = None, geometry: Geometry | None = None, *,
                 ticker: bool | None = None) -> None:
        super().__init__(clock, geometry, ticker=ticker)
        self.app = FixtureApp(self)
        self.settings = SettingsApp(self)
        self.register_app(self.app)
        self.register_app(self.settings)
        # the access toast names the app by its label
        self.app_labels[FIXTURE_MANIFEST.package] = FIXTURE_MANIFEST.label or FIXTURE_MANIFEST.package
        #: the device's web engine (virtual/web), which the WebViews and the browser render with;
        #: None for a UI made without a device
        self.web: WebEngine | None = None

    def start_app(self, extras: Mapping[str, str] | None = None, *, stop_first: bool = False) -> None:
        with self.lock:
            self.advance()
            if stop_first:
                self.app.kill()
            self.app.start(extras)

    def wait_composed(self, timeout: float) -> bool:
        """Wait (real time) until the fixture's current screen is composed; False at the timeout."""
        changed = threading.Event()

        def listener(change: Change) -> None:
            changed.set()

        self.add_listener(listener)
        try:
            deadline = time.monotonic() + timeout
            while True:
                with self.lock:
                    self.advance()
                    if not self.app.running or self.app.composed:
                        return True
                    due = (self.next_due_ms() - self.clock.now_ms()) / 1000.0
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                changed.wait(max(0.001, min(left, due)))
                changed.clear()
        finally:
            self.remove_listener(listener)

    def stop_app(self) -> None:
        """The fixture app's process is killed (force-stop): its windows and its memory go."""
        with self.lock:
            self.advance()
            self.app.kill()
