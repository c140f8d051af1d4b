"""Retry-on-disturbance: a device test that another user of the device disturbed runs again.

Generic rerun plugins tear session fixtures down between runs and sometimes skip teardown, so this
is our own, scoped to disturbances: the test raised `errors.DeviceDisturbed`, or one of its
disturbance watches (one per target, in the test's run record, plugin/run.py) found evidence of
another user: another agent, another automation client, or input the test did not send (policy.py,
foreign_input.py). A failure
while nobody else was on the device fails at once: the app leaving the front after the test's own
input, or the app's crash (its crash buffer is in the report), get a "mobile-agent own failure"
section saying why they were no disturbance. Between
runs only the test's function-scoped fixtures are torn down; the next run's `agent` fixture waits for
the device to be quiet again. The run report marks each disturbed run `RERUN` with its reason, and
the terminal summary lists the tests that ran again and why.
"""

from __future__ import annotations

import pytest
from _pytest.nodes import Node
from _pytest.runner import call_and_report

from pytest_mobile_agent.errors import DeviceDisturbed
from pytest_mobile_agent.plugin.policy import Verdict
from pytest_mobile_agent.plugin.run import current_run, end_run

RUNS_KEY = pytest.StashKey[int]()
RERUN = "rerun"


OWN_FAILURE_SECTION = "mobile-agent own failure"


def verdict_of(
    item: pytest.Item, report: pytest.TestReport, excinfo: pytest.ExceptionInfo[BaseException] | None
) -> Verdict:
    """Whether a failed phase was disturbed (and by what), or the test's own failure."""
    if not report.failed:
        return Verdict()
    if excinfo is not None and excinfo.errisinstance(DeviceDisturbed):
        return Verdict(disturbance=str(excinfo.value))
    run = current_run(item)
    return run.verdict() if run is not None else Verdict()


def disturbance_of(
    item: pytest.Item, report: pytest.TestReport, excinfo: pytest.ExceptionInfo[BaseException] | None
) -> str | None:
    """Why a failed phase counts as disturbed, or None for an ordinary failure."""
    return verdict_of(item, report, excinfo).disturbance


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.when in ("setup", "call"):
        verdict = verdict_of(item, report, call.excinfo)
        if verdict.disturbance:
            report.user_properties.append(("mobile_agent_disturbance", verdict.disturbance))
        elif verdict.own:
            report.sections.append((OWN_FAILURE_SECTION, verdict.own))


def _reason(report: pytest.TestReport) -> str | None:
    for key, value in report.user_properties:
        if key == "mobile_agent_disturbance":
            return str(value)
    return None


def run_with_retries(item: pytest.Item, nextitem: pytest.Item | None, runs: int) -> None:
    """Run the test up to `runs` times while each failed run was disturbed; log every report."""
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    for run in range(1, runs + 1):
        item.stash[RUNS_KEY] = run
        reports = [call_and_report(item, "setup", log=False)]
        if reports[0].passed and not item.config.getoption("setuponly", False):
            reports.append(call_and_report(item, "call", log=False))
        reason = next((r for r in map(_reason, reports) if r), None)
        again = reason is not None and run < runs
        reports.append(call_and_report(item, "teardown", log=False, nextitem=_ItsParents(item) if again else nextitem))
        if again:
            for report in reports:
                if report.failed:
                    report.outcome = RERUN  # type: ignore[assignment]
                    report.sections.append(("mobile-agent disturbance", f"run {run} of at most {runs}: {reason}"))
        for report in reports:
            item.ihook.pytest_runtest_logreport(report=report)
        if not again:
            break
        _reset_for_another_run(item)
        end_run(item)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)


class _ItsParents:
    """Teardown's `nextitem` for a run to be repeated: tears down the test's own (function-scoped)
    fixtures and keeps everything its parents hold (module, class and session fixtures)."""

    def __init__(self, item: pytest.Item) -> None:
        self._chain = item.listchain()[:-1]

    def listchain(self) -> list[Node]:
        return list(self._chain)


def _reset_for_another_run(item: pytest.Item) -> None:
    init = getattr(item, "_initrequest", None)
    if callable(init):
        init()


def pytest_report_teststatus(report: pytest.TestReport) -> tuple[str, str, tuple[str, dict[str, bool]]] | None:
    if report.outcome == RERUN:
        return RERUN, "R", ("RERUN", {"yellow": True})
    return None


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    """Which tests ran again and why (from the reports, so it works across xdist workers too)."""
    reruns = [r for r in terminalreporter.stats.get(RERUN, []) if getattr(r, "when", "") in ("setup", "call")]
    if not reruns:
        return
    terminalreporter.write_sep("=", "tests run again after a disturbance", yellow=True)
    for report in reruns:
        detail = next((text for name, text in report.sections if name == "mobile-agent disturbance"), _reason(report))
        terminalreporter.write_line(f"{report.nodeid}: {detail}")
