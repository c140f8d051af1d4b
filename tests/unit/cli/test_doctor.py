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
from tests.support.ports import free_port

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual import VirtualLab

CHECKS = ["adb server", "target", "agent jar", "deploy", "hello", "windows", "snapshot", "tap", "keys",
          "text (direct)", "text (keys)", "text (clipboard)", "screenshot", "controller", "idle exit", "rotation kept"]


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
    assert all(set(c) == {"check", "result", "seconds", "detail", "advice"} for c in report["checks"])


@pytest.mark.skipif(shutil.which("adb") is None, reason="needs Debian's adb server (apt-get install adb)")
def test_every_check_passes_through_the_real_adb_server(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--android-serial", "virtual", "--virtual-adb", "real"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith(f"{len(CHECKS)} checks: {len(CHECKS)} passed")
    assert "failed" not in out and "skipped" not in out


def test_an_emulator_whose_controller_does_not_answer_fails_that_row_with_the_launch_flag() -> None:
    with doctor.target_of("virtual", controller=f"http://127.0.0.1:{free_port()}") as target:
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
    assert all(by[name].result == doctor.SKIPPED for name in CHECKS[4:13] + ["idle exit", "rotation kept"])
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
        rows = doctor.Doctor(target, jar_path=named).run()
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
            rows = doctor.Doctor(target).run()
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
            rows = doctor.Doctor(target).run()
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
        rows = doctor.Doctor(target).run()
    by = rows_by_check(rows)
    row = by["idle exit"]
    assert row.result == doctor.FAILED, (row, by["deploy"])
    assert f"after its host left (bound {bound} ms" in row.detail and row.detail.endswith("over its bound")


def test_the_summary_counts_each_outcome() -> None:
    rows = [doctor.Row("a", doctor.OK, 0.1, ""), doctor.Row("b", doctor.FAILED, 0.1, ""),
            doctor.Row("c", doctor.SKIPPED, 0.0, ""), doctor.Row("d", doctor.OK, 0.1, "")]
    assert doctor.summary_line(rows) == "4 checks: 2 passed, 1 failed, 1 skipped"
    assert doctor.summary_line(rows[:1]) == "1 check: 1 passed"


def test_a_runs_agent_under_other_records_is_named_as_such_where_it_blocks_the_doctor(
        served_lab: VirtualLab, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_uses_the_agent.py").write_text("def test_x(agent):\n    pass\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q",
                          "--android-serial", "emulator-5554", f"--agent-records={tmp_path / 'run-records'}"],
                         cwd=project, capture_output=True, text=True, timeout=180, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    main(["doctor", "--android-serial", "emulator-5554", "--emulator-controller", "off", "--json"])
    deploy = {c["check"]: c for c in json.loads(capsys.readouterr().out)["checks"]}["deploy"]
    assert deploy["result"] == "failed"
    assert ("these records do not name it: another host's agent, or one a run with other records left"
            in deploy["detail"])


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
