"""Progress lines of a long wait (the quiet wait, the automation lock), on the terminal.

A plain run writes them at once through the terminal reporter, with pytest's capture suspended
for the line (as its live logging does), since a wait happens inside a test's setup. An xdist
worker has no terminal: it calls `pytest_warning_recorded` itself with a `MobileAgentWait`,
which xdist forwards to the controller as soon as it is called (xdist/remote.py
`WorkerInteractor.pytest_warning_recorded` sends a `warning_recorded` event;
xdist/dsession.py `worker_warning_recorded` calls the hook on the controller). There `Terminal`
writes the line and takes it out of the warnings summary: it is progress, not a warning.
"""

from __future__ import annotations

import contextlib
import warnings

import pytest

PREFIX = "[mobile-agent] "
PLUGIN = "mobile_agent_progress"


class MobileAgentWait(UserWarning):
    """A progress line of a wait, carried from an xdist worker to the controller."""


def say(config: pytest.Config, nodeid: str, message: str) -> None:
    """The line on this run's terminal, or, from an xdist worker, on its controller's."""
    if hasattr(config, "workerinput"):
        record = warnings.WarningMessage(MobileAgentWait(message), MobileAgentWait, __file__, 0)
        config.hook.pytest_warning_recorded.call_historic(
            kwargs={"warning_message": record, "when": "runtest", "nodeid": nodeid, "location": None})
    else:
        write(config, message)


def write(config: pytest.Config, message: str) -> None:
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    capture = config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
        reporter.ensure_newline()  # the test's file name, in a plain run
        writer = getattr(reporter, "_tw", None)  # xdist's progress dots leave the line open
        if writer is not None and writer.width_of_current_line:
            reporter.write("\n")
        reporter.write_line(PREFIX + message, yellow=True)


class Terminal:
    """On the xdist controller: the workers' wait lines, written as they come."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(trylast=True)  # after the terminal reporter has filed it as a warning
    def pytest_warning_recorded(self, warning_message: warnings.WarningMessage, nodeid: str) -> None:
        if not (isinstance(warning_message.category, type) and issubclass(warning_message.category, MobileAgentWait)):
            return
        write(self.config, str(warning_message.message))
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return
        filed = reporter.stats.get("warnings", [])
        if filed and str(warning_message.message) in filed[-1].message:
            filed.pop()
            if not filed:
                reporter.stats.pop("warnings")
