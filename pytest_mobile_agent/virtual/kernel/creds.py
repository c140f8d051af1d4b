"""Credentials: who a file-system or socket operation runs as.

A `Cred` is what the kernel checks a permission against: the uid, the supplementary groups, and the
pid (for `/proc/self` and `/dev/tty`). The shell user (uid 2000) carries the groups adbd's shell
has on the API 36 emulator (`id` lists them); root has group 0 alone; an app's uid is its own group.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.kernel.process import Process

SHELL_GROUPS = frozenset({2000, 1004, 1007, 1011, 1015, 1028, 3001, 3002, 3003, 3006, 3009, 3011, 9997})


@dataclass(frozen=True)
class Cred:
    """Who asks: uid, groups, and the pid (for /proc/self and /dev/tty)."""

    uid: int
    groups: frozenset[int] = SHELL_GROUPS
    pid: int = 0

    @property
    def root(self) -> bool:
        return self.uid == 0


ROOT = Cred(0, frozenset({0}), 0)


def cred_of(proc: Process) -> Cred:
    """The credentials a process's file operations run with."""
    groups = frozenset({0}) if proc.uid == 0 else SHELL_GROUPS if proc.uid == 2000 else frozenset({proc.uid})
    return Cred(proc.uid, groups, proc.pid)
