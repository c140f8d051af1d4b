"""agent::launch::tests: the launch command, names, tokens, and the launch-line and ps parsers."""

from __future__ import annotations

import json
import re
import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.agent.launch import (
    MAIN_CLASS,
    AgentProcess,
    ConflictLine,
    ErrorLine,
    Holder,
    ProcessEntry,
    Ready,
    SocketName,
    find_agents,
    launch_command,
    new_token,
    parse_launch_line,
    parse_ps,
    remote_jar,
    socket_name,
)
from pytest_mobile_agent.errors import ProtocolError

SOCKET = "mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae"
JAR = f"/data/local/tmp/{SOCKET}.jar"


def test_the_launch_command_keeps_the_token_off_the_command_line_and_detaches() -> None:
    token = new_token()
    command = launch_command(JAR, SOCKET, 10_000)
    assert command == (
        "read -r t && (trap '' HUP PIPE; u=; if [ \"$(id -u)\" = 0 ] && command -v su >/dev/null; "
        "then u=\"su 2000,2000,3009\"; fi; MOBILE_AGENT_TOKEN=\"$t\" CLASSPATH=" + JAR +
        " exec $u app_process / dev.mobileagent.agent.Main serve --socket " + SOCKET +
        " --idle-exit-ms 10000 </dev/null &)"
    )
    assert token not in command
    assert "--force" not in command


def test_force_and_extra_arguments_are_passed_quoted() -> None:
    hostile = ["--log", "a b; rm -rf / $(reboot) `id` 'q'"]
    command = launch_command("/data/local/tmp/it's.jar", SOCKET, 500, force=True, extra_args=hostile)
    assert "--idle-exit-ms 500 --force --log " in command
    assert shlex.quote(hostile[1]) in command
    assert "CLASSPATH=" + shlex.quote("/data/local/tmp/it's.jar") in command
    inner = command[command.index("exec $u ") + 8: command.index(" </dev/null")]
    assert shlex.split(inner) == ["app_process", "/", MAIN_CLASS, "serve", "--socket", SOCKET,
                                  "--idle-exit-ms", "500", "--force", *hostile]


def test_a_socket_name_says_which_build_listens_on_it() -> None:
    name = socket_name("0.1.0", 1, "7fec0cb05341")
    assert re.fullmatch(r"mobile-agent-0\.1\.0-p1-7fec0cb05341-[0-9a-f]{12}", name)
    assert name != socket_name("0.1.0", 1, "7fec0cb05341")
    assert SocketName.parse(SOCKET) == SocketName("0.1.0", 1, "7fec0cb05341", "9f3cf6e22dae")
    assert SocketName.parse("mobile-agent-0.1.0-alpha.1-p2-7fec0cb05341-9f3cf6e22dae") == \
        SocketName("0.1.0-alpha.1", 2, "7fec0cb05341", "9f3cf6e22dae")
    assert SocketName.parse("mobile-agent-0.1.0-p1-nothex-9f3cf6e22dae") is None
    assert remote_jar(SOCKET) == JAR


def test_a_token_is_sixteen_random_bytes_as_hex() -> None:
    tokens = {new_token() for _ in range(20)}
    assert len(tokens) == 20 and all(re.fullmatch(r"[0-9a-f]{32}", t) for t in tokens)


def test_the_ready_line_gives_the_pid_and_what_force_stopped() -> None:
    line = "MOBILE_AGENT_READY " + json.dumps({
        "pid": 2973, "socket": SOCKET, "version": "0.1.0", "build": "7fec0cb05341", "protocols": [1],
        "stopped": [{"pid": 345, "name": "uiautomator events"}], "future": 1})
    assert parse_launch_line(line + "\r\n") == Ready(2973, SOCKET, "0.1.0", "7fec0cb05341", (1,),
                                                      (Holder(345, "uiautomator events"),))


def test_a_conflict_line_names_the_holder_and_keeps_the_whole_message() -> None:
    message = ("UiAutomationService android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@5d4d5e8 "
               "already registered!")
    line = "MOBILE_AGENT_CONFLICT " + json.dumps({"holder": {"pid": 345, "name": "uiautomator events"},
                                                   "message": message})
    parsed = parse_launch_line(line)
    assert parsed == ConflictLine(Holder(345, "uiautomator events"), message)
    assert parsed.holder is not None and parsed.holder.describe() == "uiautomator events (pid 345)"
    unknown = parse_launch_line('MOBILE_AGENT_CONFLICT {"holder": null, "message": "held"}')
    assert unknown == ConflictLine(None, "held")


def test_an_error_line_and_other_lines() -> None:
    assert parse_launch_line('MOBILE_AGENT_ERROR {"code": "automation_unavailable", "message": "no"}') == \
        ErrorLine("automation_unavailable", "no")
    assert parse_launch_line("MOBILE_AGENT_LOG refused peer uid 0") is None
    assert parse_launch_line("WARNING: linker: something") is None


@pytest.mark.parametrize("line", [
    "MOBILE_AGENT_READY {",
    "MOBILE_AGENT_READY []",
    'MOBILE_AGENT_READY {"pid": "1"}',
    'MOBILE_AGENT_READY {"pid": 1, "socket": "s", "version": "v", "build": "b", "protocols": [true]}',
    'MOBILE_AGENT_CONFLICT {"holder": {"pid": 1}, "message": "m"}',
    'MOBILE_AGENT_CONFLICT {"holder": null}',
    'MOBILE_AGENT_ERROR {"code": 3, "message": "m"}',
])
def test_a_malformed_launch_line_is_a_protocol_error(line: str) -> None:
    with pytest.raises(ProtocolError):
        parse_launch_line(line)


OLD_SOCKET = "mobile-agent-0.0.9-p1-aaaaaaaaaaaa-bbbbbbbbbbbb"
PS = f"""  PID ARGS
    1 init second_stage
  345 uiautomator events
 2973 mobile-agent {SOCKET}
 3001 app_process / dev.mobileagent.agent.Main serve --socket {OLD_SOCKET} --idle-exit-ms 10
 3002 /system/bin/app_process64 / dev.mobileagent.agent.Main serve
 3003 sh -c read -r t && (trap '' HUP PIPE; exec app_process / dev.mobileagent.agent.Main serve --socket x &)
 3004 mobile-agent
 3005 grep mobile-agent
"""


def test_agents_are_found_in_the_process_list_by_name_or_main_class() -> None:
    agents = find_agents(parse_ps(PS))
    assert agents == [
        AgentProcess(2973, SOCKET, f"mobile-agent {SOCKET}"),
        AgentProcess(3001, "mobile-agent-0.0.9-p1-aaaaaaaaaaaa-bbbbbbbbbbbb", agents[1].args),
        AgentProcess(3002, None, "/system/bin/app_process64 / dev.mobileagent.agent.Main serve"),
    ]
    assert agents[0].describe() == f"mobile-agent pid 2973 (socket {SOCKET})"
    assert agents[2].name is None


def test_the_process_list_keeps_every_row_with_a_pid() -> None:
    assert parse_ps(PS)[:2] == [ProcessEntry(1, "init second_stage"), ProcessEntry(345, "uiautomator events")]
    assert parse_ps("") == [] and parse_ps("PID ARGS\n") == []


@given(st.text(max_size=200))
def test_the_launch_line_parser_on_arbitrary_lines_gives_a_line_none_or_a_clean_error(text: str) -> None:
    for line in (text, "MOBILE_AGENT_READY " + text, "MOBILE_AGENT_CONFLICT " + text, "MOBILE_AGENT_ERROR " + text):
        try:
            parsed = parse_launch_line(line)
        except ProtocolError:
            continue
        assert parsed is None or isinstance(parsed, (Ready, ConflictLine, ErrorLine))


@given(st.lists(st.tuples(st.integers(0, 99999), st.text(max_size=60)), max_size=10), st.text(max_size=100))
def test_the_ps_parser_on_arbitrary_lines_never_fails(rows: list[tuple[int, str]], noise: str) -> None:
    text = noise + "\n" + "\n".join(f"{pid:>5} {args}" for pid, args in rows)
    entries = parse_ps(text)
    for agent in find_agents(entries):
        assert isinstance(agent.pid, int)
        assert agent.socket is None or isinstance(agent.socket, str)
