"""The per-step accessibility audit (`--android-a11y off|report|fail`, issue 39) and
`@pytest.mark.a11y(ignore=[...])`.

After every step of the test that changed the screen (an action: evidence/trace.py's ACTIONS), the
app's windows are audited (mirror/a11y) when the test next looks, before its next call, and once more
when its body ends: the screen as the test saw the action's effect. A finding is new the first time
its rule meets its element in the test; only new findings are recorded:

* `report` (and `fail`): in the trace, on the step that caused them (the step's `a11y` key,
  docs/trace-format.md), in a report section "mobile-agent accessibility", and as JUnit properties
  (`a11y_errors`, `a11y_warnings`, `a11y_infos`, and an `a11y_finding` per finding);
* `fail`: the first new finding of severity error fails the test, at the call after the step that
  caused it (or at the body's end), naming the step, the rule, the element and what to change.

`@pytest.mark.a11y(ignore=["image_contrast", {"rule": "text_contrast", "id": "promo_code"}])` leaves
out a rule everywhere (a name), or on the elements that match the screen's criteria (a dict; without
`rule`, every rule on them). An unknown rule is a usage error with its did-you-mean.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pytest

from pytest_mobile_agent.emulator.controller import Controller
from pytest_mobile_agent.errors import InvalidArgument, InvalidSelector, MobileAgentError
from pytest_mobile_agent.evidence.trace import ACTIONS, TraceRecorder
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.mirror.a11y.audit import audit, decode_screenshot, needs_pixels
from pytest_mobile_agent.mirror.a11y.catalog import check_rule_name, select_rules
from pytest_mobile_agent.mirror.a11y.contrast import SwatchCache
from pytest_mobile_agent.mirror.a11y.findings import Finding
from pytest_mobile_agent.mirror.replica import View
from pytest_mobile_agent.mirror.selectors import Selector
from pytest_mobile_agent.mirror.steps import Step
from pytest_mobile_agent.plugin import options

log = logging.getLogger("pytest_mobile_agent.plugin.accessibility")

OFF, REPORT, FAIL = "off", "report", "fail"
MARKER = ("a11y(ignore=[...]): accessibility findings the team accepts, left out of --android-a11y's "
          "report and failures: a rule's name, or {\"rule\": name, **criteria} for the matching elements")
SECTION = "mobile-agent accessibility"
AUDITS_KEY = pytest.StashKey[list["StepAudits"]]()


class AccessibilityFailure(AssertionError):
    """A step brought a new accessibility finding of severity error under `--android-a11y fail`."""


@dataclass(frozen=True)
class Ignore:
    """One entry of the marker's `ignore`: a rule (None: every rule) on the elements `where` matches
    (None: everywhere)."""

    rule: str | None
    where: Selector | None

    def covers(self, finding: Finding, matched: frozenset[int]) -> bool:
        return (self.rule is None or self.rule == finding.rule) and (self.where is None or finding.ref in matched)


def ignores_of(item: pytest.Item) -> list[Ignore]:
    """The marker's ignores; a bad one is a usage error naming it."""
    found: list[Ignore] = []
    for marker in item.iter_markers("a11y"):
        ignore = marker.kwargs.get("ignore", ())
        for entry in (ignore,) if isinstance(ignore, str) else ignore:
            found.append(_ignore(item, entry))
    return found


def _ignore(item: pytest.Item, entry: object) -> Ignore:
    try:
        if isinstance(entry, str):
            return Ignore(check_rule_name(entry), None)
        if isinstance(entry, Mapping):
            criteria = dict(entry)
            rule = criteria.pop("rule", None)
            return Ignore(None if rule is None else check_rule_name(rule), Selector.of(criteria) if criteria else None)
    except (InvalidArgument, InvalidSelector) as exc:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.a11y(ignore=...): {exc}") from None
    raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.a11y(ignore=...) takes rule names and dicts of "
                            f"criteria, not {entry!r}")


@dataclass
class StepAudits:
    """The audit of one target's screen after each step that changed it."""

    screen: Mirror
    label: str | None
    mode: str
    ignores: list[Ignore]
    recorder: Callable[[], TraceRecorder | None]
    controller: Controller | None = None
    """The emulator's controller: its raw frame is the screenshot when it is the display's, upright."""
    seen: set[tuple[str, int]] = field(default_factory=set)
    new: list[tuple[Step, Finding]] = field(default_factory=list)
    swatches: SwatchCache = field(default_factory=SwatchCache)
    pending: Step | None = None

    # the step listener: which step changed the screen
    def step_started(self, step: Step) -> None:
        pass

    def step_ended(self, step: Step) -> None:
        if step.depth == 0 and step.name in ACTIONS and step.error is None and step.screen == self.label:
            self.pending = step

    # the guard: before the test's next call, the screen its last action left
    def before_call(self, _name: str) -> None:
        self.audit_pending()

    def audit_pending(self) -> None:
        step, self.pending = self.pending, None
        if step is None:
            return
        new = self._new_findings(self.screen.snapshot())
        self.new += [(step, finding) for finding in new]
        recorder = self.recorder()
        if recorder is not None and new:
            recorder.annotate(step, "a11y", [finding.to_dict() for finding in new])
        errors = [finding for finding in new if finding.severity == "error"]
        if self.mode == FAIL and errors:
            raise AccessibilityFailure(failure_message(step, errors))

    def _new_findings(self, view: View) -> list[Finding]:
        rules = select_rules(None)
        pixels = self._pixels(view) if needs_pixels(rules) else None
        matched = {id(i): frozenset(e.ref for e in i.where.select(view)) for i in self.ignores if i.where}
        new = []
        for finding in audit(view, rules=rules, pixels=pixels, swatches=self.swatches, known=self.seen):
            if finding.key in self.seen:
                continue
            self.seen.add(finding.key)
            if not any(i.covers(finding, matched.get(id(i), frozenset())) for i in self.ignores):
                new.append(finding)
        return new


    def _pixels(self, view: View) -> np.ndarray | None:
        """The screen's pixels at the display's size, upright: the controller's raw frame where it is
        that (a quarter of the agent's PNG's time on the virtual device, and the same pixels), else
        the agent's PNG; None when neither could be had (a secure window: the contrast rules then
        measure nothing, and the test goes on)."""
        size = (view.snapshot.display.height, view.snapshot.display.width)
        pixels = self._raw_frame(size)
        if pixels is None:
            try:
                pixels = decode_screenshot(self.screen.screenshot_png())
            except MobileAgentError as exc:
                log.info("no screenshot for the accessibility audit, contrast not measured: %s", exc)
                return None
        return pixels if pixels.shape[:2] == size else None

    def _raw_frame(self, size: tuple[int, int]) -> np.ndarray | None:
        if self.controller is None:
            return None
        try:
            frame = self.controller.screenshot()
        except MobileAgentError as exc:
            log.info("no controller frame for the accessibility audit, the agent's screenshot instead: %s", exc)
            return None
        if frame.rotation != 0 or (frame.height, frame.width) != size or len(frame.data) != size[0] * size[1] * 3:
            return None
        return np.frombuffer(frame.data, dtype=np.uint8).reshape(size[0], size[1], 3)


def failure_message(step: Step, errors: list[Finding]) -> str:
    where = f" at {step.source}" if step.source is not None else ""
    lines = [f"accessibility: {step.name}{where} brought {len(errors)} new error(s) (--android-a11y fail):"]
    lines += [f"  {finding.line()}" for finding in errors]
    lines.append("fix them, or accept one with @pytest.mark.a11y(ignore=[rule or {\"rule\": rule, \"id\": ...}])")
    return "\n".join(lines)


def screen_opened(item: pytest.Item, screen: Mirror, label: str | None,
                  recorder: Callable[[], TraceRecorder | None], controller: Controller | None = None) -> None:
    """A target's screen is up: under `--android-a11y report|fail` its steps are audited."""
    mode = options.choice(item.config, "android_a11y")
    if mode == OFF:
        return
    audits = StepAudits(screen, label, mode, ignores_of(item), recorder, controller)
    screen.steps.add_listener(audits)
    screen.steps.add_guard(audits.before_call)
    item.stash.setdefault(AUDITS_KEY, []).append(audits)


def body_ended(item: pytest.Item) -> AccessibilityFailure | None:
    """The test's body returned: the last action's screen audited, the findings reported (a report
    section and JUnit properties); the failure `fail` finds there, or None."""
    failure: AccessibilityFailure | None = None
    audits = item.stash.get(AUDITS_KEY, [])
    for each in audits:
        try:
            each.audit_pending()
        except AccessibilityFailure as exc:
            failure = failure or exc
    _report(item, [pair for each in audits for pair in each.new])
    return failure


def _report(item: pytest.Item, found: list[tuple[Step, Finding]]) -> None:
    if not item.stash.get(AUDITS_KEY, []):
        return
    counts = {severity: sum(1 for _, f in found if f.severity == severity) for severity in ("error", "warning", "info")}
    for severity, count in counts.items():
        item.user_properties.append((f"a11y_{severity}s", count))
    for step, finding in found:
        item.user_properties.append(("a11y_finding", f"{step.name}: {finding.line()}"))
    if found:
        text = "\n".join(f"after {step.name} ({step.source or 'the test'}): {finding.line()}"
                         for step, finding in found)
        item.add_report_section("call", SECTION, text)
