"""Issue 28 item 5: the inspector waits for the device's automation lock `--lock-wait` seconds (30 by
default), then gives up naming the holder."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.automation_lock import AutomationLock
from pytest_mobile_agent.cli.inspector import LOCK_WAIT
from pytest_mobile_agent.cli.inspector.target import opened
from pytest_mobile_agent.cli.main import build_parser
from pytest_mobile_agent.stack import Settings
from pytest_mobile_agent.virtual import VirtualLab


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[VirtualLab]:
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(tmp_path / "locks"))
    monkeypatch.setenv("MOBILE_AGENT_RECORDS", str(tmp_path / "records"))
    lab = VirtualLab.start(1)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(lab.adb_port))
    monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
    try:
        yield lab
    finally:
        lab.stop()


def test_the_inspector_gives_up_after_its_lock_wait_naming_the_holder(served: VirtualLab) -> None:
    lock = AutomationLock("emulator-5554", server=f"127.0.0.1:{served.adb_port}")
    settings = Settings.for_target("emulator-5554", emulator_controller="off")
    with lock.held("tests/test_app.py::test_login", timeout=5):
        started = time.monotonic()
        held_by = r"held by pid \d+ \(tests/test_app.py::test_login\).*deadline of 500 ms"
        with pytest.raises(errors.Timeout, match=held_by), opened(settings, lock_wait=0.5):
            pass
    assert time.monotonic() - started < 5


def test_the_lock_wait_is_an_option_of_the_inspect_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert build_parser().parse_args(["inspect"]).lock_wait == LOCK_WAIT == 30.0
    assert build_parser().parse_args(["inspect", "--lock-wait", "600"]).lock_wait == 600.0
    with pytest.raises(SystemExit):
        build_parser().parse_args(["inspect", "--lock-wait", "0"])
    assert "--lock-wait: must be more than 0 seconds, not 0" in capsys.readouterr().err
