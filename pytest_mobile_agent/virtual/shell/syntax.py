"""The shell language's syntax: the tree the parser builds, and the error it raises."""

from __future__ import annotations

from pytest_mobile_agent import errors


class ShellSyntaxError(errors.MobileAgentError):
    """The device's shell could not parse a command line; the message is the shell's."""
