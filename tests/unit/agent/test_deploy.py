"""agent::deploy::tests: the deployer's four cases, its state and its stops, on a fake fake."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from pytest_mobile_agent.agent.deploy import (
    AgentState,
    Attached,
    Deployer,
    DeployOptions,
    Launched,
    Reused,
)
from pytest_mobile_agent.agent.jar import AgentJar
from pytest_mobile_agent.agent.launch import SocketName, socket_name
from pytest_mobile_agent.agent.records import Record, Records
from pytest_mobile_agent.errors import Conflict, DeployError, StaleJar, Timeout
from tests.unit.agent.fake_device import FakeDevice, Holder, Output

JAR = AgentJar.stand_in()
TOKEN = "a" * 32


@pytest.fixture
def fake() -> Iterator[FakeDevice]:
    fake = FakeDevice()
    yield fake
    fake.close()


@pytest.fixture
def attached() -> Iterator[list[Attached]]:
    held: list[Attached] = []
    yield held
    for one in held:
        one.connection.close()


def _deployer(fake: FakeDevice, records: Records | None = None, **options: object) -> Deployer:
    options_given = DeployOptions(**options)  # type: ignore[arg-type]
    return Deployer(fake, JAR, records if records is not None else Records(), options_given)


def _this_build_socket() -> str:
    return socket_name(JAR.version, 1, JAR.build)


def _recorded(fake: FakeDevice, records: Records, *, version: str = JAR.version, build: str | None = JAR.build,
              agent_build: str | None = None, protocols: tuple[int, ...] = (1,), token: str = TOKEN,
              **agent_options: object) -> Record:
    socket = socket_name(version, max(protocols), build or "000000000000")
    agent = fake.add_agent(socket, TOKEN, version=version, build=agent_build or build or "000000000000",
                             protocols=protocols, **agent_options)  # type: ignore[arg-type]
    record = Record(fake.serial, socket, agent.pid, token, version, max(protocols), build)
    records.put(record)
    return record


# --- state, from the process list alone ------------------------------------------------------------


def test_no_agent_process_is_absent(fake: FakeDevice) -> None:
    assert _deployer(fake).state() is AgentState.ABSENT


def test_an_agent_named_for_this_build_is_running(fake: FakeDevice) -> None:
    fake.add_agent(_this_build_socket())
    assert _deployer(fake).state() is AgentState.RUNNING
    assert fake.peers == []  # no connection: it would take the agent from its host


@pytest.mark.parametrize("name", [
    f"mobile-agent-0.0.9-p1-{JAR.build}-9f3cf6e22dae",
    f"mobile-agent-{JAR.version}-p2-{JAR.build}-9f3cf6e22dae",
    f"mobile-agent-{JAR.version}-p1-000000000000-9f3cf6e22dae",
    "mobile-agent-something-else",
])
def test_another_version_protocol_build_or_an_unknown_name_is_incompatible(fake: FakeDevice, name: str) -> None:
    fake.add_agent(name)
    assert _deployer(fake).state() is AgentState.INCOMPATIBLE


def test_an_agent_found_by_its_main_class_without_a_name_is_incompatible(fake: FakeDevice) -> None:
    fake.others[777] = "app_process / dev.mobileagent.agent.Main serve"
    assert _deployer(fake).state() is AgentState.INCOMPATIBLE


def test_a_compatible_agent_wins_over_an_incompatible_one(fake: FakeDevice) -> None:
    fake.add_agent(f"mobile-agent-0.0.9-p1-{JAR.build}-9f3cf6e22dae")
    fake.add_agent(_this_build_socket())
    assert _deployer(fake).state() is AgentState.RUNNING


def test_an_agent_on_an_older_protocol_is_incompatible(fake: FakeDevice, attached: list[Attached]) -> None:
    fake.add_agent(f"mobile-agent-{JAR.version}-p0-{JAR.build}-9f3cf6e22dae")
    assert _deployer(fake).state() is AgentState.INCOMPATIBLE
    fake.agents.clear()
    records = Records()
    old = _recorded(fake, records, protocols=(0,))
    result = _deployer(fake, records).attach()
    attached.append(result)
    assert isinstance(result.outcome, Launched)
    assert result.outcome.replaced is not None and "no protocol this host speaks" in result.outcome.replaced
    assert old.pid not in fake.agents and old.pid not in fake.kills  # refused, it exited by itself
    (peer,) = fake.peers_for(old.socket)
    assert peer.frames("refuse")[0]["code"] == "version_mismatch"


# --- launch --------------------------------------------------------------------------------------


def test_a_first_attach_pushes_the_jar_read_only_starts_it_and_deletes_it(fake: FakeDevice,
                                                                          attached: list[Attached]) -> None:
    records = Records()
    result = _deployer(fake, records, idle_exit_ms=10_000).attach()
    attached.append(result)
    assert result.outcome == Launched(replaced=None, took_over=[])
    socket = result.record.socket
    name = SocketName.parse(socket)
    assert name is not None and name.build == JAR.build
    assert fake.pushes == [(f"/data/local/tmp/{socket}.jar", 0o444)]
    assert fake.files == {}  # deleted after the ready line
    (launch,) = fake.launches
    assert launch.closed and f"--socket {socket} --idle-exit-ms 10000 </dev/null &)" in launch.command
    assert launch.stdin == result.record.token.encode() + b"\n"
    assert result.connection.hello.build == JAR.build
    assert records.get(fake.serial) == result.record
    assert result.record.pid in fake.agents and result.record.build == JAR.build
    assert _deployer(fake, records).state() is AgentState.RUNNING


def test_a_compatible_recorded_agent_is_reused_without_starting_a_process(fake: FakeDevice,
                                                                          attached: list[Attached]) -> None:
    records = Records()
    first = _deployer(fake, records).attach()
    attached.append(first)
    pushes, launches = len(fake.pushes), len(fake.launches)
    again = _deployer(fake, records).attach()
    attached.append(again)
    assert again.outcome == Reused()
    assert (len(fake.pushes), len(fake.launches)) == (pushes, launches)
    assert again.record == first.record and again.connection.hello.pid == first.record.pid


def test_a_recorded_agent_of_another_build_is_incompatible(fake: FakeDevice, attached: list[Attached]) -> None:
    records = Records()
    old = _recorded(fake, records, build="000000000000")
    result = _deployer(fake, records).attach()
    attached.append(result)
    assert isinstance(result.outcome, Launched)
    assert "another build" in (result.outcome.replaced or "")
    assert old.pid not in fake.agents and old.pid not in fake.kills  # it was asked to shut down
    (peer,) = fake.peers_for(old.socket)
    assert [f["method"] for f in peer.frames("request")] == ["shutdown"]
    assert records.get(fake.serial) == result.record


def test_an_agent_of_another_version_is_asked_to_shut_down(fake: FakeDevice, attached: list[Attached]) -> None:
    records = Records()
    old = _recorded(fake, records, version="0.0.9")
    result = _deployer(fake, records).attach()
    attached.append(result)
    assert "another version" in (result.outcome.replaced or "")  # type: ignore[union-attr]
    assert old.pid not in fake.agents and old.pid not in fake.kills


def test_a_record_without_a_build_counts_as_another_build(fake: FakeDevice, attached: list[Attached]) -> None:
    records = Records()
    old = _recorded(fake, records, build=None, agent_build=JAR.build)
    result = _deployer(fake, records).attach()
    attached.append(result)
    assert "build is unknown" in (result.outcome.replaced or "")  # type: ignore[union-attr]
    assert old.pid not in fake.agents


def test_an_agent_that_does_not_answer_as_recorded_is_unreachable(fake: FakeDevice,
                                                                  attached: list[Attached]) -> None:
    records = Records()
    old = _recorded(fake, records, token="b" * 32)  # the agent knows another token
    result = _deployer(fake, records).attach()
    attached.append(result)
    assert isinstance(result.outcome, Launched)
    assert "does not answer as recorded" in (result.outcome.replaced or "")
    assert old.pid in fake.kills
    kill = fake.commands.index(f"kill -9 {old.pid}")
    assert fake.commands[kill - 1] == f"cat /proc/{old.pid}/cmdline"


def test_a_replaced_agent_that_ignores_shutdown_is_killed_past_the_exit_timeout(
        fake: FakeDevice, attached: list[Attached]) -> None:
    records = Records()
    old = _recorded(fake, records, build="000000000000", exits_on_shutdown=False)
    result = _deployer(fake, records, exit_timeout=0.2).attach()
    attached.append(result)
    assert old.pid in fake.kills


def test_a_recorded_agent_that_is_gone_is_forgotten_and_a_new_one_launched(fake: FakeDevice,
                                                                          attached: list[Attached]) -> None:
    records = Records()
    old = _recorded(fake, records)
    fake.exit(old.pid)
    result = _deployer(fake, records).attach()
    attached.append(result)
    assert result.outcome == Launched(replaced=None, took_over=[])


# --- conflicts -----------------------------------------------------------------------------------


def test_an_agent_this_host_did_not_start_is_a_conflict_naming_it(fake: FakeDevice,
                                                                  attached: list[Attached]) -> None:
    foreign = fake.add_agent(_this_build_socket())
    with pytest.raises(Conflict) as caught:
        _deployer(fake).attach()
    text = str(caught.value)
    assert "mobile-agent" in text and str(foreign.pid) in text and foreign.socket in text
    assert "force" in text
    assert fake.pushes == [] and fake.launches == [] and fake.peers == []
    forced = _deployer(fake, force=True).attach()
    attached.append(forced)
    assert " --force" in fake.launches[0].command
    assert forced.outcome == Launched(None, [f"mobile-agent {foreign.socket} (pid {foreign.pid})"])


def test_a_conflict_names_the_holder_and_the_force_option(fake: FakeDevice, attached: list[Attached]) -> None:
    fake.holder = Holder(345, "uiautomator events")
    with pytest.raises(Conflict) as caught:
        _deployer(fake).attach()
    text = str(caught.value)
    assert "uiautomator events (pid 345)" in text
    assert "IAccessibilityServiceClient$Stub$Proxy@5d4d5e8 already registered!" in text
    assert "force" in text and caught.value.holder == "uiautomator events (pid 345)"
    assert fake.files == {}  # the jar is deleted after a conflict too
    forced = _deployer(fake, force=True).attach()
    attached.append(forced)
    assert forced.outcome == Launched(None, ["uiautomator events (pid 345)"])
    assert fake.holder is None


# --- the launch going wrong -------------------------------------------------------------------------


def test_a_stale_jar_is_stopped_and_the_error_says_to_rebuild(fake: FakeDevice) -> None:
    fake.report_build = "111111111111"
    with pytest.raises(StaleJar) as caught:
        _deployer(fake).attach()
    assert "111111111111" in str(caught.value) and "agent-android/build.sh" in str(caught.value)
    assert fake.agents == {}


def test_an_agent_exiting_before_its_ready_line_is_an_error_with_its_output(fake: FakeDevice) -> None:
    fake.launch_script = ["CANNOT LINK EXECUTABLE", "stderr:java.lang.ClassNotFoundException: Main"]
    with pytest.raises(DeployError, match="before its ready line.*CANNOT LINK.*stderr: java.lang.ClassNotFound"):
        _deployer(fake).attach()
    assert fake.files == {}


def test_a_launch_that_never_reports_ready_fails_at_its_deadline(fake: FakeDevice) -> None:
    fake.launch_script, fake.launch_ends = [], False
    with pytest.raises(Timeout, match="ready line"):
        _deployer(fake, ready_timeout=0.1).attach()
    assert fake.files == {} and fake.launches[0].closed


def test_an_error_line_is_a_deploy_error_with_the_agents_code(fake: FakeDevice) -> None:
    fake.launch_script = ['MOBILE_AGENT_ERROR {"code": "automation_unavailable", "message": "no service"}']
    with pytest.raises(DeployError, match="automation_unavailable: no service"):
        _deployer(fake).attach()


# --- stopping ------------------------------------------------------------------------------------


def test_stop_shuts_the_agent_down_and_forgets_it(fake: FakeDevice) -> None:
    records = Records()
    result = _deployer(fake, records).attach()
    result.stop()
    assert fake.agents == {} and fake.kills == [] and records.get(fake.serial) is None
    assert _deployer(fake, records).state() is AgentState.ABSENT
    result.stop()  # idempotent


def test_stop_kills_an_agent_that_outlives_the_exit_timeout(fake: FakeDevice) -> None:
    records = Records()
    result = _deployer(fake, records, exit_timeout=0.2).attach()
    fake.agents[result.record.pid].exits_on_shutdown = False
    result.stop()
    assert fake.kills == [result.record.pid] and fake.agents == {}


def test_stop_recorded_stops_the_agent_without_a_connection_of_ours(fake: FakeDevice) -> None:
    records = Records()
    old = _recorded(fake, records)
    assert _deployer(fake, records).stop_recorded() is True
    assert old.pid not in fake.agents and old.pid not in fake.kills and records.get(fake.serial) is None
    assert _deployer(fake, records).stop_recorded() is False


def test_every_kill_by_pid_first_checks_the_proc_cmdline_still_names_the_socket(fake: FakeDevice) -> None:
    records = Records()
    old = _recorded(fake, records, token="b" * 32)
    fake.exit(old.pid)
    fake.others[old.pid] = "com.example.app"  # the pid now belongs to someone else
    assert _deployer(fake, records).stop_recorded() is True
    assert fake.kills == [] and old.pid in fake.others


# --- secrets -------------------------------------------------------------------------------------


def test_during_a_launch_no_command_line_and_no_log_record_holds_the_token(
        fake: FakeDevice, caplog: pytest.LogCaptureFixture, attached: list[Attached]) -> None:
    with caplog.at_level(logging.DEBUG):
        result = _deployer(fake).attach()
        attached.append(result)
        result.connection.request("shutdown", {}, timeout=1.0)
    token = result.record.token
    assert all(token not in command for command in fake.commands)
    assert all(token not in agent.args for agent in fake.agents.values())
    assert caplog.records and all(token not in record.getMessage() for record in caplog.records)
    assert token not in repr(result) and token not in repr(result.record)


def test_stop_through_a_replaced_connection_asks_for_shutdown_on_a_new_one(fake: FakeDevice) -> None:
    records = Records()
    first = _deployer(fake, records).attach()
    first.connection.close()  # as when a newer connection replaced it
    first.stop()
    assert fake.agents == {} and fake.kills == []
    assert [f["method"] for p in fake.peers for f in p.frames("request")] == ["shutdown"]


def test_an_agent_whose_hello_names_another_pid_than_recorded_is_unreachable(fake: FakeDevice) -> None:
    records = Records()
    old = _recorded(fake, records, hello_pid=1234)
    result = _deployer(fake, records).attach()
    try:
        assert "does not answer as recorded" in (result.outcome.replaced or "")  # type: ignore[union-attr]
        assert old.pid in fake.kills
    finally:
        result.connection.close()


# --- timeouts for a slow device (issue 19 item 13) --------------------------------------------------


class _SlowToDie(FakeDevice):
    """A device where a SIGKILLed process takes `dies_after` seconds to go (a loaded emulator)."""

    def __init__(self, dies_after: float) -> None:
        super().__init__()
        self.dies_after = dies_after

    def shell(self, cmd: str) -> Output:
        if cmd.startswith("kill -9 "):
            import threading

            pid = int(cmd.split()[-1])
            self.commands.append(cmd)
            self.kills.append(pid)
            threading.Timer(self.dies_after, lambda: self.exit(pid)).start()
            return Output(0)
        return super().shell(cmd)


def test_the_wait_after_sigkill_and_the_liveness_bound_are_the_callers_to_raise() -> None:
    defaults = DeployOptions()
    assert (defaults.kill_timeout, defaults.liveness_timeout) == (1.0, 3.0)  # the seed's values
    slow = _SlowToDie(dies_after=1.5)
    try:
        result = _deployer(slow, exit_timeout=0.1).attach()
        slow.agents[result.record.pid].exits_on_shutdown = False
        with pytest.raises(DeployError, match="survived SIGKILL"):
            result.stop()
    finally:
        slow.close()
    slow = _SlowToDie(dies_after=0.5)
    try:
        result = _deployer(slow, exit_timeout=0.1, kill_timeout=3.0, liveness_timeout=10.0).attach()
        assert result.connection._session.liveness_timeout == 10.0
        slow.agents[result.record.pid].exits_on_shutdown = False
        result.stop()
        assert slow.kills == [result.record.pid] and slow.agents == {}
    finally:
        slow.close()
