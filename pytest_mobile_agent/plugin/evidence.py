"""The evidence of one device test, under its policies: the step trace, the video, the end-of-test
screenshot and the step lines, written beside the failure artifacts and named in its reports.

    --android-trace off|on|retain-on-failure        (default retain-on-failure)
    --android-video off|on|retain-on-failure        (default off)
    --android-screenshot off|on|only-on-failure     (default only-on-failure)

When what happens:
* the test's `Steps` are created (fixtures.steps_of): the trace recorder listens from then on;
* the session starts, or the first step does when the test has no session: the video starts, and
  the trace takes its screens from the session (controller frames, else agent screenshots);
* the call phase's report: the body is over (the last action's after-screen), the screenshot under
  its policy, and for a failure the report's sections: the evidence's paths, and with `-v` one line
  per step in "Captured log call";
* the teardown phase's report (before it is made, so JUnit XML and xdist carry its properties):
  the video stopped, the trace written or discarded, each file's path a user property
  (`mobile_agent_trace`, `mobile_agent_video`, `mobile_agent_screenshot`), and pytest-html's and
  allure's attachments when they run.

Nothing here fails a test: a file that cannot be written (full disk, unwritable directory, a killed
encoder) is left out, and the report says what is missing and why (an `EvidenceMissing` warning,
the `mobile_agent_missing` property, and the failure's section).
"""

from __future__ import annotations

import base64
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_mobile_agent import __version__
from pytest_mobile_agent.errors import MobileAgentError
from pytest_mobile_agent.mirror.steps import Steps
from pytest_mobile_agent.plugin import options
from pytest_mobile_agent.plugin.artifacts import ARTIFACTS_KEY, artifact_dir
from pytest_mobile_agent.plugin.trace import BudgetedScreenshots, LiveFrames, TraceRecorder
from pytest_mobile_agent.stack import tracefile
from pytest_mobile_agent.userfiles import write_private

log = logging.getLogger("pytest_mobile_agent.plugin.evidence")

OFF, ON, RETAIN, ONLY_ON_FAILURE = "off", "on", "retain-on-failure", "only-on-failure"
SECTION = "mobile-agent evidence"
STEPS_LOG_SECTION = "Captured log call"


class EvidenceMissing(pytest.PytestWarning):
    """A piece of a test's evidence could not be made or written; the test's outcome is its own."""


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


POLICY_KEY = pytest.StashKey[EvidencePolicy]()


@dataclass
class Evidence:
    """What one test's evidence holds while it runs, and what was written or is missing."""

    policy: EvidencePolicy
    nodeid: str
    worker: str
    recorder: TraceRecorder | None = None
    video: Any = None  # plugin/video.py's ControllerVideo or ScreenRecording
    started: float = field(default_factory=time.time)
    failed: bool = False
    failure: str | None = None
    body_over: bool = False
    screen_attached: bool = False
    written: dict[str, Path] = field(default_factory=dict)
    missing: list[tuple[str, str]] = field(default_factory=list)
    video_facts: dict[str, Any] | None = None
    detach: list[Any] = field(default_factory=list)  # the calls that remove our listeners from the steps

    def name(self, stem: str, extension: str) -> str:
        """`trace.zip`; under xdist `trace-gw1.zip`, so workers never write the same file."""
        return f"{stem}-{self.worker}.{extension}" if self.worker else f"{stem}.{extension}"


EVIDENCE_KEY = pytest.StashKey[Evidence]()


def policy_of(config: pytest.Config) -> EvidencePolicy:
    if POLICY_KEY not in config.stash:
        config.stash[POLICY_KEY] = EvidencePolicy.from_config(config)
    return config.stash[POLICY_KEY]


def evidence_of(item: pytest.Item) -> Evidence:
    if EVIDENCE_KEY not in item.stash:
        workerinput = getattr(item.config, "workerinput", None)
        worker = str(workerinput.get("workerid", "")) if workerinput else ""
        item.stash[EVIDENCE_KEY] = Evidence(policy_of(item.config), item.nodeid, worker)
    return item.stash[EVIDENCE_KEY]


# --- while the test runs (called by the fixtures) -------------------------------------------------


def attach(item: pytest.Item, steps: Steps) -> None:
    """The test's steps exist: the trace (when kept in any case) and the step lines listen to them."""
    evidence = evidence_of(item)
    if evidence.recorder is not None:
        return
    evidence.recorder = TraceRecorder()
    evidence.detach = [steps.add_listener(evidence.recorder), steps.add_listener(_FirstStep(item))]


class _FirstStep:
    """Starts the video at the first step of a test without a session (an `app`-only test)."""

    def __init__(self, item: pytest.Item) -> None:
        self.item = item

    def step_started(self, step: Any) -> None:
        evidence = evidence_of(self.item)
        if evidence.video is None and evidence.policy.video != OFF and not evidence.body_over:
            sources = self.item.stash.get(ARTIFACTS_KEY, None)
            if sources is not None and sources.device is not None:
                _start_video(self.item, evidence, session=None, device=sources.device)

    def step_ended(self, step: Any) -> None:
        pass


def session_started(item: pytest.Item, session: Any, device: Any) -> None:
    """The session is up: the trace's screens come from it, and the video starts."""
    evidence = evidence_of(item)
    if evidence.policy.video != OFF and evidence.video is None:
        _start_video(item, evidence, session=session, device=device)


def screen_opened(item: pytest.Item, steps: Steps, session: Any, screen: Any, api_level: int | None) -> None:
    """The screen is up: the trace's tree of each step is its replica, its screens the session's;
    its snapshots' baselines are the test module's for this device profile."""
    attach(item, steps)
    evidence = evidence_of(item)
    screen.snapshot_settings = snapshot_settings(item, evidence, api_level)
    recorder = evidence.recorder
    if recorder is None or evidence.screen_attached or evidence.policy.trace == OFF:
        return
    evidence.screen_attached = True
    recorder.view = lambda: screen.current_view
    if session.controller is not None:
        recorder.screen = LiveFrames(session.frames.observe)
    else:
        recorder.screen = BudgetedScreenshots(lambda: session.screenshot("jpeg").data)


def snapshot_settings(item: pytest.Item, evidence: Evidence, api_level: int | None) -> Any:
    """Baselines beside the test module, `__snapshots__/<module>/<profile>/`; a mismatch's images
    beside the test's artifacts."""
    from pytest_mobile_agent.mirror.snapshots import SnapshotSettings

    module = Path(str(getattr(item, "path", Path.cwd() / "test")))
    return SnapshotSettings(directory=module.parent / "__snapshots__" / module.stem,
                            output=lambda: artifact_dir(item.config, item.nodeid),
                            update=evidence.policy.update_snapshots, api_level=api_level)


def _start_video(item: pytest.Item, evidence: Evidence, session: Any, device: Any) -> None:
    from pytest_mobile_agent.plugin import video

    try:
        evidence.video = video.start(evidence.policy.video_format, session=session, device=device)
    except (MobileAgentError, OSError) as exc:
        evidence.missing.append(("video", str(exc)))
        evidence.video = False  # tried: not again for this test


# --- the reports (called by hooks.pytest_runtest_makereport) --------------------------------------


def setup_reported(item: pytest.Item, report: pytest.TestReport) -> None:
    """A setup that failed keeps the evidence as a failed call does."""
    evidence = item.stash.get(EVIDENCE_KEY, None)
    if evidence is not None and report.failed:
        evidence.failed = True
        evidence.failure = report.longreprtext.strip().splitlines()[-1][:500] if report.longreprtext else None
        if evidence.recorder is not None:
            evidence.recorder.body_ended(True)
        evidence.body_over = True


def call_reported(item: pytest.Item, report: pytest.TestReport, failure: BaseException | None) -> None:
    """The test's body is over: the last screens, the screenshot, and a failure's sections."""
    evidence = item.stash.get(EVIDENCE_KEY, None)
    failed = report.failed
    if evidence is None:
        if not failed or item.stash.get(ARTIFACTS_KEY, None) is None:
            return
        evidence = evidence_of(item)
    evidence.body_over = True
    if failed:
        evidence.failed = True
        evidence.failure = report.longreprtext.strip().splitlines()[-1][:500] if report.longreprtext else None
    if evidence.recorder is not None:
        evidence.recorder.body_ended(failed)
    if evidence.policy.screenshot == ON and not failed:
        _screenshot(item, evidence)
    if failed:
        _failure_sections(item, report, evidence)
        _snapshot_sections(report, failure)


def _snapshot_sections(report: pytest.TestReport, failure: BaseException | None) -> None:
    """A snapshot mismatch's expected, actual and diff images: their paths, and pytest-html's images."""
    images = getattr(failure, "images", None)
    if not isinstance(images, dict):
        return
    _append_section(report, "mobile-agent snapshot", "\n".join(f"{kind}: {path}" for kind, path in images.items()))
    try:
        from pytest_html import extras  # type: ignore[import-not-found]
    except ImportError:
        return
    added = []
    for kind, path in images.items():
        try:
            added.append(extras.png(base64.b64encode(path.read_bytes()).decode("ascii"), name=f"snapshot {kind}"))
        except OSError:
            continue
    report.extras = [*getattr(report, "extras", []), *added]  # type: ignore[attr-defined]


def _screenshot(item: pytest.Item, evidence: Evidence) -> None:
    """A passing test's screenshot under `--android-screenshot on` (a failing one's is the artifacts')."""
    sources = item.stash.get(ARTIFACTS_KEY, None)
    if sources is None or sources.session is None:
        return
    try:
        png = sources.session.screenshot("png").data
        path = _write(item, evidence, "screenshot", "png", png)
    except (MobileAgentError, OSError) as exc:
        evidence.missing.append(("screenshot", str(exc)))
        return
    evidence.written["screenshot"] = path


def _failure_sections(item: pytest.Item, report: pytest.TestReport, evidence: Evidence) -> None:
    if item.config.option.verbose > 0 and evidence.recorder is not None and evidence.recorder.lines:
        _append_section(report, STEPS_LOG_SECTION, "\n".join(evidence.recorder.lines))
    planned = []
    if evidence.policy.keeps(evidence.policy.trace, True) and evidence.recorder is not None:
        planned.append(f"trace: {_planned(item, evidence, 'trace', 'zip')} (show-trace opens it)")
    if evidence.video:
        planned.append(f"video: {_planned(item, evidence, 'video', evidence.video.extension)}")
    if planned:
        _append_section(report, SECTION, "\n".join(planned) + "\n(written after the test's teardown)")


def teardown_reporting(item: pytest.Item) -> None:
    """Before the teardown report is made: stop the video, write or discard the trace, and name the
    files in the test's properties (JUnit XML), pytest-html's extras and allure's attachments."""
    evidence = item.stash.get(EVIDENCE_KEY, None)
    if evidence is None:
        return
    for detach in evidence.detach:
        detach()
    failed = evidence.failed
    _finish_video(item, evidence, failed)
    _finish_trace(item, evidence, failed)
    screenshot = _artifact_screenshot(item)
    if screenshot is not None:
        evidence.written.setdefault("screenshot", screenshot)
    for what, path in evidence.written.items():
        item.user_properties.append((f"mobile_agent_{what}", str(path)))
    for what, why in evidence.missing:
        item.user_properties.append(("mobile_agent_missing", f"{what}: {why}"))
        item.warn(EvidenceMissing(f"the {what} of {item.nodeid} is missing: {why}"))
    _attach_to_allure(evidence)


def teardown_reported(item: pytest.Item, report: pytest.TestReport) -> None:
    """pytest-html shows a test's extras from each of its reports: the trace and video links, on the
    teardown's (the call's report went out before they were written). The test's evidence is done:
    a run again (a disturbed test's retry) starts its own."""
    evidence = item.stash.get(EVIDENCE_KEY, None)
    if evidence is None:
        return
    del item.stash[EVIDENCE_KEY]
    if not evidence.written:
        return
    try:
        from pytest_html import extras  # type: ignore[import-not-found]
    except ImportError:
        return
    added = []
    for what in ("trace", "video"):
        if what in evidence.written:
            added.append(extras.url(evidence.written[what].as_uri(), name=what))
    if "screenshot" in evidence.written and not evidence.failed:  # a failure's is attached with the artifacts
        data = evidence.written["screenshot"].read_bytes()
        added.append(extras.png(base64.b64encode(data).decode("ascii"), name="screenshot"))
    report.extras = [*getattr(report, "extras", []), *added]  # type: ignore[attr-defined]


def _finish_video(item: pytest.Item, evidence: Evidence, failed: bool) -> None:
    video = evidence.video
    if not video:
        return
    keep = evidence.policy.keeps(evidence.policy.video, failed)
    try:
        path = artifact_dir(item.config, item.nodeid) / evidence.name("video", video.extension) if keep else None
        result = video.finish(path)
    except (MobileAgentError, OSError) as exc:
        evidence.missing.append(("video", str(exc)))
        return
    for note in result.notes:
        evidence.missing.append(("video", note))
    if keep and result.written:
        evidence.written["video"] = path  # type: ignore[assignment]
        evidence.video_facts = result.facts


def _finish_trace(item: pytest.Item, evidence: Evidence, failed: bool) -> None:
    recorder = evidence.recorder
    if recorder is None:
        return
    recorder.close()
    if not evidence.policy.keeps(evidence.policy.trace, failed):
        return
    test = {"nodeid": item.nodeid, "outcome": "failed" if failed else "passed", "worker": evidence.worker or "main",
            "started": evidence.started, "ended": time.time(), "failure": evidence.failure,
            "generator": f"pytest-mobile-agent {__version__}"}
    extra = {"logcat": _logcat(item), "status": _status(item), "missing": [], "video": None}
    if "video" in evidence.written and evidence.video_facts is not None:
        extra["video"] = {"file": evidence.written["video"].name, **evidence.video_facts}
    try:
        document, files = recorder.build(test, extra)
        document["missing"] = [{"what": what, "why": why} for what, why in evidence.missing]
        path = artifact_dir(item.config, item.nodeid) / evidence.name("trace", "zip")
        tracefile.write_trace(path, document, files)
    except (MobileAgentError, OSError, ValueError) as exc:
        evidence.missing.append(("trace", str(exc)))
        return
    evidence.written["trace"] = path


def _logcat(item: pytest.Item) -> list[dict[str, Any]]:
    """The test's logcat lines (the artifacts' cut), each with its time on the host's clock."""
    sources = item.stash.get(ARTIFACTS_KEY, None)
    if sources is None or sources.device is None:
        return []
    from pytest_mobile_agent.plugin.artifacts import logcat_text
    from pytest_mobile_agent.plugin.logtimes import timed_lines

    try:
        return timed_lines(logcat_text(sources), sources.device)
    except (MobileAgentError, OSError, ValueError) as exc:
        log.debug("no logcat for the trace: %s", exc)
        return []


def _status(item: pytest.Item) -> list[str]:
    sources = item.stash.get(ARTIFACTS_KEY, None)
    if sources is None or sources.session is None:
        return []
    try:
        return list(sources.session.status())
    except (MobileAgentError, OSError) as exc:
        return [f"the status is not known: {exc}"]


def _artifact_screenshot(item: pytest.Item) -> Path | None:
    sources = item.stash.get(ARTIFACTS_KEY, None)
    if sources is None:
        return None
    return next((path for path in sources.written if path.suffix == ".png"), None)


def _attach_to_allure(evidence: Evidence) -> None:
    """allure-pytest's public API, when it runs: the screenshot, the trace and the video."""
    try:
        import allure
    except ImportError:
        return
    kinds = {"screenshot": allure.attachment_type.PNG, "video": allure.attachment_type.MP4,
             "trace": allure.attachment_type.TEXT}
    for what, path in evidence.written.items():
        try:
            if what == "trace":
                allure.attach(str(path), name="trace (python -m pytest_mobile_agent show-trace PATH)",
                              attachment_type=allure.attachment_type.TEXT)
            elif what == "video" and path.suffix == ".webm":
                allure.attach.file(str(path), name=what, attachment_type=allure.attachment_type.WEBM)
            else:
                allure.attach.file(str(path), name=what, attachment_type=kinds[what])
        except Exception as exc:  # noqa: BLE001 - another plugin's failure is never the test's
            log.debug("allure did not take the %s: %s", what, exc)


def _planned(item: pytest.Item, evidence: Evidence, stem: str, extension: str) -> str:
    try:
        return str(artifact_dir(item.config, item.nodeid) / evidence.name(stem, extension))
    except (MobileAgentError, OSError) as exc:
        return f"(none: {exc})"


def _write(item: pytest.Item, evidence: Evidence, stem: str, extension: str, data: bytes) -> Path:
    path = artifact_dir(item.config, item.nodeid) / evidence.name(stem, extension)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.partial")
    write_private(temporary, data)
    os.replace(temporary, path)
    return path


def _append_section(report: pytest.TestReport, title: str, text: str) -> None:
    for index, (name, content) in enumerate(report.sections):
        if name == title:
            report.sections[index] = (name, content.rstrip("\n") + "\n" + text + "\n")
            return
    report.sections.append((title, text + "\n"))
