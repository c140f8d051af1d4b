"""What every part of the interpreter shares: the device's kernel services, the shell's process
and state, its output, and waiting for its children (signals arriving meanwhile become pending
traps)."""

from __future__ import annotations

import contextlib
from typing import TypeVar

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.system import System
from pytest_mobile_agent.virtual.shell import syntax
from pytest_mobile_agent.virtual.shell.state import ShellState

Self = TypeVar("Self", bound="ShellContext")


class ShellContext:
    """One shell (or subshell) running in one process."""

    def __init__(self, system: System, proc: pm.Process, state: ShellState) -> None:
        self.system = system
        self.proc = proc
        self.state = state
        self.pending_traps: list[int] = []
        self.loop_depth = 0

    def subshell(self: Self, child: pm.Process) -> Self:
        """The same interpreter in a forked child, with a copy of this shell's state."""
        return type(self)(self.system, child, self.state.copy_for_subshell())

    def run_in_child(self, node: syntax.ListNode | syntax.AndOr | syntax.Command) -> int:
        """The body of a forked child; the interpreter defines it."""
        raise NotImplementedError

    def err(self, text: str) -> None:
        with contextlib.suppress(OSError, pm.Interrupted):
            self.proc.stderr.write(text)

    def out(self, text: str | bytes) -> None:
        self.proc.stdout.write(text)

    def wait_child(self, child: pm.Process) -> int:
        while True:
            try:
                result = self.proc.wait_for(child)
                return result if result is not None else 0
            except pm.Interrupted as interrupted:
                self.pending_traps.append(interrupted.sig)
