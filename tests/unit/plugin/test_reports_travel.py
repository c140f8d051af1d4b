"""Issue 41 item 9: the evidence travels with its report. JUnit properties and pytest-html links are
relative to the report (or to `--android-artifacts DIR`, one folder CI uploads), each run's files are
its own (a run id), and allure gets the trace zip itself."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.unit.plugin.plugin_inner_runs import ISOLATED, isolate

pytest_plugins = ["pytester"]

FAILING = """
def test_fails(compose_fixture, screen):
    compose_fixture(tab="Login")
    screen.find(id="username").type_text("ada")
    assert screen.find(id="username").text == "bob"
"""


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(pytester, monkeypatch)
    for name in ("MOBILE_AGENT_TRACE", "MOBILE_AGENT_VIDEO", "MOBILE_AGENT_SCREENSHOT", "MOBILE_AGENT_ARTIFACTS"):
        monkeypatch.delenv(name, raising=False)


def properties(junit: Path) -> dict[str, str]:
    case = next(ET.parse(junit).iter("testcase"))
    return {p.get("name", ""): p.get("value", "") for p in case.iter("property")}


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_app=FAILING)
    return pytester.runpytest_subprocess(*ISOLATED, "--android-serial", "virtual", "--emulator-controller", "off",
                                         *args, timeout=300)


def test_with_an_artifacts_folder_each_run_has_its_own_and_the_junit_paths_are_relative_to_it(
        pytester: pytest.Pytester) -> None:
    folder = pytester.path / "ci-artifacts"
    for _ in range(2):
        run(pytester, f"--android-artifacts={folder}", "--junitxml=reports/junit.xml").assert_outcomes(failed=1)
    runs = sorted(entry for entry in folder.iterdir() if entry.is_dir())
    assert len(runs) == 2, "a folder per run: the second run's files never sit beside the first's"
    trace = properties(pytester.path / "reports" / "junit.xml")["mobile_agent_trace"]
    assert not os.path.isabs(trace) and trace.startswith(runs[-1].name + os.sep), trace
    assert (folder / trace).is_file() and (folder / trace).name == "trace.zip"
    screenshot = properties(pytester.path / "reports" / "junit.xml")["mobile_agent_screenshot"]
    assert (folder / screenshot).read_bytes().startswith(b"\x89PNG")


def test_by_default_the_junit_paths_are_relative_to_the_report_and_an_earlier_runs_files_are_gone(
        pytester: pytest.Pytester) -> None:
    run(pytester, "--junitxml=out/junit.xml").assert_outcomes(failed=1)
    trace = properties(pytester.path / "out" / "junit.xml")["mobile_agent_trace"]
    assert not os.path.isabs(trace) and trace.startswith(".." + os.sep), trace
    written = (pytester.path / "out" / trace).resolve()
    assert written.is_file()
    run(pytester, "--junitxml=out/junit.xml", "--android-trace", "off").assert_outcomes(failed=1)
    assert not written.exists(), "the first run's trace does not sit beside the second run's files"
    assert (written.parent / "tree.txt").exists()


def test_allure_gets_the_trace_zip_itself(pytester: pytest.Pytester) -> None:
    pytest.importorskip("allure_pytest", reason="allure-pytest is a dev dependency")
    results = pytester.path / "allure-results"
    run(pytester, f"--alluredir={results}").assert_outcomes(failed=1)
    zips = list(results.glob("*-attachment.zip"))
    assert len(zips) == 1 and zips[0].read_bytes().startswith(b"PK"), sorted(p.name for p in results.iterdir())
