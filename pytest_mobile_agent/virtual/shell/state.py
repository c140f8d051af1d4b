"""The state of a running shell: its variables, positional parameters, traps and functions, and
the control flow its builtins raise (`break`/`continue`, `return`, `exit`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.shell import syntax

SHELL_PATH = "/system/bin/sh"


class LoopControl(Exception):  # noqa: N818 - control flow: break / continue
    def __init__(self, kind: str, levels: int) -> None:
        super().__init__(kind)
        self.kind = kind
        self.levels = levels


class FunctionReturn(Exception):  # noqa: N818 - control flow: return from a function
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class ExitShell(Exception):  # noqa: N818 - control flow
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


@dataclass
class ShellState:
    """What a subshell copies: variables, exports, positional parameters, traps."""

    name: str = SHELL_PATH
    vars: dict[str, str] = field(default_factory=dict)
    exported: set[str] = field(default_factory=set)
    positional: list[str] = field(default_factory=list)
    last_status: int = 0
    last_bg: int | None = None
    shell_pid: int = 0
    traps: dict[int, str] = field(default_factory=dict)  # 0 is EXIT; only commands, not ignores
    children: list[pm.Process] = field(default_factory=list)
    cmdsub_status: int | None = None  # the status of the last $(...) of the current command
    functions: dict[str, syntax.Command] = field(default_factory=dict)

    def copy_for_subshell(self) -> ShellState:
        return ShellState(
            name=self.name,
            vars=dict(self.vars),
            exported=set(self.exported),
            positional=list(self.positional),
            last_status=self.last_status,
            last_bg=self.last_bg,
            shell_pid=self.shell_pid,
            traps={},
            functions=dict(self.functions),
        )

    def environ(self) -> dict[str, str]:
        return {k: self.vars[k] for k in self.exported if k in self.vars}
