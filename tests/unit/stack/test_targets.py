"""Targets: the "did you mean" of a target name that is not a real one (stack.targets.did_you_mean), and
what a virtual lab leaves behind when it ends, or a served one once it is gone."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.agent.records import Record
from pytest_mobile_agent.automation_lock import LOCK_DIR_ENV
from pytest_mobile_agent.stack.agent import records_for
from pytest_mobile_agent.stack.settings import Settings
from pytest_mobile_agent.stack.targets import AndroidTarget, TargetProvider, did_you_mean
from pytest_mobile_agent.virtual import VirtualLab
from tests.support.ports import closed_port


@pytest.mark.parametrize(("name", "listed", "meant"), [
    ("virtaul", [], "virtual"),
    ("virutal", ["emulator-5554"], "virtual"),
    ("emulatr-5554", ["emulator-5554", "emulator-5556"], "emulator-5554"),
    ("emulator-5566", ["emulator-5556"], "emulator-5556"),
    ("atuo", [], "auto"),
    ("R58M123ABC", ["R58M123ABD"], "R58M123ABD"),
])
def test_a_name_close_to_a_real_one_is_suggested(name: str, listed: list[str], meant: str) -> None:
    assert did_you_mean(name, listed) == meant


@pytest.mark.parametrize(("name", "listed"), [("pixel-7", ["emulator-5554"]), ("emulator-5554", ["emulator-5554"]),
                                              ("x", [])])
def test_a_name_close_to_none_or_equal_to_one_gets_no_suggestion(name: str, listed: list[str]) -> None:
    assert did_you_mean(name, listed) is None


def test_a_misspelled_virtual_on_an_unreachable_server_says_what_was_meant_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 41 item 15: `--android-serial virtaul` opened with "cannot reach the adb server"."""
    monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
    with closed_port() as port, pytest.raises(errors.AdbError) as raised:
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(port))
        TargetProvider(Settings.for_target("virtaul")).target()
    text = str(raised.value)
    assert text.startswith("did you mean `--android-serial virtual`? "), text
    assert "cannot reach the adb server" in text and text.count("did you mean") == 1


def test_a_virtual_labs_lock_files_go_when_the_lab_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One lock file per virtual run piled up in the per-user lock directory: the lab's adb port is
    new each run, so its lock file was never used again."""
    monkeypatch.setenv(LOCK_DIR_ENV, str(tmp_path))
    provider = TargetProvider(Settings.for_target("virtual", emulator_controller="off"))
    target = provider.target()
    with target.automation_lock().held("tests/test_a.py::test_x", timeout=5):
        pass
    lock_file = target.automation_lock().lock_path
    assert lock_file.exists() and lock_file.parent == tmp_path
    provider.close()
    assert list(tmp_path.iterdir()) == []


def test_a_served_virtual_devices_record_goes_once_its_lab_is_gone(tmp_path: Path) -> None:
    """A served lab listens on a new port each time: the records of the ones gone are removed as
    a stack opens the per-user records, instead of piling up there."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    provider = TargetProvider(Settings.for_target("emulator-5554", records_dir=tmp_path))
    served = AndroidTarget("emulator-5554", AdbServer(host="127.0.0.1", port=port), served_virtual=True)
    records = records_for(provider, served)
    records.put(Record("emulator-5554", "mobile-agent-0.1.0-x", 4242, "0" * 32, "0.1.0", 1, "abc"))
    assert records.path_for("emulator-5554").exists()
    records_for(provider, served)  # the next run: nothing answers on the lab's port any more
    assert list(tmp_path.iterdir()) == []


# --- what a lab leaves in the temp directory (issue 41 item 17) ---------------------------------------


@pytest.fixture
def temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temp directory of the test's own, for tempfile and for a child process (TMPDIR); the
    automation locks elsewhere."""
    where = tmp_path / "tmp"
    where.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(where))
    monkeypatch.setenv("TMPDIR", str(where))
    monkeypatch.setenv(LOCK_DIR_ENV, str(tmp_path / "locks"))
    return where


def test_a_labs_start_and_stop_leave_nothing_in_the_temp_dir(temp_dir: Path) -> None:
    """The suite left `mobile-agent-avd-*` (a controller's gRPC token in it), `mobile-agent-records-*`
    and `mobile-agent-lab-*` folders: all a lab keeps is now in its one folder, removed at its stop."""
    provider = TargetProvider(Settings.for_target("virtual", emulator_controller="auto"))
    target = provider.target()
    records = provider.records_dir()
    lab = target.lab
    assert lab is not None
    assert [path.name for path in temp_dir.iterdir()] == [lab.home.name]
    assert records.parent == lab.home and (lab.home / "avd").is_dir()
    assert any("grpc.token" in ini.read_text() for ini in (lab.home / "avd").glob("pid_*.ini"))
    provider.close()
    assert list(temp_dir.iterdir()) == []


def test_a_killed_processs_lab_folder_is_removed_by_the_next_lab(temp_dir: Path) -> None:
    child = subprocess.run(
        [sys.executable, "-c",
         "import os, signal\n"
         "from pytest_mobile_agent.stack.settings import Settings\n"
         "from pytest_mobile_agent.stack.targets import TargetProvider\n"
         "provider = TargetProvider(Settings.for_target('virtual', emulator_controller='auto'))\n"
         "provider.target(); provider.records_dir()\n"
         "os.kill(os.getpid(), signal.SIGKILL)\n"],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, capture_output=True, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()[-2000:]
    abandoned = list(temp_dir.iterdir())
    assert len(abandoned) == 1 and abandoned[0].name.startswith("mobile-agent-lab-")
    running = VirtualLab(lambda serial, index: None)  # a lab's start looks for abandoned folders
    try:
        assert [path.name for path in temp_dir.iterdir()] == [running.home.name]
    finally:
        running.stop()
    assert list(temp_dir.iterdir()) == []


def test_a_running_processs_lab_folder_is_left_alone(temp_dir: Path) -> None:
    first = VirtualLab(lambda serial, index: None)
    second = VirtualLab(lambda serial, index: None)
    try:
        assert first.home.is_dir() and second.home.is_dir()
    finally:
        second.stop()
        first.stop()
