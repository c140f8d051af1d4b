"""Issue 24: each evidence option and mode on the virtual device, with and without its controller,
under -n 2, and the faults that must never fail a passing test (a full disk, a missing PyAV, an
interrupted run leaving a screenrecord behind)."""

from __future__ import annotations

import errno
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy  # noqa: F401 - loaded before the in-process inner runs: pytester restores sys.modules after
import pytest  # each, and numpy's extension cannot load twice in one process

from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.evidence import tracefile, video
from pytest_mobile_agent.mirror import snapshots  # noqa: F401 - numpy's users, loaded once for the same reason
from tests.unit.plugin.plugin_inner_runs import ISOLATED, isolate, served_lab

pytest_plugins = ["pytester"]

TWO_TESTS = """
def test_passes(compose_fixture, screen):
    compose_fixture(tab="Login")
    screen.find(id="username").type_text("ada")

def test_fails(compose_fixture, screen):
    compose_fixture(tab="Login")
    screen.find(id="password").type_text("hunter2")
    screen.tap(id="login_button")
    assert screen.wait_for(id="alert_message", timeout=1).text == "Welcome"
"""
NO_CONTROLLER = ("--emulator-controller", "off")


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(pytester, monkeypatch)
    for name in (
        "MOBILE_AGENT_TRACE",
        "MOBILE_AGENT_VIDEO",
        "MOBILE_AGENT_SCREENSHOT",
        "MOBILE_AGENT_UPDATE_SNAPSHOTS",
    ):
        monkeypatch.delenv(name, raising=False)


def artifacts(pytester: pytest.Pytester, test: str) -> Path:
    return pytester.path / ".mobile-agent" / "artifacts" / f"test_evidence.py_{test}"


def properties(pytester: pytest.Pytester, test: str) -> dict[str, str]:
    tree = ET.parse(pytester.path / "junit.xml")
    case = next(c for c in tree.iter("testcase") if c.get("name") == test)
    return {p.get("name", ""): p.get("value", "") for p in case.iter("property")}


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_evidence=TWO_TESTS)
    return pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "--junitxml=junit.xml", *args)


def test_by_default_a_failing_tests_trace_is_kept_and_a_passing_ones_discarded(pytester: pytest.Pytester) -> None:
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    trace = tracefile.read_trace(artifacts(pytester, "test_fails") / "trace.zip")
    assert not (artifacts(pytester, "test_passes") / "trace.zip").exists()
    names = [step["name"] for step in trace.steps if step["depth"] == 0]
    assert names[-3:] == ["tap", "wait_for", "app.stop"], names
    tap = next(step for step in trace.steps if step["name"] == "tap" and step["depth"] == 0)
    assert tap["target"] is not None and tap["before"] and tap["after"] and tap["tree"]
    assert trace.document["test"]["outcome"] == "failed" and trace.document["status"]
    assert pytester.path / properties(pytester, "test_fails")["mobile_agent_trace"] == (
        artifacts(pytester, "test_fails") / "trace.zip"
    ), "relative to the JUnit XML's folder"
    result.stdout.fnmatch_lines(["*mobile-agent evidence*", "trace: *trace.zip (show-trace opens it)"])


def test_trace_on_keeps_a_passing_tests_trace_without_a_controller(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--android-trace", "on", *NO_CONTROLLER, "-k", "passes")
    result.assert_outcomes(passed=1)
    trace = tracefile.read_trace(artifacts(pytester, "test_passes") / "trace.zip")
    assert [s["name"] for s in trace.steps if s["depth"] == 0] == ["app.start", "find", "element.type_text", "app.stop"]
    assert "frames: agent" in "\n".join(trace.document["status"]) or trace.document["status"]


def test_trace_off_by_environment_and_by_ini(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOBILE_AGENT_TRACE", "off")
    run(pytester, "-k", "fails").assert_outcomes(failed=1)
    assert not (artifacts(pytester, "test_fails") / "trace.zip").exists()
    monkeypatch.delenv("MOBILE_AGENT_TRACE")
    pytester.makeini("[pytest]\nandroid_trace = off\n")
    run(pytester, "-k", "fails").assert_outcomes(failed=1)
    assert not (artifacts(pytester, "test_fails") / "trace.zip").exists()
    assert (artifacts(pytester, "test_fails") / "tree.txt").exists(), "the failure artifacts stay"


def test_a_bad_mode_is_a_usage_error_naming_the_option(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MOBILE_AGENT_VIDEO", "always")
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--android-video / MOBILE_AGENT_VIDEO / ini android_video takes one of off, on, "
            "retain-on-failure, not 'always'*"
        ]
    )


def test_screenshot_on_for_a_passing_test_and_off_for_a_failing_one(pytester: pytest.Pytester) -> None:
    run(pytester, "--android-screenshot", "on", "-k", "passes").assert_outcomes(passed=1)
    shot = artifacts(pytester, "test_passes") / "screenshot.png"
    assert shot.read_bytes().startswith(b"\x89PNG")
    assert pytester.path / properties(pytester, "test_passes")["mobile_agent_screenshot"] == shot
    run(pytester, "--android-screenshot", "off", "-k", "fails").assert_outcomes(failed=1)
    assert not (artifacts(pytester, "test_fails") / "screenshot.png").exists()


def test_verbose_logs_one_line_per_step_of_a_failing_test(pytester: pytest.Pytester) -> None:
    result = run(pytester, "-v", "-k", "fails")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*Captured log call*",
            "element.type_text text=\u2022\u2022\u2022\u2022\u2022\u2022\u2022 "
            "\u2192 accepted via agent (direct) in * ms",
            "tap id=login_button \u2192 accepted via controller in * ms",  # the seed's fast path for taps
        ]
    )
    steps = result.stdout.str().split("Captured log call", 1)[1].split(" mobile-agent ", 1)[0]
    assert "hunter2" not in steps, "the password's text is masked"


def test_video_from_the_controller_is_kept_for_a_failing_test(pytester: pytest.Pytester) -> None:
    av = pytest.importorskip("av")
    result = run(pytester, "--android-video", "retain-on-failure")
    result.assert_outcomes(passed=1, failed=1)
    path = artifacts(pytester, "test_fails") / "video.mp4"
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.name == "h264" and stream.width == 540
        assert container.duration / 1e6 > 1.0, "the video lasts from the first step to the teardown's end"
    assert not (artifacts(pytester, "test_passes") / "video.mp4").exists()
    trace = tracefile.read_trace(artifacts(pytester, "test_fails") / "trace.zip")
    assert trace.document["video"]["segments"][0]["file"] == "video.mp4"
    assert pytester.path / properties(pytester, "test_fails")["mobile_agent_video"] == path


def test_video_as_webm(pytester: pytest.Pytester) -> None:
    av = pytest.importorskip("av")
    run(pytester, "--android-video", "on", "--android-video-format", "webm", "-k", "passes").assert_outcomes(passed=1)
    with av.open(str(artifacts(pytester, "test_passes") / "video.webm")) as container:
        assert container.streams.video[0].codec_context.name == "vp8"


def test_screenrecord_without_a_controller_in_segments_leaves_nothing_on_the_device(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    av = pytest.importorskip("av")
    monkeypatch.setattr(video, "SEGMENT_SECONDS", 3)
    monkeypatch.setattr(video, "OVERLAP", 1.0)
    pytester.makepyfile(
        test_evidence="""
        import time
        def test_long(compose_fixture, screen):
            compose_fixture(tab="Login")
            for tab in ("List", "Big", "Login", "List"):
                time.sleep(0.8)
                screen.tap(text=tab)
    """
    )
    with served_lab(monkeypatch) as lab:
        result = pytester.runpytest(
            *ISOLATED, "--android-serial", "emulator-5554", "--android-video", "on", *NO_CONTROLLER
        )
        result.assert_outcomes(passed=1)
        device = AdbServer(port=lab.adb_port).device("emulator-5554")
        assert "mobile-agent-" not in device.shell("ls /data/local/tmp").text()
        assert "screenrecord" not in device.shell("ps -A -o ARGS").text()
    folder = artifacts(pytester, "test_long")
    segments = sorted(folder.glob("video*.mp4"))
    names = {p.name for p in segments}
    assert len(segments) >= 2 and names == {"video.mp4", *(f"video.{n}.mp4" for n in range(2, len(segments) + 1))}
    for segment in segments:
        with av.open(str(segment)) as container:
            assert container.streams.video[0].codec_context.name == "h264"


def test_an_interrupted_run_stops_and_deletes_the_screenrecord(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("av")
    pytester.makepyfile(
        test_evidence="""
        def test_interrupted(compose_fixture, screen):
            compose_fixture(tab="Login")
            raise KeyboardInterrupt  # what Ctrl-C raises in the test's thread
    """
    )
    with served_lab(monkeypatch) as lab:
        result = pytester.runpytest_subprocess(
            *ISOLATED, "--android-serial", "emulator-5554", "--android-video", "on", *NO_CONTROLLER
        )
        assert result.ret == pytest.ExitCode.INTERRUPTED
        device = AdbServer(port=lab.adb_port).device("emulator-5554")
        assert "screenrecord" not in device.shell("ps -A -o ARGS").text()
        assert "mobile-agent-" not in device.shell("ls /data/local/tmp").text()


def test_without_pyav_the_video_is_missing_and_the_test_passes(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "av", None)
    result = run(pytester, "--android-video", "on", "-k", "passes")
    result.assert_outcomes(passed=1)
    assert result.stdout.str().count("EvidenceMissing:") == 1  # pytest's own warnings vary with the install
    result.stdout.fnmatch_lines(
        [
            "*EvidenceMissing: the video of test_evidence.py::test_passes is missing: video from "
            "the emulator's frames needs PyAV: pip install 'pytest-mobile-agent[[]video]'*"
        ]
    )
    assert properties(pytester, "test_passes")["mobile_agent_missing"].startswith("video: ")


def test_a_full_disk_never_fails_a_passing_test(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tracefile, "write_trace", full)
    result = run(pytester, "--android-trace", "on", "-k", "passes")
    result.assert_outcomes(passed=1)
    assert result.stdout.str().count("EvidenceMissing:") == 1  # pytest's own warnings vary with the install
    result.stdout.fnmatch_lines(["*the trace of test_evidence.py::test_passes is missing: *No space left on device*"])


def test_under_two_workers_each_writes_its_own_files(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_evidence="""
        import pytest

        @pytest.mark.parametrize("n", [1, 2, 3, 4])
        def test_fails(compose_fixture, screen, n):
            compose_fixture(tab="Login")
            screen.tap(id="login_button")
            assert n == 0
    """
    )
    result = pytester.runpytest_subprocess(*ISOLATED, "-n", "2", "--android-serial", "virtual", "--android-trace", "on")
    result.assert_outcomes(failed=4)
    traces = sorted((pytester.path / ".mobile-agent" / "artifacts").glob("*/trace-gw*.zip"))
    assert len(traces) == 4 and {p.name for p in traces} <= {"trace-gw0.zip", "trace-gw1.zip"}
    for path in traces:
        assert tracefile.read_trace(path).document["test"]["worker"] in ("gw0", "gw1")


def test_pytest_html_and_allure_carry_the_evidence(pytester: pytest.Pytester) -> None:
    pytest.importorskip("pytest_html")
    pytest.importorskip("allure_pytest")
    result = run(pytester, "-k", "fails", "--html=report.html", "--self-contained-html", "--alluredir=allure")
    result.assert_outcomes(failed=1)
    html = (pytester.path / "report.html").read_text()
    assert "trace.zip" in html and "data:image/png;base64" in html
    results = [json.loads(p.read_text()) for p in (pytester.path / "allure").glob("*-result.json")]
    attached = {a["name"] for r in results for a in r.get("attachments", [])}
    assert "screenshot" in attached and any(name.startswith("trace") for name in attached), attached


def test_a_crashed_worker_leaves_valid_files_for_the_tests_it_finished(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_evidence="""
        import os

        def test_a_fails_first(compose_fixture, screen):
            compose_fixture(tab="Login")
            screen.tap(id="login_button")
            assert False

        def test_b_crashes_its_worker(compose_fixture, screen):
            compose_fixture(tab="Login")
            screen.tap(id="login_button")
            os._exit(3)
    """
    )
    result = pytester.runpytest_subprocess(*ISOLATED, "-n", "1", "--android-serial", "virtual")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*worker 'gw0' crashed while running*test_b_crashes_its_worker*"])
    folder = pytester.path / ".mobile-agent" / "artifacts"
    trace = tracefile.read_trace(folder / "test_evidence.py_test_a_fails_first" / "trace-gw0.zip")
    assert trace.document["test"]["outcome"] == "failed"
    assert not list(folder.glob("*/.*.partial")), "no half-written file"
