"""Any bytes from the server end in a result or a clear error of errors.py: never a hang, never a traceback."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.adb.connection import AdbConnection
from pytest_mobile_agent.adb.device import parse_forward_list
from pytest_mobile_agent.adb.shell import ShellOutput, ShellStream
from pytest_mobile_agent.adb.sync import Pusher, send_spec
from pytest_mobile_agent.errors import MobileAgentError


@contextmanager
def replying(reply: bytes) -> Iterator[AdbConnection]:
    """A connection whose peer has sent `reply` and closed."""
    ours, theirs = socket.socketpair()
    theirs.sendall(reply)
    theirs.close()
    conn = AdbConnection(ours, "socketpair", 0.5)
    try:
        yield conn
    finally:
        conn.close()


_replies = st.one_of(
    st.binary(max_size=80),
    st.builds(lambda status, body: status + body, st.sampled_from([b"OKAY", b"FAIL"]), st.binary(max_size=80)),
)


@given(_replies)
def test_any_host_reply_is_a_result_or_a_clear_error(reply):
    with replying(reply) as conn:
        try:
            conn.read_status("host:devices-l")
            conn.read_length_prefixed("host:devices-l")
        except MobileAgentError:
            pass


@given(st.binary(max_size=200))
def test_any_shell_stream_is_an_output_or_a_clear_error(reply):
    with replying(reply) as conn, suppress(MobileAgentError):
        assert isinstance(ShellStream(conn, "true").collect(), ShellOutput)


@given(st.binary(max_size=80))
def test_any_push_status_is_a_result_or_a_clear_error(reply):
    with replying(reply) as conn, suppress(MobileAgentError):
        Pusher(conn, "/data/local/tmp/x", send_spec("/data/local/tmp/x", 0o644))._read_status()


@given(st.text(max_size=200))
def test_any_forward_listing_is_rules_or_a_protocol_error(text):
    try:
        rules = parse_forward_list(text)
    except MobileAgentError:
        return
    assert all(rule.serial and rule.local and rule.remote for rule in rules)
