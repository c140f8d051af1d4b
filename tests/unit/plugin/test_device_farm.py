"""A device farm: targets on several adb servers (issue 16, "A device farm").

`--android-serial tcp:HOST:PORT/SERIAL,...` names targets on several adb servers; each xdist worker
takes its own, with its own server. Two labs on two adb-server ports stand in for two hosts: both
serve an `emulator-5554`, which must never share a lock, a record or a status entry.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.adb.targets import TargetName, parse_target_name
from pytest_mobile_agent.automation_lock import AutomationLock
from pytest_mobile_agent.plugin.fixtures import AndroidTarget
from pytest_mobile_agent.userfiles import target_key
from pytest_mobile_agent.virtual import VirtualLab

pytest_plugins = ["pytester"]


# --- the syntax --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("item", "name"), [
    ("emulator-5554", TargetName("emulator-5554")),
    ("127.0.0.1:5555", TargetName("127.0.0.1:5555")),
    ("tcp:127.0.0.1:5038/emulator-5554", TargetName("emulator-5554", "127.0.0.1", 5038)),
    ("tcp:127.0.0.1:5038/192.168.1.5:5555", TargetName("192.168.1.5:5555", "127.0.0.1", 5038)),
    ("tcp:localhost:5038/auto", TargetName("auto", "127.0.0.1", 5038)),
    ("tcp:[::1]:5038/emulator-5556", TargetName("emulator-5556", "::1", 5038)),
    ("tcp:5038/emulator-5554", TargetName("emulator-5554", "127.0.0.1", 5038)),
])
def test_a_target_item_names_its_server_and_serial(item: str, name: TargetName) -> None:
    assert parse_target_name(item) == name


@pytest.mark.parametrize("item", ["tcp:127.0.0.1:5038", "tcp:127.0.0.1:5038/", "tcp:127.0.0.1:99999/x",
                                  "tcp:127.0.0.1:port/x"])
def test_a_bad_target_item_is_a_usage_error(pytester: pytest.Pytester, item: str) -> None:
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest("--android-serial", f"emulator-5554,{item}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--android-serial: {item!r}*"])


# --- locks and records ---------------------------------------------------------------------------------


def _real_target(port: int, serial: str = "emulator-5554") -> AndroidTarget:
    return AndroidTarget(serial, AdbServer(host="127.0.0.1", port=port))


def test_two_emulator_5554_on_two_servers_never_share_a_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(tmp_path))
    first, second = _real_target(5037).automation_lock(), _real_target(5038).automation_lock()
    assert first.lock_path != second.lock_path
    with first.held("a", timeout=1), second.held("b", timeout=1) as waited:
        assert waited < 1
    assert _real_target(5037).automation_lock().lock_path == first.lock_path, "one server and serial: one lock"


def test_lock_names_never_collide_when_escaped(tmp_path: Path) -> None:
    # `_` escaping made `a:b` and `a_b` (and `emulator-5554@1.2.3.4_5` ...) one file
    paths = {AutomationLock(serial, tmp_path, server=server).lock_path
             for serial, server in [("a:b", "127.0.0.1:5037"), ("a_b", "127.0.0.1:5037"),
                                    ("emulator-5554", "127.0.0.1:5037"), ("emulator-5554", "127.0.0.1_5037")]}
    assert len(paths) == 4


def test_the_lock_wait_names_the_server(tmp_path: Path) -> None:
    lock = AutomationLock("emulator-5554", tmp_path, server="127.0.0.1:5038")
    assert lock.target == "emulator-5554 on 127.0.0.1:5038"


# --- two labs, two workers -------------------------------------------------------------------------


@pytest.fixture
def two_labs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[VirtualLab, VirtualLab]]:
    """Two labs, each an adb server on its own loopback port with its own emulator-5554."""
    for name in ("MOBILE_AGENT_JAR", "MOBILE_AGENT_RECORDS", "MOBILE_AGENT_ANDROID_SERIAL", "ADB_SERVER_SOCKET",
                 "ANDROID_ADB_SERVER_PORT", "MOBILE_AGENT_EMULATOR_CONTROLLER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(tmp_path / "locks"))
    first = VirtualLab.start(1)
    try:
        second = VirtualLab.start(1)
        try:
            yield first, second
        finally:
            second.stop()
    finally:
        first.stop()


FARM_SUITE = """
import json, os, pathlib

def test_on_its_own_target(android_target, agent, screen, compose_fixture):
    compose_fixture(tab="Login")
    assert screen.wait_for(id="username", timeout=10)
    lock = android_target.automation_lock()
    with pathlib.Path({out!r}).open("a") as f:
        f.write(json.dumps({{"worker": os.environ.get("PYTEST_XDIST_WORKER", ""),
                             "server": android_target.server.address, "serial": android_target.serial,
                             "lock": str(lock.lock_path), "socket": agent.record.socket}}) + "\\n")
"""


def test_each_worker_takes_its_own_server_and_the_status_names_both(
    pytester: pytest.Pytester, two_labs: tuple[VirtualLab, VirtualLab], tmp_path: Path,
) -> None:
    out = tmp_path / "farm.jsonl"
    # two modules, load-scheduled by file, so that both workers run a test
    for index in range(2):
        pytester.makepyfile(**{f"test_farm_{index}": FARM_SUITE.format(out=str(out))})
    first, second = two_labs
    servers = {f"127.0.0.1:{first.adb_port}", f"127.0.0.1:{second.adb_port}"}
    targets = ",".join(f"tcp:{server}/emulator-5554" for server in sorted(servers))
    result = pytester.runpytest_subprocess("-n", "2", "--dist", "loadfile", "-p", "no:randomly",
                                           "--android-serial", targets, "--quiet-wait", "2")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2
    by_worker = {row["worker"]: row for row in rows}
    assert set(by_worker) == {"gw0", "gw1"}, rows
    assert {row["server"] for row in rows} == servers, "each worker on its own server"
    assert len({row["lock"] for row in rows}) == 2, "two emulator-5554 never share a lock"
    records = sorted(path.name for path in (tmp_path / "cache").rglob("*.json") if "emulator-5554" in path.name)
    assert records == sorted(f"{target_key(server, 'emulator-5554')}.json" for server in servers), records
    # the header names each target on its server with its facts
    for server in servers:
        result.stdout.fnmatch_lines([f"mobile-agent: emulator-5554 on {server} device, model *, API 36, emulator"])
    # the workers' status lines reach the controller process (issue 16, item 3), one entry per target
    text = result.stdout.str()
    assert "- mobile-agent status -" in text
    for server in servers:
        assert text.count(f"target emulator-5554 on {server}\n") == 1, text
    assert text.count("emulator-5554: mobile-agent-android") == 2, text


def test_the_status_of_a_target_on_a_named_server_names_it(
    pytester: pytest.Pytester, two_labs: tuple[VirtualLab, VirtualLab], tmp_path: Path,
) -> None:
    """Without xdist the first item is this process's; its status section says which server."""
    out = tmp_path / "farm.jsonl"
    pytester.makepyfile(test_farm=FARM_SUITE.format(out=str(out)))
    first, second = two_labs
    targets = f"tcp:127.0.0.1:{second.adb_port}/emulator-5554,tcp:127.0.0.1:{first.adb_port}/emulator-5554"
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:xdist", "--android-serial", targets,
                                           "--quiet-wait", "2", "--emulator-controller", "off")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines([
        f"mobile-agent: emulator-5554 on 127.0.0.1:{second.adb_port} device, model *, API 36, emulator",
        "*- mobile-agent status -*",
        f"target emulator-5554 on 127.0.0.1:{second.adb_port}",
        "emulator-5554: * over protocol *",
    ])
    row = json.loads(out.read_text())
    assert row["server"] == f"127.0.0.1:{second.adb_port}"
    assert os.path.basename(row["lock"]).startswith("emulator-5554%40127.0.0.1%3A")


# --- the controller of a remote target -------------------------------------------------------------

REMOTE_CONFTEST = """
from pytest_mobile_agent.session import ownership

_on_this_host = ownership.adb_server_on_this_host


def pytest_configure(config):
    # a loopback server on its own port stands in for another host's
    ownership.adb_server_on_this_host = lambda host: False


def pytest_unconfigure(config):
    # the run is in-process: the next run in this process sees this host as it is
    ownership.adb_server_on_this_host = _on_this_host
"""


def test_a_remote_targets_controller_is_off_under_auto_and_the_status_says_why(
    pytester: pytest.Pytester, two_labs: tuple[VirtualLab, VirtualLab], tmp_path: Path,
) -> None:
    out = tmp_path / "farm.jsonl"
    pytester.makeconftest(REMOTE_CONFTEST)
    pytester.makepyfile(test_farm=FARM_SUITE.format(out=str(out)))
    first, _ = two_labs
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:xdist", "--android-serial",
                                           f"tcp:127.0.0.1:{first.adb_port}/emulator-5554", "--quiet-wait", "2",
                                           "--emulator-controller", "auto")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines([
        f"target emulator-5554 on 127.0.0.1:{first.adb_port}",
        "emulator-5554: * over protocol *",
        "input: agent (taps, long presses and swipes)",
        f"warning: emulator control endpoint not used for emulator-5554 (emulator-5554 is on the adb server at "
        f"127.0.0.1:{first.adb_port}, not on this host, *--emulator-controller http://HOST:PORT to use it)*",
    ])


def test_a_remote_targets_controller_named_by_url_is_used(
    pytester: pytest.Pytester, two_labs: tuple[VirtualLab, VirtualLab], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "farm.jsonl"
    pytester.makeconftest(REMOTE_CONFTEST)
    pytester.makepyfile(test_farm=FARM_SUITE.format(out=str(out)))
    first, _ = two_labs
    port = first.start_controller("emulator-5554")
    monkeypatch.setenv("MOBILE_AGENT_EMULATOR_TOKEN", str(first.controller("emulator-5554").token))
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:xdist", "--android-serial",
                                           f"tcp:127.0.0.1:{first.adb_port}/emulator-5554", "--quiet-wait", "2",
                                           "--emulator-controller", f"http://127.0.0.1:{port}")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines([
        f"target emulator-5554 on 127.0.0.1:{first.adb_port}",
        "emulator-5554: * over protocol *",
        f"input: emulator controller at http://127.0.0.1:{port} (taps, long presses and swipes)",
    ])
    assert "warning:" not in result.stdout.str()


def test_a_served_lab_says_how_to_name_it_on_its_server() -> None:
    from pytest_mobile_agent.virtual.__main__ import describe

    with VirtualLab.start(1) as lab:
        text = describe(lab)
    assert f"pytest --android-serial tcp:127.0.0.1:{lab.adb_port}/emulator-5554" in text
    assert parse_target_name(f"tcp:127.0.0.1:{lab.adb_port}/emulator-5554").port == lab.adb_port
