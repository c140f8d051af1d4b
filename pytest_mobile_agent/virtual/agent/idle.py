"""The bounded idle wait (the Java agent's `core/IdleTracker`): a snapshot waits until nothing
happened for `idle_quiet_ms` (an accessibility event or the agent's own action), or until
`idle_timeout_ms` passed."""

from __future__ import annotations

import math
import time
from typing import Any

from pytest_mobile_agent.virtual.agent.platform import Gate
from pytest_mobile_agent.virtual.ui import UiModel


class IdleTracker:
    def __init__(self, ui: UiModel, gate: Gate) -> None:
        self.ui = ui
        self.gate = gate
        self.last_activity_ms = 0.0  # last accessibility event or own action (monotonic ms)
        self.last_own_input_ms = -math.inf

    def note_activity(self) -> None:
        self.last_activity_ms = time.monotonic() * 1000.0

    def note_own_input(self) -> None:
        now = time.monotonic() * 1000.0
        self.last_activity_ms = now
        self.last_own_input_ms = now

    def own_input_within(self, ms: float) -> bool:
        return time.monotonic() * 1000.0 < self.last_own_input_ms + ms

    def wait(self, timeout_ms: int, quiet_ms: int, deadline: float) -> dict[str, Any]:
        start = time.monotonic()
        if timeout_ms <= 0:
            return {"waited_ms": 0, "idle": self.quiet_for(quiet_ms)}
        end = min(start + timeout_ms / 1000.0, deadline - 0.02)
        while True:
            self.ui.advance()
            now = time.monotonic()
            quiet_left = (self.last_activity_ms + quiet_ms) / 1000.0 - now
            if quiet_left <= 0:
                return {"waited_ms": round((now - start) * 1000), "idle": True}
            if now >= end:
                return {"waited_ms": round((now - start) * 1000), "idle": False}
            due = (self.ui.next_due_ms() - self.ui.now_ms()) / 1000.0
            self.gate.sleep_until(now + max(0.001, min(quiet_left, end - now, due)))

    def quiet_for(self, quiet_ms: int) -> bool:
        return time.monotonic() * 1000.0 - self.last_activity_ms >= quiet_ms
