"""An app's test suite on pytest-mobile-agent, as a user writes one.

Installing pytest-mobile-agent registers the plugin (its `pytest11` entry point), so this conftest
only adds the app's own fixtures on top of the plugin's `screen`, `session` and `compose_fixture`.
Run it on the built-in virtual device, or on a device or emulator with the fixture app installed:

    pytest examples --android-serial virtual
    pytest examples --android-serial emulator-5554
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.plugin.fixtures import FixtureApp


@pytest.fixture
def on_tab(compose_fixture: Callable[..., FixtureApp], screen: Mirror) -> Callable[[str], Mirror]:
    """Start the fixture app on a tab and wait until the mirror shows that tab's screen."""

    def open_tab(tab: str) -> Mirror:
        compose_fixture(tab=tab)
        screen.wait_for(id=f"screen_{tab.lower()}", timeout=10)
        return screen

    return open_tab
