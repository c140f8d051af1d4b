"""The inspector: a local web page that shows a target's screen, its windows and its node tree,
offers the line of Python that finds each element alone, and records a test (codegen).

    python -m pytest_mobile_agent inspect --android-serial virtual

`target` opens the driver's stack outside pytest (the target, the automation lock, the agent, the
session and a mirror); `page` turns the mirror's view into what the page shows; `recorder` writes
the actions done on the page as a pytest function; `server` serves the page and its API on
127.0.0.1 with a random token (aiohttp: docs/architecture.md says why). It needs the `inspect`
extra: `pip install 'pytest-mobile-agent[inspect]'`.
"""

LOCK_WAIT = 30.0
"""Seconds the inspector waits for a test run to let go of the device before it gives up (`--lock-wait`)."""
