"""The pytest plugin: options, markers, the fixtures that carry the driver, and the policies of a
shared device (the quiet wait, retry-on-disturbance, the automation lock, failure artifacts).

Registered through the `pytest11` entry point, so installing the package is enough; with plugin
autoloading off, `pytest_plugins = ["pytest_mobile_agent.plugin"]` or `-p pytest_mobile_agent.plugin`.
The hooks are in `hooks.py`, the fixtures in `fixtures.py` (registered by `pytest_configure`).
"""

from pytest_mobile_agent.plugin.hooks import (
    android_serial,
    pytest_addoption,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_load_initial_conftests,
    pytest_report_header,
    pytest_runtest_call,
    pytest_runtest_makereport,
    pytest_runtest_protocol,
    pytest_runtest_setup,
    pytest_sessionfinish,
    pytest_sessionstart,
    pytest_terminal_summary,
    pytest_testnodedown,
    pytest_unconfigure,
)
from pytest_mobile_agent.plugin.options import NO_SERIAL_REASON, SERIAL_ENV

__all__ = [
    "NO_SERIAL_REASON",
    "SERIAL_ENV",
    "android_serial",
    "pytest_addoption",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_load_initial_conftests",
    "pytest_report_header",
    "pytest_runtest_call",
    "pytest_runtest_makereport",
    "pytest_runtest_protocol",
    "pytest_runtest_setup",
    "pytest_sessionfinish",
    "pytest_sessionstart",
    "pytest_terminal_summary",
    "pytest_testnodedown",
    "pytest_unconfigure",
]
