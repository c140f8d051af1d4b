"""Bad input to the agent double: arbitrary bytes on a connection and arbitrary command lines end
in a clean close or a usage error, never a hang, and the agent keeps serving."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.agent import AgentCore, parse_args
from pytest_mobile_agent.virtual.kernel.streams import Kernel
from tests.support.agent_host import Host, make_core


@pytest.fixture(scope="module")
def core() -> Iterator[AgentCore]:
    agent, _ = make_core()
    yield agent
    agent.stop()


def read_to_end(host: Host) -> list[dict]:
    out = []
    while True:
        try:
            message = host.recv(6.0)
        except errors.ProtocolError:
            return out
        if message is None:
            return out
        out.append(message)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(min_size=1, max_size=64))
def test_arbitrary_bytes_before_auth_end_in_a_clean_close(core: AgentCore, data: bytes) -> None:
    host = Host(core, Kernel())
    host.send_raw(data)
    host.stream.shutdown_write()
    frames = read_to_end(host)
    assert frames in ([], [{"type": "closing", "reason": "protocol_error"}]) or frames[0]["type"] == "refused"
    host.close()
    assert not core.stopped


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=12), max_size=8))
def test_arbitrary_command_lines_parse_or_fail_with_a_usage_error(words: list[str]) -> None:
    try:
        args = parse_args(["app_process", "/", "dev.mobileagent.agent.Main", *words])
    except ValueError as exc:
        assert str(exc)
    else:
        assert args.socket and args.idle_exit_ms >= 0


def test_the_launch_arguments_parse() -> None:
    args = parse_args(["serve", "--socket", "mobile-agent-x", "--idle-exit-ms", "10000", "--force"])
    assert (args.socket, args.idle_exit_ms, args.force) == ("mobile-agent-x", 10000, True)
    with pytest.raises(ValueError, match="--socket"):
        parse_args(["serve", "--idle-exit-ms", "5"])
    with pytest.raises(ValueError, match="milliseconds"):
        parse_args(["serve", "--socket", "s", "--idle-exit-ms", "soon"])
