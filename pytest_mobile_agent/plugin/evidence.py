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
from pathlib import Path

import pytest

from pytest_mobile_agent import __version__
from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.errors import MobileAgentError
from pytest_mobile_agent.evidence import tracefile
from pytest_mobile_agent.evidence.trace import BudgetedScreenshots, LiveFrames, ScreenSource, TraceRecorder
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.mirror.snapshots import SnapshotSettings
from pytest_mobile_agent.mirror.steps import Step
from pytest_mobile_agent.plugin import web_evidence
from pytest_mobile_agent.plugin.artifacts import artifact_dir, report_path
from pytest_mobile_agent.plugin.run import (
    OFF,
    ON,
    ONLY_ON_FAILURE,
    RETAIN,
    Evidence,
    EvidencePolicy,
    TargetRecord,
    TestRun,
    current_run,
    end_run,
    policy_of,
    run_of,
)
from pytest_mobile_agent.session import Session
from pytest_mobile_agent.userfiles import write_private

log = logging.getLogger("pytest_mobile_agent.plugin.evidence")

__all__ = ["OFF", "ON", "ONLY_ON_FAILURE", "RETAIN", "Evidence", "EvidenceMissing", "EvidencePolicy", "policy_of"]
SECTION = "mobile-agent evidence"
STEPS_LOG_SECTION = "Captured log call"


class EvidenceMissing(pytest.PytestWarning):
    """A piece of a test's evidence could not be made or written; the test's outcome is its own."""


def evidence_of(item: pytest.Item) -> Evidence:
    return run_of(item).evidence


# --- while the test runs (called by the run record's hooks, plugin/opening.py) -------------------


def attach(item: pytest.Item) -> None:
    """The test's steps exist: the trace (when kept in any case) and the step lines listen to them."""
    run = run_of(item)
    evidence = run.evidence
    if evidence.recorder is not None:
        return
    evidence.recorder = TraceRecorder()
    evidence.recorder.root = item.config.rootpath
    evidence.detach = [run.steps.add_listener(evidence.recorder), run.steps.add_listener(_FirstStep(item))]


class _FirstStep:
    """Starts the video at the first step of a test without a session (an `app`-only test)."""

    def __init__(self, item: pytest.Item) -> None:
        self.item = item

    def step_started(self, step: Step) -> None:
        run = run_of(self.item)
        first = run.first
        evidence = run.evidence
        if first is None or first.artifacts.device is None or evidence.policy.video == OFF or evidence.body_over:
            return
        if first.label not in evidence.videos:
            _start_video(evidence, first, session=None, device=first.artifacts.device)

    def step_ended(self, step: Step) -> None:
        pass


def session_started(item: pytest.Item, target: TargetRecord, session: Session, device: Device) -> None:
    """A target's session is up: its video starts."""
    evidence = run_of(item).evidence
    if evidence.policy.video != OFF and target.label not in evidence.videos:
        _start_video(evidence, target, session=session, device=device)


def screen_opened(item: pytest.Item, target: TargetRecord, session: Session, screen: Mirror,
                  api_level: int | None) -> None:
    """A target's screen is up: the trace's tree of each of its steps is its replica, its screens the
    session's; its snapshots' baselines are the test module's for this device profile."""
    attach(item)
    evidence = run_of(item).evidence
    screen.snapshot_settings = snapshot_settings(item, api_level)
    recorder = evidence.recorder
    if recorder is None or target.label in evidence.screens_attached or evidence.policy.trace == OFF:
        return
    evidence.screens_attached.add(target.label)
    source: ScreenSource
    if session.controller is not None:
        source = LiveFrames(session.frames.observe)
    else:
        source = BudgetedScreenshots(lambda: session.screenshot("jpeg").data)
    recorder.add_screen(target.label, source, lambda: screen.current_view)


def snapshot_settings(item: pytest.Item, api_level: int | None) -> SnapshotSettings:
    """Baselines beside the test module, `__snapshots__/<module>/<profile>/`; a mismatch's images
    beside the test's artifacts."""
    evidence = run_of(item).evidence
    module = Path(str(getattr(item, "path", Path.cwd() / "test")))
    return SnapshotSettings(directory=module.parent / "__snapshots__" / module.stem,
                            output=lambda: artifact_dir(item.config, item.nodeid),
                            update=evidence.policy.update_snapshots, api_level=api_level)


def _start_video(evidence: Evidence, target: TargetRecord, session: Session | None, device: Device) -> None:
    from pytest_mobile_agent.evidence import video

    try:
        evidence.videos[target.label] = video.start(evidence.policy.video_format, session=session, device=device)
    except (MobileAgentError, OSError) as exc:
        evidence.missing.append((target.file_stem("video"), str(exc)))
        evidence.videos[target.label] = False  # tried: not again for this test


# --- the reports (called by hooks.pytest_runtest_makereport) --------------------------------------


def setup_reported(item: pytest.Item, report: pytest.TestReport) -> None:
    """A setup that failed keeps the evidence as a failed call does."""
    run = current_run(item)
    if run is not None and report.failed:
        evidence = run.evidence
        evidence.failed = True
        evidence.failure = _failure_line(report)
        if evidence.recorder is not None:
            evidence.recorder.body_ended(True)
        evidence.body_over = True


def _failure_line(report: pytest.TestReport) -> str | None:
    """What failed, as the trace's viewer shows it: the failure's own message (a plain `assert`'s
    comparison, an error's text) at the test's line, else the report's last line."""
    crash = getattr(report.longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    if crash is not None and isinstance(message, str) and message.strip():
        where = f"{Path(str(crash.path)).name}:{crash.lineno}: " if getattr(crash, "path", None) else ""
        return (where + message.strip())[:2000]
    return report.longreprtext.strip().splitlines()[-1][:500] if report.longreprtext else None


def call_reported(item: pytest.Item, report: pytest.TestReport, failure: BaseException | None) -> None:
    """The test's body is over: the last screens, the screenshot, and a failure's sections."""
    run = current_run(item)
    if run is None:
        return
    evidence = run.evidence
    failed = report.failed
    evidence.body_over = True
    if failed:
        evidence.failed = True
        evidence.failure = _failure_line(report)
    if evidence.recorder is not None:
        evidence.recorder.body_ended(failed)
    if evidence.policy.screenshot == ON and not failed:
        _screenshots(item, run)
    if failed:
        _failure_sections(item, report, run)
        _snapshot_sections(report, failure)
    web_evidence.body_ended(run)


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


def _screenshots(item: pytest.Item, run: TestRun) -> None:
    """A passing test's screenshot of each target under `--android-screenshot on` (a failing one's are
    the artifacts')."""
    for target in run.targets:
        session = target.artifacts.session
        if session is None:
            continue
        stem = target.file_stem("screenshot")
        try:
            path = _write(item, run.evidence, stem, "png", session.screenshot("png").data)
        except (MobileAgentError, OSError) as exc:
            run.evidence.missing.append((stem, str(exc)))
            continue
        run.evidence.written[stem] = path


def _failure_sections(item: pytest.Item, report: pytest.TestReport, run: TestRun) -> None:
    evidence = run.evidence
    if item.config.option.verbose > 0 and evidence.recorder is not None and evidence.recorder.lines:
        _append_section(report, STEPS_LOG_SECTION, "\n".join(evidence.recorder.lines))
    planned = []
    if evidence.policy.keeps(evidence.policy.trace, True) and evidence.recorder is not None:
        planned.append(f"trace: {_planned(item, evidence, 'trace', 'zip')} (show-trace opens it)")
    for target in run.targets:
        recording = evidence.videos.get(target.label)
        if recording:
            stem = target.file_stem("video")
            planned.append(f"{stem}: {_planned(item, evidence, stem, getattr(recording, 'extension', 'mp4'))}")
    if planned:
        _append_section(report, SECTION, "\n".join(planned) + "\n(written after the test's teardown)")


def teardown_reporting(item: pytest.Item) -> None:
    """Before the teardown report is made: stop the videos, write or discard the trace, and name the
    files in the test's properties (JUnit XML), pytest-html's extras and allure's attachments."""
    run = current_run(item)
    if run is None:
        return
    evidence = run.evidence
    for detach in evidence.detach:
        detach()
    evidence.detach = []
    failed = evidence.failed
    for target in run.targets:
        _finish_video(item, evidence, target, failed)
    web_evidence.finish(run, failed, lambda: artifact_dir(item.config, item.nodeid))
    _finish_trace(item, run, failed)
    for target in run.targets:
        screenshot = next((path for path in target.artifacts.written if path.suffix == ".png"), None)
        if screenshot is not None:
            evidence.written.setdefault(target.file_stem("screenshot"), screenshot)
    junit = getattr(item.config.option, "xmlpath", None)
    for what, path in evidence.written.items():
        item.user_properties.append((f"mobile_agent_{what}", report_path(item.config, path, junit)))
    for what, why in evidence.missing:
        item.user_properties.append(("mobile_agent_missing", f"{what}: {why}"))
        item.warn(EvidenceMissing(f"the {what} of {item.nodeid} is missing: {why}"))
    _attach_to_allure(evidence, _snapshot_images(run))


def teardown_reported(item: pytest.Item, report: pytest.TestReport) -> None:
    """pytest-html shows a test's extras from each of its reports: the trace and video links, on the
    teardown's (the call's report went out before they were written). The test's run is done: a run
    again (a disturbed test's retry) starts a record of its own."""
    run = current_run(item)
    if run is None:
        return
    end_run(item)
    evidence = run.evidence
    if not evidence.written:
        return
    try:
        from pytest_html import extras  # type: ignore[import-not-found]
    except ImportError:
        return
    added = []
    html = getattr(item.config.option, "htmlpath", None)
    for what, path in evidence.written.items():
        if what == "trace" or what.startswith("video"):
            added.append(extras.url(report_path(item.config, path, html) if html else path.as_uri(), name=what))
        elif what.startswith("screenshot") and not evidence.failed:  # a failure's is attached with the artifacts
            added.append(extras.png(base64.b64encode(path.read_bytes()).decode("ascii"), name=what))
    report.extras = [*getattr(report, "extras", []), *added]  # type: ignore[attr-defined]


def _finish_video(item: pytest.Item, evidence: Evidence, target: TargetRecord, failed: bool) -> None:
    recording = evidence.videos.get(target.label)
    if not recording or recording is True:
        return
    stem = target.file_stem("video")
    keep = evidence.policy.keeps(evidence.policy.video, failed)
    try:
        path = artifact_dir(item.config, item.nodeid) / evidence.name(stem, recording.extension) if keep else None
        result = recording.finish(path)
    except (MobileAgentError, OSError) as exc:
        evidence.missing.append((stem, str(exc)))
        return
    for note in result.notes:
        evidence.missing.append((stem, note))
    if keep and result.written and path is not None:
        evidence.written[stem] = path
        evidence.video_facts[target.label] = {"file": path.name, **result.facts}


def _finish_trace(item: pytest.Item, run: TestRun, failed: bool) -> None:
    evidence = run.evidence
    recorder = evidence.recorder
    if recorder is None:
        return
    recorder.close()
    if not evidence.policy.keeps(evidence.policy.trace, failed):
        return
    test = {"nodeid": item.nodeid, "outcome": "failed" if failed else "passed", "worker": evidence.worker or "main",
            "started": evidence.started, "ended": time.time(), "failure": evidence.failure,
            "generator": f"pytest-mobile-agent {__version__}"}
    first = run.first
    extra: dict[str, object] = {"logcat": _logcat(first) if first is not None else [], "status": _status(first),
                             "missing": [], "video": None}
    if first is not None and first.label in evidence.video_facts:
        extra["video"] = evidence.video_facts[first.label]
    if evidence.web_traces:
        extra["web_traces"] = evidence.web_traces
    if len(run.targets) > 1:
        extra["targets"] = [{"label": target.label, "video": evidence.video_facts.get(target.label),
                             "status": _status(target), "logcat": _logcat(target)} for target in run.targets]
    try:
        document, files = recorder.build(test, extra)
        document["missing"] = [{"what": what, "why": why} for what, why in evidence.missing]
        path = artifact_dir(item.config, item.nodeid) / evidence.name("trace", "zip")
        tracefile.write_trace(path, document, files)
    except (MobileAgentError, OSError, ValueError) as exc:
        evidence.missing.append(("trace", str(exc)))
        return
    evidence.written["trace"] = path


def _logcat(target: TargetRecord) -> list[dict[str, object]]:
    """The target's logcat lines of the test (the artifacts' cut), each with its time on the host's clock."""
    sources = target.artifacts
    if sources.device is None:
        return []
    from pytest_mobile_agent.evidence.logtimes import timed_lines
    from pytest_mobile_agent.plugin.artifacts import logcat_text

    try:
        return timed_lines(logcat_text(sources), sources.device)
    except (MobileAgentError, OSError, ValueError) as exc:
        log.debug("no logcat for the trace: %s", exc)
        return []


def _status(target: TargetRecord | None) -> list[str]:
    session = target.artifacts.session if target is not None else None
    if session is None:
        return []
    try:
        return list(session.status())
    except (MobileAgentError, OSError) as exc:
        return [f"the status is not known: {exc}"]


def _snapshot_images(run: TestRun) -> dict[str, Path]:
    """A failed `assert_snapshot`'s expected, actual and diff images, from the steps the trace kept."""
    recorder = run.evidence.recorder
    images: dict[str, Path] = {}
    for record in recorder.recorded if recorder is not None else ():
        found = getattr(record.step.error, "images", None)
        if isinstance(found, dict):
            images.update({f"snapshot {kind}": path for kind, path in found.items() if isinstance(path, Path)})
    return images


def _attach_to_allure(evidence: Evidence, snapshots: dict[str, Path]) -> None:
    """allure-pytest's public API, when it runs: the screenshots, the trace zip itself (open it with
    `python -m pytest_mobile_agent show-trace`), the videos, and a failed snapshot's images."""
    try:
        import allure
    except ImportError:
        return
    for what, path in [*evidence.written.items(), *snapshots.items()]:
        try:
            if what == "trace":
                allure.attach.file(str(path), name="trace (python -m pytest_mobile_agent show-trace FILE)",
                                   extension="zip")
            elif what.startswith("video"):
                kind = allure.attachment_type.WEBM if path.suffix == ".webm" else allure.attachment_type.MP4
                allure.attach.file(str(path), name=what, attachment_type=kind)
            else:
                allure.attach.file(str(path), name=what, attachment_type=allure.attachment_type.PNG)
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
