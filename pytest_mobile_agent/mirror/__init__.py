"""The mirror: a replica of the device's windows kept current from the session's backends, with
selectors, waits and settle; the API an app's tests use most (the `screen` fixture).

    from pytest_mobile_agent.mirror import Mirror
    screen = Mirror(session.backend())
    screen.find(text="Login").tap()
    screen.wait_for(text="Welcome", timeout=5)
    print(screen.dump())
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mobile_agent.lazy import lazy_exports

if TYPE_CHECKING:
    from pytest_mobile_agent.errors import InvalidSelector, NoMatch, StaleElement, WaitTimeout
    from pytest_mobile_agent.mirror.dump import dump_view
    from pytest_mobile_agent.mirror.element import Element
    from pytest_mobile_agent.mirror.keys import KEY_CODES, key_code
    from pytest_mobile_agent.mirror.mirror import Mirror
    from pytest_mobile_agent.mirror.replica import Entry, Replica, View
    from pytest_mobile_agent.mirror.selectors import Selector
    from pytest_mobile_agent.mirror.unique import Locator, unique_locator

# each name and the module it loads from on first use: importing a submodule of the mirror, such as
# `mirror.steps`, loads neither the session nor the emulator client
__getattr__, __dir__ = lazy_exports(globals(), {
    "InvalidSelector": "pytest_mobile_agent.errors",
    "NoMatch": "pytest_mobile_agent.errors",
    "StaleElement": "pytest_mobile_agent.errors",
    "WaitTimeout": "pytest_mobile_agent.errors",
    "dump_view": "pytest_mobile_agent.mirror.dump",
    "Element": "pytest_mobile_agent.mirror.element",
    "KEY_CODES": "pytest_mobile_agent.mirror.keys",
    "key_code": "pytest_mobile_agent.mirror.keys",
    "Mirror": "pytest_mobile_agent.mirror.mirror",
    "Entry": "pytest_mobile_agent.mirror.replica",
    "Replica": "pytest_mobile_agent.mirror.replica",
    "View": "pytest_mobile_agent.mirror.replica",
    "Selector": "pytest_mobile_agent.mirror.selectors",
    "Locator": "pytest_mobile_agent.mirror.unique",
    "unique_locator": "pytest_mobile_agent.mirror.unique",
})

__all__ = [
    "KEY_CODES",
    "Element",
    "Entry",
    "InvalidSelector",
    "Locator",
    "Mirror",
    "NoMatch",
    "Replica",
    "Selector",
    "StaleElement",
    "View",
    "WaitTimeout",
    "dump_view",
    "key_code",
    "unique_locator",
]
