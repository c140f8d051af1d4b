"""The run record of one device test: one stash key holding everything the test's policies read.

    the steps          every call on the screens, the elements, the app handles and the device controls
    per target         its artifact sources (device, session, screen, app, logcat cut, crash cut) and its
                       disturbance watch, in the order the targets were taken
    the evidence       the trace recorder, the videos, what was written and what is missing
    the status lines   each target's session and device-state status, for the run's summary

The fixtures create it and the opener's hooks (`RunHooks`, stack/opener.py's `OpenerHooks`) fill it in
as each target's parts open, the same way for one target and for several; the artifacts
(artifacts.py), the reruns (reruns.py) and the evidence (evidence.py) read it. A run again (a
disturbed test's retry) starts a record of its own.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.control.app_under_test import AppUnderTest, last_crash_line
from pytest_mobile_agent.errors import MobileAgentError
from pytest_mobile_agent.evidence.trace import TraceRecorder
from pytest_mobile_agent.evidence.video import Recording
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.mirror.steps import Steps
from pytest_mobile_agent.plugin import options
from pytest_mobile_agent.plugin.policy import DisturbanceWatch, Verdict
from pytest_mobile_agent.session import Session
from pytest_mobile_agent.web.content import WebContent

log = logging.getLogger("pytest_mobile_agent.plugin.run")

DEVICE_TIME_COMMAND = "date +'%m-%d %H:%M:%S.000'"
OFF, ON, RETAIN, ONLY_ON_FAILURE = "off", "on", "retain-on-failure", "only-on-failure"


@dataclass
class ArtifactSources:
    """What one target of a test put in reach for its failure artifacts: filled in as its parts open."""

    device: Device | None = None
    session: Session | None = None
    screen: Mirror | None = None
    app: AppUnderTest | None = None  # the app under test's handle: its crash buffer goes with the artifacts
    web: WebContent | None = None  # the web pages attached: their url, console and HTML go with the artifacts
    logcat_since: str | None = None
    crash_after: str | None = None  # the crash buffer's last line before this run
    written: list[Path] = field(default_factory=list)
    screenshot_wanted: bool = True  # --android-screenshot: off leaves it out
    logcat_read: str | None = None  # the test's logcat, once read (the artifacts and the trace share it)

    def mark_start(self, device: Device) -> None:
        """Remember the device's clock and the crash buffer's last line, so the logcat and the
        crashes of this run can be cut from the rest."""
        self.device = device
        try:
            self.logcat_since = device.shell(DEVICE_TIME_COMMAND).text().strip() or None
            self.crash_after = last_crash_line(device)
        except MobileAgentError as exc:
            log.debug("no device time or crash buffer for the cut: %s", exc)


@dataclass
class TargetRecord:
    """One target of the test: its label, its place among the test's targets, and what it keeps."""

    label: str
    serial: str
    index: int
    artifacts: ArtifactSources = field(default_factory=ArtifactSources)
    watch: DisturbanceWatch | None = None

    def file_stem(self, stem: str) -> str:
        """`screenshot` for the test's first target, `screenshot-emulator-5556` for another: each
        target's files side by side in the test's folder."""
        if self.index == 0:
            return stem
        return f"{stem}-{''.join(c if c.isalnum() or c in '.-_' else '_' for c in self.serial)}"


@dataclass(frozen=True)
class EvidencePolicy:
    trace: str = RETAIN
    video: str = OFF
    video_format: str = "mp4"
    screenshot: str = ONLY_ON_FAILURE
    update_snapshots: bool = False

    @classmethod
    def from_config(cls, config: pytest.Config) -> EvidencePolicy:
        return cls(trace=options.choice(config, "android_trace"), video=options.choice(config, "android_video"),
                   video_format=options.choice(config, "android_video_format"),
                   screenshot=options.choice(config, "android_screenshot"),
                   update_snapshots=options.flag(config, "android_update_snapshots"))

    def keeps(self, mode: str, failed: bool) -> bool:
        return mode == ON or (failed and mode in (RETAIN, ONLY_ON_FAILURE))


@dataclass
class Evidence:
    """What one test's evidence holds while it runs, and what was written or is missing."""

    policy: EvidencePolicy
    nodeid: str
    worker: str
    recorder: TraceRecorder | None = None
    videos: dict[str, Recording | bool] = field(default_factory=dict)
    """Per target label, evidence/video.py's recording, or False when it could not start (not tried again)."""
    started: float = field(default_factory=time.time)
    failed: bool = False
    failure: str | None = None
    body_over: bool = False
    screens_attached: set[str] = field(default_factory=set)
    written: dict[str, Path] = field(default_factory=dict)
    missing: list[tuple[str, str]] = field(default_factory=list)
    video_facts: dict[str, dict[str, object]] = field(default_factory=dict)
    detach: list[Callable[[], None]] = field(default_factory=list)  # removes our listeners from the steps
    web_traces: list[dict[str, object]] = field(default_factory=list)  # Playwright's traces kept (web_evidence)

    def name(self, stem: str, extension: str) -> str:
        """`trace.zip`; under xdist `trace-gw1.zip`, so workers never write the same file."""
        return f"{stem}-{self.worker}.{extension}" if self.worker else f"{stem}.{extension}"


@dataclass
class TestRun:
    """The record of one run of one test."""

    __test__ = False  # not a test class, whatever pytest's collection thinks of the name

    steps: Steps
    evidence: Evidence
    targets: list[TargetRecord] = field(default_factory=list)
    statuses: dict[str, list[str]] = field(default_factory=dict)

    def target(self, label: str, serial: str) -> TargetRecord:
        """The record of the target `label` (its serial on its adb server), made on its first mention, in
        the order targets come."""
        for record in self.targets:
            if record.label == label:
                return record
        record = TargetRecord(label, serial, len(self.targets))
        self.targets.append(record)
        return record

    @property
    def first(self) -> TargetRecord | None:
        return self.targets[0] if self.targets else None

    def verdict(self) -> Verdict:
        """Whether any of the test's targets was disturbed (the first evidence found), else the
        test's own failure with its reason, else nothing."""
        own: str | None = None
        for record in self.targets:
            if record.watch is None:
                continue
            verdict = record.watch.verdict()
            if verdict.disturbance:
                prefix = f"{record.serial}: " if len(self.targets) > 1 else ""
                return Verdict(disturbance=prefix + verdict.disturbance)
            own = own or verdict.own
        return Verdict(own=own)


RUN_KEY = pytest.StashKey[TestRun]()
POLICY_KEY = pytest.StashKey[EvidencePolicy]()


def policy_of(config: pytest.Config) -> EvidencePolicy:
    if POLICY_KEY not in config.stash:
        config.stash[POLICY_KEY] = EvidencePolicy.from_config(config)
    return config.stash[POLICY_KEY]


def run_of(item: pytest.Item) -> TestRun:
    """The test's run record, made on first use."""
    if RUN_KEY not in item.stash:
        workerinput = getattr(item.config, "workerinput", None)
        worker = str(workerinput.get("workerid", "")) if workerinput else ""
        item.stash[RUN_KEY] = TestRun(Steps(), Evidence(policy_of(item.config), item.nodeid, worker))
    return item.stash[RUN_KEY]


def current_run(item: pytest.Item) -> TestRun | None:
    """The test's run record if a fixture of ours made one."""
    return item.stash.get(RUN_KEY, None)


def end_run(item: pytest.Item) -> None:
    """The test's run is over (its teardown reported): a run again starts a record of its own."""
    if RUN_KEY in item.stash:
        del item.stash[RUN_KEY]

