"""The stack: target, automation lock, agent, controller, session and screen, opened in that order
and closed in the reverse one, outside pytest.

The pytest fixtures open the same pieces at their own scopes (plugin/fixtures.py); the doctor and
the inspector open them here. Nothing in this package imports the pytest surface.

    from pytest_mobile_agent.stack import Settings, open_stack

    with open_stack(Settings.for_target("emulator-5554"), holder="my script") as stack:
        stack.screen.tap(text="Login")
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mobile_agent.lazy import lazy_exports
from pytest_mobile_agent.stack.settings import Settings

if TYPE_CHECKING:
    from pytest_mobile_agent.stack.assembly import (
        DEFAULT_LOCK_WAIT,
        OpenStack,
        open_stack,
        start_session,
    )

__all__ = ["DEFAULT_LOCK_WAIT", "OpenStack", "Settings", "open_stack", "start_session"]


__getattr__, __dir__ = lazy_exports(globals(), {
    # the session, the mirror and the emulator client load when a stack opens, not when the pytest
    # plugin imports the settings
    "DEFAULT_LOCK_WAIT": "pytest_mobile_agent.stack.assembly",
    "OpenStack": "pytest_mobile_agent.stack.assembly",
    "open_stack": "pytest_mobile_agent.stack.assembly",
    "start_session": "pytest_mobile_agent.stack.assembly",
})
