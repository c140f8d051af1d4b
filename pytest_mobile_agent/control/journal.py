"""What a test changed on the device, and how to put each thing back.

Every change first saves the state it replaces, once per thing (`remember(key, undo)`: the second
change of the rotation in a test keeps the first one's undo, which puts back what the test found),
and `restore()` undoes them all, the last change first, at the end of the test. A change of
several steps runs in a `change()`: when a step fails, the steps it had made are undone before the
error goes on, so a refused change leaves nothing half-set.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator

from pytest_mobile_agent.errors import MobileAgentError

log = logging.getLogger("pytest_mobile_agent.control")

Undo = Callable[[], object]


class Journal:
    def __init__(self) -> None:
        self._undo: dict[str, Undo] = {}  # in the order the things were first changed
        self._open: list[list[tuple[str, Undo]]] = []

    def knows(self, key: str) -> bool:
        return key in self._undo or any(key == k for steps in self._open for k, _ in steps)

    def remember(self, key: str, undo: Undo) -> None:
        """How to put `key` back as the test found it (kept from its first change only)."""
        if self.knows(key):
            return
        if self._open:
            self._open[-1].append((key, undo))
        else:
            self._undo[key] = undo

    def forget(self, key: str) -> None:
        """`key` is back as the test found it (an explicit undo by the test)."""
        self._undo.pop(key, None)

    @contextlib.contextmanager
    def change(self) -> Iterator[None]:
        """The steps of one change: all kept when it ends, all undone (last first) when it fails."""
        steps: list[tuple[str, Undo]] = []
        self._open.append(steps)
        try:
            yield
        except BaseException:
            self._open.pop()
            for key, undo in reversed(steps):
                _run(key, undo)
            raise
        self._open.pop()
        target = self._open[-1] if self._open else None
        for key, undo in steps:
            if target is not None:
                target.append((key, undo))
            else:
                self._undo[key] = undo

    def restore(self) -> list[str]:
        """Undo every change, the last first; what could not be put back (each failure's message)."""
        failures = []
        for key, undo in reversed(list(self._undo.items())):
            failure = _run(key, undo)
            if failure is not None:
                failures.append(failure)
        self._undo.clear()
        return failures

    @property
    def keys(self) -> list[str]:
        return list(self._undo)


def _run(key: str, undo: Undo) -> str | None:
    try:
        undo()
    except MobileAgentError as exc:
        log.warning("could not put back %s: %s", key, exc)
        return f"{key}: {exc}"
    return None
