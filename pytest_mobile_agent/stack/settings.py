"""What opening the stack needs to know: the target, the agent, the controller, the app.

The pytest surface fills a `Settings` from its options (`plugin/options.py`), the command-line
tools from their arguments (`Settings.for_target`); the stack reads nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pytest_mobile_agent.agent.records import default_records_dir

VIRTUAL = "virtual"
AUTO = "auto"
DEFAULT_FIXTURE_PACKAGE = "dev.mobileagent.fixture"
DEFAULT_FIXTURE_ACTIVITY = ".MainActivity"
DEFAULT_IDLE_EXIT = 10.0
"""Seconds the agent lingers with no host connected, holding UI automation, before it exits: long
enough for every test and xdist worker of a run to reuse it (a reused attach costs milliseconds, a
launched one about 0.2 s more on an emulator: docs/performance.md), short enough that uiautomator2,
Appium or a person's `uiautomator dump` get the device back seconds after a run, not minutes."""


@dataclass(frozen=True)
class Settings:
    """Everything the stack reads, parsed and checked once by whoever opens it."""

    serials: tuple[str, ...]
    require_device: bool
    emulator_controller: str  # auto, off, or an endpoint URL (never carrying a token)
    agent_jar: Path | None
    agent_force: bool
    records_dir: Path
    quiet_wait: float
    disturbance_runs: int
    virtual_adb: str  # builtin, or real: Debian's adb server with the virtual adbd endpoint attached
    fixture_package: str
    fixture_activity: str
    app_apk: Path | None = None
    app_package: str | None = None
    app_activity: str | None = None
    agent_liveness: float = 3.0
    controller_connect_timeout: float = 2.0
    agent_kill_wait: float = 1.0
    agent_idle_exit: float = DEFAULT_IDLE_EXIT  # seconds the agent lingers with no host before it exits
    lock_wait: float = 900.0  # seconds to wait for another holder of the target's automation lock
    skip_unusable: bool = False  # a named target that cannot be used skips the device tests, not fails the run
    action_timeout: float = 5.0  # seconds an action waits by default for its element (mirror/actionable.py)
    hide_clipboard_toasts: bool = False  # clipboard_show_access_notifications off for the session, then back

    @classmethod
    def for_target(cls, serial: str, **overrides: Any) -> Settings:
        """The settings of a command-line tool on one target: the defaults the plugin's options
        have, required, with no quiet wait and no reruns (a person is watching)."""
        base = cls(serials=(serial,), require_device=True, emulator_controller=AUTO, agent_jar=None,
                   agent_force=False, records_dir=default_records_dir(), quiet_wait=0.0, disturbance_runs=1,
                   virtual_adb="builtin", fixture_package=DEFAULT_FIXTURE_PACKAGE,
                   fixture_activity=DEFAULT_FIXTURE_ACTIVITY)
        return replace(base, **overrides)

    @property
    def named(self) -> bool:
        return bool(self.serials)

    @property
    def virtual_count(self) -> int:
        """How many virtual devices `virtual` / `virtual:N` asks for (0 for real targets)."""
        if len(self.serials) == 1 and self.serials[0].split(":")[0] == VIRTUAL:
            _, _, count = self.serials[0].partition(":")
            return int(count) if count else 1
        return 0
