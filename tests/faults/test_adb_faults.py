"""The adb side going away under the driver, on the virtual device.

* The adb server gone mid-session: the agent connection through it ends (Disconnected), every call
  meanwhile is ServerUnreachable with its advice, the agent keeps running on the device; the server
  back on its port: the next attach reuses that agent through its record.
* The device gone (its transport to a real adb server closed) mid-push and mid-shell: the call fails
  with an errors.py error (the server's words for what follows: `device '...' not found`), the
  partial file is removed (adbd unlinks a file whose SEND did not finish), the shell's command ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.agent import Records, Reused
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.session import ControllerChoice, Session, select_paths
from pytest_mobile_agent.virtual import VirtualLab
from pytest_mobile_agent.virtual.fronts.adb_endpoint import AdbServerEndpoint
from pytest_mobile_agent.virtual.kernel.creds import ROOT
from pytest_mobile_agent.virtual.lab import adb_binary
from tests.support.lab import Bench
from tests.support.polling import until


def test_the_adb_server_gone_mid_session_gives_clear_errors_and_back_the_agent_is_reused(
    vd: Bench, tmp_path: Path
) -> None:
    records_dir = tmp_path / "records"
    attached = vd.attach(Records.in_dir(records_dir))
    session = Session.start_selected(attached, select_paths(vd.serial, True, ControllerChoice.Off(), None),
                                     device=vd.device)
    screen = Mirror(session.backend(), timeout=5.0)
    screen.wait_for(id="login_button")
    port = vd.lab.builtin.port
    vd.lab.builtin.stop()  # `adb kill-server`: every client stream through it ends
    gone = screen.wait_disconnected(timeout=2.0)
    assert gone.reconnect_hint
    with pytest.raises(errors.Disconnected):
        session.connection.request("tap", {"x": 1, "y": 1}, timeout=1.0)
    for call in (lambda: vd.device.shell("true"), lambda: vd.server.devices(),
                 lambda: vd.deployer(Records.in_dir(records_dir)).attach()):
        with pytest.raises(errors.ServerUnreachable) as unreachable:
            call()
        assert f"127.0.0.1:{port}" in str(unreachable.value) and "adb start-server" in str(unreachable.value)
    assert vd.agent_pids() == [attached.record.pid], "the agent kept running on the device"

    back = AdbServerEndpoint(port=port)  # `adb start-server` on the same port
    back.add_device(vd.serial, vd.model)
    vd.lab.builtin = back  # the lab stops it at the end
    again = vd.attach(Records.in_dir(records_dir))  # as a new host process would, from the file
    assert isinstance(again.outcome, Reused) and again.record.pid == attached.record.pid
    assert again.connection.request("tap", {"x": 10, "y": 10}, timeout=2.0)["accepted"]
    again.stop()
    assert vd.agent_pids() == []


@pytest.fixture
def real_lab() -> Iterator[VirtualLab]:
    if adb_binary() is None:
        pytest.skip("Debian's adb package is not installed (apt-get install adb)")
    lab = VirtualLab.start(1, real_adb=True)
    try:
        yield lab
    finally:
        lab.stop()


def _gone(serial: str) -> set[str]:
    return {f"device '{serial}' not found", "device offline"}  # the server's words, by timing


def _drop_transport(lab: VirtualLab, serial: str) -> None:
    """The device gone: its adbd endpoint drops the transport to the adb server (a cable pulled)."""
    endpoint = lab._adbd[serial]
    for conn in endpoint.connections():
        conn.stop()


def test_the_device_gone_mid_push_fails_the_push_and_leaves_no_partial_file(real_lab: VirtualLab) -> None:
    serial = real_lab.serials[0]
    model = real_lab.device(serial)
    device = AdbServer(port=real_lab.adb_port).device(serial)
    remote = "/data/local/tmp/mobile-agent-fault-push.bin"
    outcome: list[BaseException | None] = []

    def push() -> None:
        try:
            device.push_bytes(b"\xa5" * (64 << 20), remote)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - asserted on below
            outcome.append(exc)

    thread = threading.Thread(target=push, daemon=True)
    thread.start()
    until(lambda: model.fs.exists(remote, ROOT) and model.fs.stat(remote, ROOT).size > 1 << 20, 10.0,
          "the push is under way", interval=0.005)
    _drop_transport(real_lab, serial)
    thread.join(10.0)
    assert outcome and isinstance(outcome[0], errors.AdbError), outcome
    assert f"push {remote}" in str(outcome[0])
    # adbd's side of the stream ends a moment after the server's: it unlinks the partial file then
    until(lambda: not model.fs.exists(remote, ROOT), 5.0, "the partial file is unlinked as adbd does",
          interval=0.005)
    with pytest.raises(errors.AdbFailure) as failure:  # what comes next is in the server's words
        device.shell("true")
    assert failure.value.reason in _gone(serial)


def test_the_device_gone_mid_shell_fails_the_read_and_ends_the_command(real_lab: VirtualLab) -> None:
    serial = real_lab.serials[0]
    model = real_lab.device(serial)
    device = AdbServer(port=real_lab.adb_port).device(serial)
    stream = device.shell_stream("sleep 30")
    until(lambda: any(p.args_line() == "sleep 30" and not p.dead for p in model.processes.processes()), 5.0,
          "the command runs", interval=0.005)
    sleeper = next(p for p in model.processes.processes() if p.args_line() == "sleep 30" and not p.dead)
    _drop_transport(real_lab, serial)
    started = time.monotonic()
    with pytest.raises(errors.AdbError) as failure:
        while stream.read(5.0) is not None:
            pass
        stream.wait(5.0)
    assert time.monotonic() - started < 5.0, "the read ended with the transport, not at its deadline"
    assert "before the command's exit status" in str(failure.value)
    stream.close()
    until(lambda: sleeper.dead, 5.0, "the command ends when its stream's transport goes (SIGHUP)",
          interval=0.005)
    with pytest.raises(errors.AdbFailure) as after:
        device.shell("true")
    assert after.value.reason in _gone(serial)
