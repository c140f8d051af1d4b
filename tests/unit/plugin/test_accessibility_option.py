"""Issue 39: `--android-a11y off|report|fail` audits the screen after every step that changed it, and
`@pytest.mark.a11y(ignore=[...])` accepts findings, on the virtual device's Audit screen."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy  # noqa: F401 - loaded before the in-process inner runs: pytester restores sys.modules after
import pytest  # each, and numpy's extension cannot load twice in one process

from pytest_mobile_agent.evidence import tracefile
from pytest_mobile_agent.mirror import snapshots  # noqa: F401 - numpy's users, loaded once for the same reason
from pytest_mobile_agent.mirror.a11y import audit  # noqa: F401
from tests.unit.plugin.plugin_inner_runs import ISOLATED, isolate

pytest_plugins = ["pytester"]

TESTS = """
import pytest

def test_opens_the_audit_screen(compose_fixture, screen):
    compose_fixture(tab="Login")
    screen.wait_for(id="login_button")
    compose_fixture(tab="Audit")
    screen.wait_for(id="step_two")
    screen.tap(id="details_first")

@pytest.mark.a11y(ignore=["touch_target_size", "speakable_text_present", "editable_content_desc",
                          {"rule": "duplicate_clickable_bounds", "id": "card"}])
def test_accepts_the_errors(compose_fixture, screen):
    compose_fixture(tab="Audit")
    screen.wait_for(id="step_two")
    screen.tap(id="details_first")
"""
MISSPELT = """
import pytest

@pytest.mark.a11y(ignore=["touch_target_sise"])
def test_misspells_a_rule():
    pass
"""


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(pytester, monkeypatch)
    for name in ("MOBILE_AGENT_TRACE", "MOBILE_AGENT_A11Y"):
        monkeypatch.delenv(name, raising=False)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_a11y=TESTS)
    return pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "--junitxml=junit.xml", *args)


def properties(pytester: pytest.Pytester, test: str) -> list[tuple[str, str]]:
    case = next(c for c in ET.parse(pytester.path / "junit.xml").iter("testcase") if c.get("name") == test)
    return [(p.get("name", ""), p.get("value", "")) for p in case.iter("property")]


def test_report_puts_each_new_finding_in_the_trace_on_its_step_the_report_and_junit(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--android-a11y", "report", "--android-trace", "on", "-k", "opens", "-rP")
    result.assert_outcomes(passed=1)
    props = properties(pytester, "test_opens_the_audit_screen")
    counts = {name: int(value) for name, value in props if name.startswith("a11y_") and name.endswith("s")}
    # the Audit screen: 4 errors (the icon button twice, the email field, the card) and 6 warnings, and
    # Login's one warning (its two "Login"s)
    assert counts == {"a11y_errors": 4, "a11y_warnings": 7, "a11y_infos": 0}, props
    lines = [value for name, value in props if name == "a11y_finding"]
    assert any("touch_target_size on @" in line and "icon_button" in line for line in lines), lines
    trace = tracefile.read_trace(pytester.path / ".mobile-agent" / "artifacts" /
                                 "test_a11y.py_test_opens_the_audit_screen" / "trace.zip")
    audited = [(s["name"], [f["rule"] for f in s["a11y"]]) for s in trace.steps if s.get("a11y")]
    # Login's one finding after the first start; the Audit screen's after the second; the tap brings none new
    assert audited[0] == ("app.start", ["duplicate_speakable_text"]), audited
    assert audited[1][0] == "app.start" and "text_contrast" in audited[1][1] and len(audited) == 2, audited
    result.stdout.fnmatch_lines(["*mobile-agent accessibility*", "after app.start *touch_target_size*"])


def test_fail_fails_at_the_first_new_error_and_ignores_accept_findings(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--android-a11y", "fail", "-k", "opens or accepts")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*AccessibilityFailure: accessibility: app.start*new error(s)*",
                                 "*error: touch_target_size on *icon_button*"])
    props = dict(properties(pytester, "test_accepts_the_errors"))
    assert props["a11y_errors"] == "0" and int(props["a11y_warnings"]) > 0


def test_off_by_default_audits_nothing(pytester: pytest.Pytester) -> None:
    run(pytester, "-k", "opens").assert_outcomes(passed=1)
    assert not [name for name, _ in properties(pytester, "test_opens_the_audit_screen") if name.startswith("a11y")]


def test_the_environment_sets_it_and_a_misspelt_rule_is_a_usage_error_before_any_test_runs(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOBILE_AGENT_A11Y", "report")
    run(pytester, "-k", "opens").assert_outcomes(passed=1)
    assert dict(properties(pytester, "test_opens_the_audit_screen"))["a11y_errors"] == "4"
    pytester.makepyfile(test_misspelt=MISSPELT)
    result = pytester.runpytest(*ISOLATED, "test_misspelt.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown accessibility rule 'touch_target_sise'; did you mean 'touch_target_size'*"])
