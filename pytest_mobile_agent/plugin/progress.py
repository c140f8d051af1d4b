"""Progress lines on the terminal while a test waits (the quiet wait, the automation lock), from
the run's own process and from xdist workers alike.

The process with the terminal (a plain run, or xdist's controller) writes `[mobile-agent] ...` at
once, with capture suspended for the line, as pytest's live logging does (a line written through
the terminal reporter during a fixture's setup went into the test's captured output, unseen).

An xdist worker has no terminal. It hands the line to the `pytest_warning_recorded` hook as a
`DeviceWaitWarning`: xdist's worker sends every call of that hook to the controller at once
(xdist/remote.py `pytest_warning_recorded` -> the "warning_recorded" event; dsession.py
`worker_warning_recorded` calls the hook on the controller), where `ForwardedLines` writes it to
the terminal. The lines also stay in the warnings summary: which tests waited, and how long.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable

import pytest

PREFIX = "[mobile-agent]"
PLUGIN_NAME = "mobile_agent_progress"


class DeviceWaitWarning(UserWarning):
    """A test waited for the device: another holder of the automation lock, or a busy device."""


def write(config: pytest.Config, line: str) -> None:
    """The line on this process's terminal, seen even while output is captured."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    capture = config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
        _write_on_a_line_of_its_own(reporter, line)


def _write_on_a_line_of_its_own(reporter: pytest.TerminalReporter, line: str) -> None:
    """`write_line` ends only the line of a test file's name; xdist's progress dots leave the line
    open, and a line written then would start after the dot."""
    reporter.ensure_newline()
    writer = getattr(reporter, "_tw", None)
    if writer is not None and writer.width_of_current_line:
        reporter.write("\n")
    reporter.write_line(line, yellow=True)


def announcer(node: pytest.Item) -> Callable[[str], None]:
    """What a wait of this test calls with each progress message."""
    config = node.config

    def announce(message: str) -> None:
        line = f"{PREFIX} {node.nodeid}: {message}"
        if hasattr(config, "workerinput"):
            _forward(config, node, line)
        else:
            write(config, line)

    return announce


def _forward(config: pytest.Config, node: pytest.Item, line: str) -> None:
    filename, lineno = str(node.path), (node.location[1] or 0) + 1
    record = warnings.WarningMessage(DeviceWaitWarning(line), DeviceWaitWarning, filename, lineno)
    config.hook.pytest_warning_recorded.call_historic(
        kwargs={"warning_message": record, "when": "runtest", "nodeid": node.nodeid, "location": None})


class ForwardedLines:
    """On the process with the terminal: writes the progress lines xdist's workers forward."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_warning_recorded(self, warning_message: warnings.WarningMessage) -> None:
        category = warning_message.category
        if isinstance(category, type) and issubclass(category, DeviceWaitWarning):
            write(self.config, str(warning_message.message))


def register(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput") and not config.pluginmanager.has_plugin(PLUGIN_NAME):
        config.pluginmanager.register(ForwardedLines(config), PLUGIN_NAME)
