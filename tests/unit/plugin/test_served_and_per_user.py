"""A served virtual device needs no jar, and the agent records are per user: two checkouts (or two
projects) of one user on one device reuse one agent instead of calling it foreign."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent.agent import AgentJar
from pytest_mobile_agent.virtual import VirtualLab


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualLab]:
    """A virtual device served from this process, reached by serial through its adb endpoint; a
    user with no SDK, no jar named, and caches of their own."""
    for name in ("MOBILE_AGENT_JAR", "MOBILE_AGENT_RECORDS", "MOBILE_AGENT_ANDROID_SERIAL", "ANDROID_HOME",
                 "ANDROID_SDK_ROOT", "ADB_SERVER_SOCKET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(tmp_path / "locks"))
    lab = VirtualLab.start(1)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(lab.adb_port))
    try:
        yield lab
    finally:
        lab.stop()


def _run(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "-q", *args], cwd=project,
                          capture_output=True, text=True, timeout=180, check=False, env=env)


SERVED_SUITE = """
def test_the_served_device_runs_the_stand_in(android_target, agent_jar, compose_fixture, screen):
    assert not android_target.virtual and android_target.served_virtual
    assert agent_jar.path is None, "the package's stand-in, no file"
    compose_fixture(tab="Login")
    assert screen.wait_for(id="username", timeout=10)
"""


def test_a_served_virtual_device_named_by_serial_needs_no_jar(served: VirtualLab, tmp_path: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    (project / "test_served.py").write_text(SERVED_SUITE)
    done = _run(project, "--android-serial", served.serials[0], "--emulator-controller", "off")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


OUTCOME_SUITE = """
import json, pathlib

def test_records_the_agent(agent):
    with pathlib.Path({out!r}).open("a") as f:
        f.write(json.dumps([type(agent.outcome).__name__, agent.record.socket, agent.record.pid]) + "\\n")
"""


def test_two_checkouts_of_one_user_reuse_one_agent(served: VirtualLab, tmp_path: Path) -> None:
    out = tmp_path / "outcomes.jsonl"
    jar = tmp_path / "agent.jar"  # named, so that only the records differ between the checkouts
    jar.write_bytes(AgentJar.stand_in().data)
    for name in ("checkout-a", "checkout-b"):
        project = tmp_path / name
        project.mkdir()
        (project / "test_app.py").write_text(OUTCOME_SUITE.format(out=str(out)))
        # the agent lingers past the second run's start however loaded the machine (the default 10 s
        # could pass between the two runs, and the second would launch an agent of its own)
        done = _run(project, "--android-serial", served.serials[0], "--quiet-wait", "2", "--agent-idle-exit", "300",
                    env=dict(os.environ, MOBILE_AGENT_JAR=str(jar)))
        assert done.returncode == 0, done.stdout + done.stderr
    first, second = (json.loads(line) for line in out.read_text().splitlines())
    assert first[0] == "Launched" and second[0] == "Reused", (first, second)
    assert first[1:] == second[1:], "the same agent: socket and pid"
    records = list((tmp_path / "cache" / "pytest-mobile-agent" / "records").iterdir())
    assert [p.name for p in records] == [f"emulator-5554%40127.0.0.1%3A{served.adb_port}.json"]
    assert oct(records[0].stat().st_mode & 0o777) == "0o600"


def test_the_records_directory_must_be_ours(served: VirtualLab, tmp_path: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    (project / "test_app.py").write_text("def test_x(agent):\n    pass\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cache = tmp_path / "cache" / "pytest-mobile-agent"
    cache.mkdir(parents=True)
    os.symlink(elsewhere, cache / "records")
    done = _run(project, "--android-serial", served.serials[0])
    assert done.returncode == 1
    assert "records" in done.stdout and "is a symbolic link" in done.stdout and "Remove the link" in done.stdout
