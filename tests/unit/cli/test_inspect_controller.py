"""`inspect --emulator-controller` takes what the plugin's option takes: auto, off, or an endpoint URL
with its token in MOBILE_AGENT_EMULATOR_TOKEN (issue 28). The URL is used: the inspector's status
says its input goes through the controller there, and its screen is the controller's frames. A URL
carrying a token, or no URL at all, is refused before anything starts, naming the option."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent.cli.main import build_parser, main
from pytest_mobile_agent.virtual import VirtualLab

SECRET = "s3cr3t-5e1d2c"


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment of an inspector of this test's own: its locks and records, no target named."""
    for name in ("MOBILE_AGENT_ANDROID_SERIAL", "MOBILE_AGENT_EMULATOR_CONTROLLER", "MOBILE_AGENT_EMULATOR_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(tmp_path / "locks"))
    monkeypatch.setenv("MOBILE_AGENT_RECORDS", str(tmp_path / "records"))
    return dict(os.environ)


@pytest.mark.parametrize("value", ["auto", "off", "OFF", "http://127.0.0.1:8554", "127.0.0.1:8554"])
def test_the_option_parses_what_the_plugins_option_takes(value: str) -> None:
    args = build_parser().parse_args(["inspect", "--emulator-controller", value])
    assert args.emulator_controller == value


def test_the_option_defaults_to_the_plugins_environment_variable(isolated: dict[str, str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    assert build_parser().parse_args(["inspect"]).emulator_controller == "auto"
    monkeypatch.setenv("MOBILE_AGENT_EMULATOR_CONTROLLER", "http://127.0.0.1:8554")
    assert build_parser().parse_args(["inspect"]).emulator_controller == "http://127.0.0.1:8554"


@pytest.mark.parametrize(("value", "says"), [
    (f"http://127.0.0.1:8554?token={SECRET}", "set the token in MOBILE_AGENT_EMULATOR_TOKEN"),
    (f"http://me:{SECRET}@127.0.0.1:8554", "set the token in MOBILE_AGENT_EMULATOR_TOKEN"),
    ("sometimes", "--emulator-controller takes auto, off or http://HOST:PORT"),
    ("http://127.0.0.1:notaport", "--emulator-controller takes auto, off or http://HOST:PORT"),
])
def test_a_bad_value_is_refused_before_anything_starts_naming_the_option(
        isolated: dict[str, str], capsys: pytest.CaptureFixture[str], value: str, says: str) -> None:
    assert main(["inspect", "--emulator-controller", value]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("error: --emulator-controller") and says in err, err
    assert SECRET not in out + err
    assert "inspector:" not in out


@pytest.fixture
def lab_with_a_controller() -> Iterator[tuple[VirtualLab, int]]:
    """A served virtual device (as another host's emulator would be) and its controller's port."""
    with VirtualLab.start(1) as lab:
        yield lab, lab.start_controller(lab.serials[0])


def test_the_inspector_uses_the_controller_at_the_url_with_the_token_from_the_environment(
        isolated: dict[str, str], lab_with_a_controller: tuple[VirtualLab, int]) -> None:
    pytest.importorskip("aiohttp", reason="the inspector's extra: pip install 'pytest-mobile-agent[inspect]'")
    lab, port = lab_with_a_controller
    serial = lab.serials[0]
    environment = {**isolated, "MOBILE_AGENT_EMULATOR_TOKEN": str(lab.controller(serial).token)}
    command = subprocess.Popen(
        [sys.executable, "-m", "pytest_mobile_agent", "inspect", "--android-serial",
         f"tcp:127.0.0.1:{lab.adb_port}/{serial}", "--emulator-controller", f"http://127.0.0.1:{port}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    try:
        assert command.stdout is not None
        line = command.stdout.readline()
        assert line.startswith("inspector: http://127.0.0.1:"), line + (command.stderr.read() if command.stderr else "")
        base, _, query = line.split(": ", 1)[1].strip().partition("/?")
        kind = screen_kind(f"{base}/api/screen?{query}")
        command.send_signal(signal.SIGTERM)
        assert command.wait(timeout=60) == 0
        _, stderr = command.communicate(timeout=5)
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()
    assert f"[mobile-agent] input: emulator controller at http://127.0.0.1:{port} (" in stderr, stderr
    assert "warning:" not in stderr, stderr
    assert kind == "image/jpeg"  # the controller's latest frame, not an agent screenshot (PNG)


def screen_kind(url: str, within: float = 10.0) -> str:
    """The screen's type once the controller's first frame is in (JPEG), or the last one answered."""
    deadline = time.monotonic() + within
    while True:
        with urllib.request.urlopen(url, timeout=30) as screen:
            kind = str(screen.headers["Content-Type"])
        if kind == "image/jpeg" or time.monotonic() > deadline:
            return kind
        time.sleep(0.2)
