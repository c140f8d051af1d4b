"""`python -m pytest_mobile_agent doctor` on the virtual device: every check passes through both adb
fronts (the built-in endpoint, and Debian's adb server with the adbd endpoint attached), and the
rows for a missing controller, a missing jar and UI automation held by another tool fail usefully."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_mobile_agent.cli import doctor
from pytest_mobile_agent.cli.main import main
from tests.support.ports import closed_port

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual import VirtualLab

CHECKS = ["adb server", "target", "agent jar", "deploy", "hello", "windows", "snapshot", "tap", "keys",
          "text (direct)", "text (keys)", "text (clipboard)", "keyboard", "clipboard (shell)", "toast", "screenshot",
          "screenshot pixels", "controller", "web", "idle exit", "rotation kept", "clipboard (root)"]


def rows_by_check(rows: list[doctor.Row]) -> dict[str, doctor.Row]:
    return {row.check: row for row in rows}


def test_every_check_passes_on_the_virtual_device(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--android-serial", "virtual", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["serial"] == "emulator-5554" and report["ok"] is True
    assert [c["check"] for c in report["checks"]] == CHECKS
    assert {c["result"] for c in report["checks"]} == {"ok"}, report["checks"]
    by = {c["check"]: c for c in report["checks"]}
    assert by["tap"]["detail"].startswith("landed")
    assert "frame" in by["controller"]["detail"] and "upright" in by["screenshot"]["detail"]
    assert by["screenshot"]["detail"].endswith("taken by UiAutomation"), "the capture path is named"
    assert by["web"]["detail"].startswith("1 debuggable target: chrome_devtools_remote (com.android.chrome, 1 page); "
                                          "attached to about:blank (Chrome/")
    assert all(set(c) == {"check", "result", "seconds", "detail", "advice"} for c in report["checks"])


@pytest.mark.skipif(shutil.which("adb") is None, reason="needs Debian's adb server (apt-get install adb)")
def test_every_check_passes_through_the_real_adb_server(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--android-serial", "virtual", "--virtual-adb", "real"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith(f"{len(CHECKS)} checks: {len(CHECKS)} passed")
    assert "failed" not in out and "skipped" not in out


def test_an_emulator_whose_controller_does_not_answer_fails_that_row_with_the_launch_flag() -> None:
    with closed_port() as port, doctor.target_of("virtual", controller=f"http://127.0.0.1:{port}") as target:
        rows = doctor.Doctor(target).run()
    by = rows_by_check(rows)
    assert by["controller"].result == doctor.FAILED
    assert by["controller"].advice is not None and "-grpc" in by["controller"].advice
    assert "grpc" in by["controller"].advice.split("-grpc", 1)[1]  # and the console command
    assert [r.check for r in rows if r.result != doctor.OK] == ["controller"]
    assert doctor.exit_status(rows) == 1


def test_a_missing_jar_fails_with_where_it_was_looked_for_and_skips_what_needs_the_agent(tmp_path: Path) -> None:
    with doctor.target_of("virtual", controller="off") as target:
        rows = doctor.Doctor(target, jar_path=tmp_path / "mobile-agent-android.jar").run()
    by = rows_by_check(rows)
    assert by["agent jar"].result == doctor.FAILED
    assert "mobile-agent-android.jar" in by["agent jar"].detail
    assert by["agent jar"].advice is not None and "build.sh" in by["agent jar"].advice
    assert by["deploy"].result == doctor.SKIPPED and "agent jar" in by["deploy"].detail
    assert all(by[name].result == doctor.SKIPPED for name in CHECKS[4:] if name not in ("controller", "web"))
    assert by["adb server"].result == by["target"].result == by["controller"].result == doctor.OK
    assert doctor.exit_status(rows) == 1
    assert "advice: " in doctor.format_rows(rows)


def test_ui_automation_held_by_another_tool_fails_the_deploy_naming_it_and_the_force_option() -> None:
    with doctor.target_of("virtual", controller="off") as target:
        device = target.server.device(target.serial)
        holder = device.shell_stream("uiautomator events")
        try:
            deadline = time.monotonic() + 5.0
            while "uiautomator" not in device.shell("ps -A -o PID,ARGS").text():
                assert time.monotonic() < deadline, "uiautomator did not start"
                time.sleep(0.02)
            rows = doctor.Doctor(target).run()
        finally:
            holder.close()
    by = rows_by_check(rows)
    assert by["deploy"].result == doctor.FAILED
    assert "uiautomator" in by["deploy"].detail
    assert by["deploy"].advice is not None and "force" in by["deploy"].advice
    assert by["hello"].result == doctor.SKIPPED and "deploy" in by["hello"].detail



def test_the_jar_row_says_where_the_jar_came_from(tmp_path: Path) -> None:
    from pytest_mobile_agent.agent import AgentJar

    named = tmp_path / "mobile-agent-android.jar"
    named.write_bytes(AgentJar.stand_in().data)
    with doctor.target_of("virtual", controller="off") as target:
        rows = doctor.Doctor(target, jar_path=named, checks=["agent jar"]).run()
    assert [r.check for r in rows] == ["agent jar"], "a check that needs none runs alone"
    row = rows_by_check(rows)["agent jar"]
    assert row.result == doctor.OK, row
    assert row.detail.startswith(f"{named} (named by --agent-jar or MOBILE_AGENT_JAR): version ")


def test_a_served_virtual_device_named_by_its_serial_needs_no_jar_or_sdk(monkeypatch: pytest.MonkeyPatch,
                                                                         tmp_path: Path) -> None:
    from pytest_mobile_agent.virtual import VirtualLab

    # No SDK anywhere: had the doctor wanted a built jar, the jar row would fail.
    for name in ("ANDROID_HOME", "ANDROID_SDK_ROOT", "MOBILE_AGENT_JAR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    lab = VirtualLab.start(count=1)
    try:
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(lab.adb_port))
        with doctor.target_of(lab.serials[0], controller="off") as target:
            rows = doctor.Doctor(target, checks=["snapshot"]).run()
    finally:
        lab.stop()
    by = rows_by_check(rows)
    assert by["agent jar"].result == doctor.OK, by["agent jar"]
    assert "stand-in" in by["agent jar"].detail
    assert by["deploy"].result == doctor.OK and by["snapshot"].result == doctor.OK


def test_a_target_on_a_named_adb_server_is_examined_there(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from pytest_mobile_agent.virtual import VirtualLab

    for name in (
        "ANDROID_HOME",
        "ANDROID_SDK_ROOT",
        "MOBILE_AGENT_JAR",
        "ANDROID_ADB_SERVER_PORT",
        "ADB_SERVER_SOCKET",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    lab = VirtualLab.start(count=1)  # not on the default server: only the tcp: item reaches it
    try:
        with doctor.target_of(f"tcp:127.0.0.1:{lab.adb_port}/{lab.serials[0]}", controller="off") as target:
            assert (target.server.address, target.serial) == (f"127.0.0.1:{lab.adb_port}", lab.serials[0])
            rows = doctor.Doctor(target, checks=["snapshot"]).run()
    finally:
        lab.stop()
    by = rows_by_check(rows)
    assert by["deploy"].result == doctor.OK and by["snapshot"].result == doctor.OK


# --- issue 28, items 9 and 10 ------------------------------------------------------------------------


@pytest.fixture
def served_lab(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[VirtualLab]:
    """A virtual device served as the default adb server's, for a user with caches of their own."""
    from pytest_mobile_agent.virtual import VirtualLab

    for name in ("ANDROID_HOME", "ANDROID_SDK_ROOT", "MOBILE_AGENT_JAR", "MOBILE_AGENT_RECORDS", "ADB_SERVER_SOCKET",
                 "MOBILE_AGENT_ANDROID_SERIAL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(tmp_path / "locks"))
    lab = VirtualLab.start(count=1)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(lab.adb_port))
    try:
        yield lab
    finally:
        lab.stop()


def test_after_a_test_run_the_doctor_reuses_the_runs_agent_and_every_check_passes(
        served_lab: VirtualLab, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_uses_the_agent.py").write_text("def test_x(agent):\n    pass\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q",
                          "--android-serial", "emulator-5554"], cwd=project, capture_output=True, text=True,
                         timeout=180, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert main(["doctor", "--android-serial", "emulator-5554", "--emulator-controller", "off", "--json"]) == 0
    by = {c["check"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert by["deploy"]["detail"].startswith("reused the agent a run left"), by["deploy"]
    assert by["idle exit"]["detail"].startswith("stopped the reused agent"), by["idle exit"]
    assert {c["result"] for c in by.values()} == {"ok"}, by


def test_a_misspelled_serial_gets_the_plugins_advice_and_a_did_you_mean(
        served_lab: VirtualLab, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--android-serial", "emulatr-5554"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (f"error: --android-serial emulatr-5554: the Android target is not usable: did you mean "
                      f"`--android-serial emulator-5554`? emulatr-5554 is not on the adb server at "
                      f"127.0.0.1:{served_lab.adb_port} (it lists emulator-5554 (device))")
    assert err[1] == ("advice: Check the serial with `python -m pytest_mobile_agent targets` or `adb devices -l`")


def test_an_idle_exit_past_its_bound_fails_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the doctor's own idle bound: a shorter one (300 ms once) also bounds the wait from the
    agent's ready line to the host's connection, which a loaded CI host can miss, failing the deploy."""
    bound = doctor.IDLE_EXIT_MS + doctor.EXIT_ALLOWANCE_MS
    real_running = doctor._running
    first: list[float] = []

    def late(device: object, pid: int) -> bool:  # the agent seen in the process list 0.7 s past the bound
        if not first:
            first.append(time.monotonic())
        return time.monotonic() < first[0] + bound / 1000 + 0.7 or real_running(device, pid)  # type: ignore[arg-type]

    monkeypatch.setattr(doctor, "_running", late)
    with doctor.target_of("virtual", controller="off") as target:
        rows = doctor.Doctor(target, checks=["idle exit"]).run()
    by = rows_by_check(rows)
    row = by["idle exit"]
    assert row.result == doctor.FAILED, (row, by["deploy"])
    assert f"after its host left (bound {bound} ms" in row.detail and row.detail.endswith("over its bound")


def test_the_summary_counts_each_outcome() -> None:
    rows = [doctor.Row("a", doctor.OK, 0.1, ""), doctor.Row("b", doctor.FAILED, 0.1, ""),
            doctor.Row("c", doctor.SKIPPED, 0.0, ""), doctor.Row("d", doctor.OK, 0.1, "")]
    assert doctor.summary_line(rows) == "4 checks: 2 passed, 1 failed, 1 skipped"
    assert doctor.summary_line(rows[:1]) == "1 check: 1 passed"


def test_a_check_asked_for_runs_with_the_checks_that_set_it_up_in_the_doctors_order() -> None:
    needs = {"adb server": None, "target": "adb server", "agent jar": None, "deploy": "target", "tap": "deploy",
             "keys": "deploy", "toast": "deploy", "windows": "deploy", "idle exit": "deploy",
             "rotation kept": "idle exit", "web": "target"}
    assert doctor.with_prerequisites(frozenset(), needs) is None, "none asked for: every check"
    assert doctor.with_prerequisites(frozenset({"web"}), needs) == {"web", "target", "adb server"}
    assert doctor.with_prerequisites(frozenset({"toast"}), needs) == {
        "toast", "tap", "deploy", "agent jar", "target", "adb server"}
    assert doctor.with_prerequisites(frozenset({"rotation kept"}), needs) == {
        "rotation kept", "idle exit", "windows", "deploy", "agent jar", "target", "adb server"}
    assert list(doctor.CHECKS) == CHECKS


def test_a_check_the_doctor_does_not_have_is_a_usage_error_naming_the_ones_it_has(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--android-serial", "virtual", "--check", "web", "--check", "wifi"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "error: --check 'wifi': the doctor has no such check"
    assert err[1].startswith("advice: Name one of: 'adb server', 'target', 'agent jar', ")


def test_a_runs_agent_under_other_records_is_named_as_such_where_it_blocks_the_doctor(
        served_lab: VirtualLab, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_uses_the_agent.py").write_text("def test_x(agent):\n    pass\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q",
                          "--android-serial", "emulator-5554", f"--agent-records={tmp_path / 'run-records'}"],
                         cwd=project, capture_output=True, text=True, timeout=180, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    main(["doctor", "--android-serial", "emulator-5554", "--emulator-controller", "off", "--check", "deploy", "--json"])
    deploy = {c["check"]: c for c in json.loads(capsys.readouterr().out)["checks"]}["deploy"]
    assert deploy["result"] == "failed"
    assert ("these records do not name it: another host's agent, or one a run with other records left"
            in deploy["detail"])


# --- issue 37: the first real device (the compatibility report and its checks) ----------------------


def test_the_report_names_the_build_and_every_checks_outcome_and_figures(
        served_lab: VirtualLab, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    device = served_lab.device("emulator-5554")
    path = tmp_path / "report.json"
    assert main(["doctor", "--android-serial", "emulator-5554", "--emulator-controller", "off", "--report",
                 str(path)]) == 0
    out, err = capsys.readouterr()
    assert out.rstrip().endswith(f"{len(CHECKS)} checks: {len(CHECKS)} passed")
    assert f"the compatibility report: {path} (attach it to a bug report)" in err
    report = json.loads(path.read_text())
    assert (report["report"], report["format"], report["serial"], report["ok"]) == (
        "pytest-mobile-agent doctor", 1, "emulator-5554", True)
    assert report["device"]["fingerprint"] == device.getprop("ro.build.fingerprint") != ""
    assert report["device"]["api"] == int(device.getprop("ro.build.version.sdk")) == 36
    assert report["agent"]["version"] and report["agent"]["build"]
    assert [c["check"] for c in report["checks"]] == CHECKS
    assert report["summary"] == f"{len(CHECKS)} checks: {len(CHECKS)} passed"
    figures = {c["check"]: c["figures"] for c in report["checks"]}
    assert figures["snapshot"]["nodes"] > 0 and figures["screenshot"]["capture"] == "ui_automation"
    assert len(figures["screenshot pixels"]["sha256"]) == 64 and figures["screenshot pixels"]["lit_fraction"] > 0.5
    assert figures["keyboard"]["paths"] == {"a field that takes text": "direct", "typeable text": "keys",
                                            "text no key types": "clipboard"}
    _, ime, _ = device.shell("settings get secure default_input_method")
    assert figures["keyboard"]["ime"] == ime.decode().strip() != ""
    assert figures["clipboard (shell)"]["read_back"] is True and figures["toast"]["seen_ms"] >= 0
    assert figures["clipboard (root)"]["agent_uid"] == 2000, \
        "under adb root the agent runs as the shell user (su 2000): a uid 0 reader's clip is cleared (issue 37 item 1)"
    assert device.getprop("service.adb.root") == "0", "adbd is put back as it was"


def test_the_root_round_trip_is_skipped_where_adb_root_is_refused(served_lab: VirtualLab) -> None:
    device = served_lab.device("emulator-5554")
    device.setprop("ro.debuggable", "0")
    device.setprop("ro.build.type", "user")
    with doctor.target_of("emulator-5554", controller="off") as target:
        examiner = doctor.Doctor(target, checks=["clipboard (shell)", "clipboard (root)"])
        rows = examiner.run()
    row = rows_by_check(rows)["clipboard (root)"]
    assert row.result == doctor.SKIPPED and row.detail == "root is not available: a user build (ro.debuggable=0)"
    assert rows_by_check(rows)["clipboard (shell)"].result == doctor.OK
    assert doctor.report_of(examiner)["device"]["build_type"] == "user"


def test_a_clipboard_that_does_not_keep_the_clip_fails_both_round_trips(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_mobile_agent.virtual.agent.clipboard import ClipboardAccess

    monkeypatch.setattr(ClipboardAccess, "get", lambda self, params, deadline: {"text": None})
    with doctor.target_of("virtual", controller="off") as target:
        rows = doctor.Doctor(target, checks=["clipboard (shell)", "clipboard (root)"]).run()
    by = rows_by_check(rows)
    for name in ("clipboard (shell)", "clipboard (root)"):
        assert by[name].result == doctor.FAILED, by[name]
        assert by[name].detail == f"set {doctor.CLIPBOARD_PROBE!r}, read back None"
        advice = by[name].advice
        assert advice is not None and "--report" in advice


def test_a_toast_not_heard_fails_naming_the_toasts_that_were(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_mobile_agent.virtual.ui import fixture

    monkeypatch.setattr(fixture, "GUEST_TOAST", "Welcome back")  # the app's late button shows another toast
    monkeypatch.setattr(doctor, "TOAST_TIMEOUT", 1.0)
    with doctor.target_of("virtual", controller="off") as target:
        rows = doctor.Doctor(target, checks=["toast"]).run()
    row = rows_by_check(rows)["toast"]
    assert row.result == doctor.FAILED
    assert row.detail == "no toast 'Continuing as guest' within 1 s of the tap (toasts heard: 'Welcome back')"


def test_a_text_path_auto_did_not_take_fails_the_keyboard_check(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_mobile_agent.virtual.agent.text import TextEntry

    monkeypatch.setattr(TextEntry, "_choose", staticmethod(lambda node, text: "clipboard"))
    with doctor.target_of("virtual", controller="off") as target:
        rows = doctor.Doctor(target, checks=["keyboard", "text (direct)", "text (keys)"]).run()
    by = rows_by_check(rows)
    assert by["keyboard"].result == doctor.FAILED
    assert by["keyboard"].detail == ("auto took clipboard for a field that takes text ('Kb ü' into username), "
                                     "where the agent's rule takes direct")
    assert by["text (keys)"].result == by["text (direct)"].result == doctor.OK, "a method asked for is kept"


def test_without_the_fixture_app_the_keyboard_and_toast_checks_say_what_they_need() -> None:
    with doctor.target_of("virtual", controller="off") as target:
        target.server.device(target.serial).shell(f"pm uninstall {doctor.FIXTURE_PACKAGE}")
        rows = doctor.Doctor(target, checks=["keyboard", "toast", "clipboard (shell)", "clipboard (root)",
                                             "screenshot pixels"]).run()
    by = rows_by_check(rows)
    assert by["keyboard"].result == by["toast"].result == doctor.SKIPPED
    assert by["keyboard"].detail.startswith("input method com.google.android.inputmethod.latin/")
    assert f"install {doctor.FIXTURE_PACKAGE}" in by["keyboard"].detail and doctor.FIXTURE_PACKAGE in by["toast"].detail
    assert {by[name].result for name in ("clipboard (shell)", "clipboard (root)", "screenshot pixels")} == {doctor.OK}


def _png(image: object) -> bytes:
    import io

    buffer = io.BytesIO()
    image.save(buffer, format="PNG")  # type: ignore[attr-defined]
    return buffer.getvalue()


def _pixels_row(image_bytes: bytes, capture: str) -> doctor.Row:
    from types import SimpleNamespace

    from pytest_mobile_agent.agent import Records

    examiner = doctor.Doctor(SimpleNamespace(records=Records()))  # type: ignore[arg-type]
    examiner.state.screenshot, examiner.state.capture = image_bytes, capture
    return examiner._run_one("screenshot pixels", examiner._screenshot_pixels, None)


def test_a_black_screenshot_fails_the_pixels_check_whatever_its_alpha() -> None:
    from PIL import Image

    for black in (Image.new("RGBA", (40, 80), (0, 0, 0, 0)), Image.new("RGB", (40, 80), (0, 0, 0))):
        row = _pixels_row(_png(black), "ui_automation")
        assert row.result == doctor.FAILED
        assert row.detail == "the screenshot taken by ui_automation is black: every pixel is (0, 0, 0)"
        assert row.advice is not None and "readback" in row.advice


def test_one_lit_pixel_passes_with_its_checksum_and_capture_path() -> None:
    import hashlib

    from PIL import Image

    image = Image.new("RGB", (40, 80), (0, 0, 0))
    image.putpixel((3, 5), (0, 0, 1))
    row = _pixels_row(_png(image), "screencap")
    digest = hashlib.sha256(image.tobytes()).hexdigest()
    assert row.result == doctor.OK
    assert row.detail == f"taken by screencap, sha256 {digest[:16]}, 0.0% of pixels not black, 2 colours"


def test_a_report_that_cannot_be_written_is_an_error_after_the_rows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "missing-directory" / "report.json"
    assert main(["doctor", "--android-serial", "virtual", "--emulator-controller", "off", "--check", "target",
                 "--report", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == "2 checks: 2 passed", "the rows, then the error"
    assert err.startswith(f"error: --report {path}: cannot write the report: No such file or directory")


# --- issue 41 item 13: a served virtual device's controller ----------------------------------------


def test_on_a_served_virtual_device_the_doctor_finds_its_controller_and_exits_0(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m pytest_mobile_agent.virtual` served no controller: the doctor's controller row
    failed and the doctor exited 1 on the recipe README gives."""
    for name in ("ANDROID_HOME", "ANDROID_SDK_ROOT", "MOBILE_AGENT_JAR", "MOBILE_AGENT_RECORDS", "ADB_SERVER_SOCKET",
                 "MOBILE_AGENT_ANDROID_SERIAL", "MOBILE_AGENT_EMULATOR_CONTROLLER"):
        monkeypatch.delenv(name, raising=False)
    for name, value in (("HOME", tmp_path / "home"), ("XDG_CACHE_HOME", tmp_path / "cache"),
                        ("MOBILE_AGENT_LOCK_DIR", tmp_path / "locks"),
                        ("MOBILE_AGENT_AVD_DISCOVERY_DIR", tmp_path / "avd")):
        monkeypatch.setenv(name, str(value))
    served = subprocess.Popen([sys.executable, "-m", "pytest_mobile_agent.virtual"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert served.stdout is not None
        printed = []
        for line in served.stdout:
            printed.append(line)
            if line.startswith("serving until interrupted"):
                break
        port = next(line.split("=", 1)[1].strip() for line in printed if "export ANDROID_ADB_SERVER_PORT=" in line)
        assert any("emulator controller on 127.0.0.1:" in line for line in printed), printed
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", port)
        code = main(["doctor", "--android-serial", "emulator-5554", "--json"])
        report = capsys.readouterr().out
    finally:
        served.terminate()
        served.wait(20)
    by = {c["check"]: c for c in json.loads(report)["checks"]}
    assert by["controller"]["result"] == "ok", by["controller"]
    assert code == 0, by
