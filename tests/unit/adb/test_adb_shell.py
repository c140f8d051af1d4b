"""Shell v2 through the client: exit status, stderr apart, stdin closed, streams, deadlines, quoting."""

from __future__ import annotations

import re
import subprocess
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import quote, wire
from pytest_mobile_agent.adb.shell import join
from tests.support.adb_scripted import Peer, client

SERIAL = "emulator-5554"
LAUNCH = "am start -W -n com.android.chrome/com.google.android.apps.chrome.Main"


def shell_handler(
    cmd: str, packets: list[tuple[int, bytes]], *, mode: str = "raw", stdin: list[tuple[int, bytes]] | None = None
):
    """Serve one shell command: check the service, the client's stdin packets, then answer packets."""

    def handler(peer: Peer) -> None:
        peer.transport(SERIAL, f"shell,v2,{mode}:{cmd}")
        for expected in stdin if stdin is not None else [(wire.SHELL_CLOSE_STDIN, b"")]:
            assert peer.read_shell_packet() == expected
        for kind, data in packets:
            peer.shell(kind, data)
        peer.wait_closed()

    return handler


def test_shell_keeps_the_exit_status_and_stderr_apart(scripted):
    server = scripted(shell_handler("ls /nope; echo hi", [
        (wire.SHELL_STDERR, b"ls: /nope: No such file or directory\n"),
        (wire.SHELL_STDOUT, b"hi\n"),
        (wire.SHELL_EXIT, b"\x01"),
    ]))
    out = client(server).device(SERIAL).shell("ls /nope; echo hi")
    assert out.exit_code == 1
    assert out.stdout == b"hi\n" and out.text() == "hi\n"
    assert out.stderr == b"ls: /nope: No such file or directory\n"
    assert not out.ok


def test_shell_closes_stdin_at_once(scripted):
    # the handler asserts that the first thing after the service is CLOSE_STDIN, before any output
    server = scripted(shell_handler("cat", [(wire.SHELL_EXIT, b"\x00")]))
    assert client(server).device(SERIAL).shell("cat").exit_code == 0


def test_an_argument_list_is_quoted_into_one_command_line(scripted):
    argv = ["echo", "it's $(rm -rf /)", "`id`", "a\nb", "ünï ☃"]
    line = join(argv)
    server = scripted(shell_handler(line, [(wire.SHELL_EXIT, b"\x00")]))
    client(server).device(SERIAL).shell(argv)
    assert server.peers[0].requests[1] == f"shell,v2,raw:{line}"


def test_a_nul_in_a_command_is_refused_before_anything_is_sent(scripted):
    server = scripted()
    device = client(server).device(SERIAL)
    with pytest.raises(errors.InvalidArgument, match="NUL"):
        device.shell("echo a\x00b")
    with pytest.raises(errors.InvalidArgument, match="NUL"):
        device.shell(["echo", "a\x00b"])
    assert server.connections == 0


def test_a_missing_serial_fails_with_the_servers_message(scripted):
    def handler(peer: Peer) -> None:
        peer.expect("host:transport:nope")
        peer.fail("device 'nope' not found")

    server = scripted(handler)
    with pytest.raises(errors.AdbFailure) as info:
        client(server).device("nope").shell("true")
    assert info.value.reason == "device 'nope' not found"
    assert "device 'nope' not found" in str(info.value)


def test_a_stream_ending_before_the_exit_status_is_closed(scripted):
    def handler(peer: Peer) -> None:
        peer.transport(SERIAL, "shell,v2,raw:true")
        peer.read_shell_packet()
        peer.shell(wire.SHELL_STDOUT, b"partial")

    server = scripted(handler)
    with pytest.raises(errors.Closed, match="exit status"):
        client(server).device(SERIAL).shell("true")


def test_garbage_instead_of_shell_packets_is_a_protocol_error(scripted):
    def handler(peer: Peer) -> None:
        peer.transport(SERIAL, "shell,v2,raw:true")
        peer.read_shell_packet()
        peer.send(b"\x07\x00\x00\x00\x00")
        peer.wait_closed()

    server = scripted(handler)
    with pytest.raises(errors.ProtocolError, match="unknown shell packet id 7"):
        client(server).device(SERIAL).shell("true")


# --- streams -------------------------------------------------------------------------------------


def test_a_stream_writes_stdin_and_reads_lines_then_exits(scripted):
    server = scripted(shell_handler("cat", [
        (wire.SHELL_STDOUT, b"one\ntw"),
        (wire.SHELL_STDERR, b"noise\n"),
        (wire.SHELL_STDOUT, b"o\r\nlast"),
        (wire.SHELL_EXIT, b"\x03"),
    ], stdin=[(wire.SHELL_STDIN, b"hello"), (wire.SHELL_CLOSE_STDIN, b"")]))
    with client(server).device(SERIAL).shell_stream("cat") as stream:
        stream.write(b"hello")
        stream.close_stdin()
        assert [stream.read_line(1.0) for _ in range(4)] == ["one", "two", "last", None]
        assert stream.wait(1.0) == 3


def test_a_pty_stream_asks_for_a_pseudo_terminal(scripted):
    server = scripted(shell_handler("getevent -l", [(wire.SHELL_STDOUT, b"/dev/input/event1: EV_KEY\r\n")], mode="pty",
                                    stdin=[(wire.SHELL_WINDOW_SIZE, b"24x80,0x0\x00")]))
    with client(server).device(SERIAL).shell_stream_with("getevent -l", pty=True) as stream:
        stream.resize(24, 80)
        assert stream.read(1.0) == (wire.SHELL_STDOUT, b"/dev/input/event1: EV_KEY\r\n")
    # the handler waits for the close: dropping the stream is what ends the command (SIGHUP on adbd)
    server.wait_idle(2.0)
    assert server.peers[0].requests[1] == "shell,v2,pty:getevent -l"


def test_a_stream_read_past_its_timeout_is_a_timeout(scripted):
    server = scripted(shell_handler("sleep 10", [], stdin=[]))
    with client(server).device(SERIAL).shell_stream("sleep 10") as stream, pytest.raises(errors.Timeout) as info:
        stream.read(0.1)
    assert info.value.is_timeout() and "100 ms" in str(info.value)


# --- a launch takes the command's deadline -------------------------------------------------------


def test_a_shell_command_silent_past_the_read_timeout_completes_within_its_deadline(scripted):
    def cold_launch(peer: Peer) -> None:
        peer.transport(SERIAL, f"shell,v2,raw:{LAUNCH}")
        assert peer.read_shell_packet() == (wire.SHELL_CLOSE_STDIN, b"")
        time.sleep(0.6)  # three read deadlines of silence while the app starts
        peer.shell(wire.SHELL_STDOUT, b"Status: ok\nLaunchState: COLD\nTotalTime: 560\n")
        peer.shell(wire.SHELL_EXIT, b"\x00")
        peer.wait_closed()

    def cold_launch_under_the_read_deadline(peer: Peer) -> None:
        peer.transport(SERIAL, f"shell,v2,raw:{LAUNCH}")
        peer.wait_closed()

    server = scripted(cold_launch, cold_launch_under_the_read_deadline)
    device = client(server, io_timeout=0.2).device(SERIAL)
    out = device.shell_until(LAUNCH, time.monotonic() + 3.0)
    assert out.exit_code == 0 and "LaunchState: COLD" in out.text()
    # the same command under the read deadline alone fails: the deadline is what carried it
    with pytest.raises(errors.Timeout, match="200 ms"):
        device.shell(LAUNCH)


def test_a_shell_command_still_silent_at_its_deadline_fails_with_a_timeout_at_the_deadline(scripted):
    def silent(peer: Peer) -> None:
        peer.transport(SERIAL, f"shell,v2,raw:{LAUNCH}")
        peer.wait_closed()

    server = scripted(silent)
    device = client(server, io_timeout=0.2).device(SERIAL)
    started = time.monotonic()
    with pytest.raises(errors.MobileAgentError) as info:
        device.shell_until(LAUNCH, started + 0.5)
    waited = time.monotonic() - started
    assert isinstance(info.value, errors.Timeout) and not isinstance(info.value, OSError)
    assert errors.is_timeout(info.value)
    # the deadline as the call saw it: what was left of the 500 ms when the call began
    named = re.search(r"deadline of (\d+) ms", str(info.value))
    assert named is not None and 400 <= int(named[1]) <= 500 and LAUNCH in str(info.value)
    assert waited >= 0.45  # it waited for the deadline, not for the 200 ms read deadline


def test_a_deadline_already_past_runs_nothing(scripted):
    server = scripted()
    device = client(server, io_timeout=0.2).device(SERIAL)
    with pytest.raises(errors.Timeout, match="nothing ran"):
        device.shell_until(LAUNCH, time.monotonic() - 0.01)
    assert server.connections == 0


# --- quoting -------------------------------------------------------------------------------------

HOSTILE = ["it's", '"double"', "$(id)", "`id`", "a\nb", "back\\slash", "*", "; rm -rf /", "ünïcødé ☃ 🎉",
           "", " ", "-n", "$HOME", "!!", "a'b\"c$d`e\\f", "\t\r"]


def sh_printf(argument: str) -> str:
    result = subprocess.run(["sh", "-c", f"printf '%s' {quote(argument)}"], capture_output=True, timeout=5, check=True)
    return result.stdout.decode("utf-8", "surrogateescape")


@pytest.mark.parametrize("argument", HOSTILE)
def test_hostile_strings_round_trip_through_sh(argument):
    assert sh_printf(argument) == argument


@given(st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=40))
def test_any_string_without_nul_round_trips_through_sh(argument):
    assert sh_printf(argument) == argument


def test_joined_arguments_stay_apart_through_sh():
    argv = [a for a in HOSTILE if "\x1f" not in a]
    script = "printf '%s\\037' " + join(argv)
    result = subprocess.run(["sh", "-c", script], capture_output=True, timeout=5, check=True)
    assert result.stdout.decode().split("\x1f")[:-1] == argv


def test_nul_is_refused_with_a_clear_error():
    with pytest.raises(errors.InvalidArgument, match="NUL"):
        quote("a\x00b")
