"""`python -m pytest_mobile_agent targets` against a scripted adb server, and with none listening."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_mobile_agent.adb import wire
from pytest_mobile_agent.adb.targets import getprop_command
from pytest_mobile_agent.cli import main as cli
from tests.support.adb_scripted import Peer, ScriptedAdbServer
from tests.support.ports import closed_port

LISTING = (
    "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 device:emu64x transport_id:1\n"
    "R58M123ABC             unauthorized usb:1-1 transport_id:2\n"
)


def devices(peer: Peer) -> None:
    peer.expect("host:devices-l")
    peer.okay()
    peer.send_lp(LISTING.encode())


def getprop(peer: Peer) -> None:
    peer.transport("emulator-5554", f"shell,v2,raw:{getprop_command()}")
    peer.read_shell_packet()
    peer.shell(wire.SHELL_STDOUT, b"EMULATOR36X1\nsdk_gphone64_x86_64\n36\n\n1\n")
    peer.shell(wire.SHELL_EXIT, b"\x00")


def test_targets_prints_the_listing_with_facts_and_advice(capsys):
    with ScriptedAdbServer([devices, getprop]) as server:
        status = cli.main(["targets", "--port", str(server.port)])
    out = capsys.readouterr().out
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == f"List of devices attached (adb server at 127.0.0.1:{server.port})"
    assert lines[1].startswith("emulator-5554          device product:sdk_gphone64_x86_64")
    assert "api 36" in lines[1] and "emulator" in lines[1]
    assert lines[2].startswith("R58M123ABC             unauthorized usb:1-1 transport_id:2")
    assert lines[3].strip().startswith("advice:") and "accept" in lines[3] and "prompt on the device" in lines[3]


def test_targets_exits_non_zero_with_the_advice_when_the_server_is_unreachable(capsys):
    with closed_port() as port:
        status = cli.main(["targets", "-P", str(port)])
    err = capsys.readouterr().err
    assert status != 0
    assert f"127.0.0.1:{port}" in err and "adb start-server" in err


def test_the_module_runs_as_a_command_and_takes_the_port_from_the_environment():
    with closed_port() as port:
        env = dict(os.environ, ANDROID_ADB_SERVER_PORT=str(port))
        env.pop("ADB_SERVER_SOCKET", None)
        result = subprocess.run([sys.executable, "-m", "pytest_mobile_agent", "targets"], env=env,
                                capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert f"127.0.0.1:{port}" in result.stderr and "adb start-server" in result.stderr
    assert "Traceback" not in result.stderr


def test_no_command_prints_the_usage_and_fails(capsys):
    assert cli.main([]) == 2
    assert "targets" in capsys.readouterr().err


def test_an_unknown_command_is_refused():
    with pytest.raises(SystemExit) as info:
        cli.main(["nonsense"])
    assert info.value.code == 2



def test_version_names_the_package_and_the_agent_it_deploys(capsys):
    from pytest_mobile_agent import __version__

    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    agent_version = (Path(__file__).parents[3] / "agent-android" / "VERSION").read_text().strip()
    assert capsys.readouterr().out.strip() == f"pytest-mobile-agent {__version__}, agent {agent_version}"
