"""`python -m pytest_mobile_agent doctor` on the virtual device: every check passes through both adb
fronts (the built-in endpoint, and Debian's adb server with the adbd endpoint attached), and the
rows for a missing controller, a missing jar and UI automation held by another tool fail usefully."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from pytest_mobile_agent.cli import doctor
from pytest_mobile_agent.cli.main import main
from tests.support.ports import free_port

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
    assert all(set(c) == {"check", "result", "seconds", "detail", "advice"} for c in report["checks"])


@pytest.mark.skipif(shutil.which("adb") is None, reason="needs Debian's adb server (apt-get install adb)")
def test_every_check_passes_through_the_real_adb_server(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--android-serial", "virtual", "--virtual-adb", "real"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith(f"{len(CHECKS)} of {len(CHECKS)} checks did not fail")
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

    for name in ("ANDROID_HOME", "ANDROID_SDK_ROOT", "MOBILE_AGENT_JAR", "ANDROID_ADB_SERVER_PORT", "ADB_SERVER_SOCKET"):
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
