"""The agent token's threat model, as the virtual device models uids (issue 13, item 12).

The token travels in MOBILE_AGENT_TOKEN, so `/proc/<agent>/environ` holds it: that file is 0400
and owned by the agent's uid (the shell user, 2000; fs/proc/base.c: environ is readable by the
owner, and by root, under ptrace_may_access). docs/reliability.md ("The agent token's threat
model") says what that protects and what not. Here an app's uid (the fixture app's, u0_a*) can
neither read the token (environ, cmdline, `ps`, the jar) nor get past auth on the agent's abstract
socket, even holding the right token; the shell user and root can read it, which is the documented
limit, not a defect.
"""

from __future__ import annotations

import pytest

from pytest_mobile_agent.agent import Attached
from pytest_mobile_agent.agent import protocol as wire
from tests.support.lab import PACKAGE, Bench

SHELL_UID, ROOT_UID = 2000, 0


def _app_uid(vd: Bench) -> int:
    vd.open("Login")
    uids = {p.uid for p in vd.model.processes.processes() if not p.dead and p.args_line() == PACKAGE}
    assert len(uids) == 1 and min(uids) >= 10000, uids
    return uids.pop()


def _refusal(vd: Bench, socket_name: str, uid: int, token: str) -> bytes:
    stream = vd.model.open_service(f"localabstract:{socket_name}", uid)
    try:
        stream.send(wire.encode({"type": "auth", "token": token}))
        received = b""
        while chunk := stream.recv(3.0):
            received += chunk
        return received
    finally:
        stream.close()


def test_an_app_uid_can_neither_read_the_token_nor_get_past_auth(vd: Bench) -> None:
    app = _app_uid(vd)
    attached = vd.attach()
    try:
        _app_is_kept_out(vd, attached, app)
    finally:
        attached.stop()


def _app_is_kept_out(vd: Bench, attached: Attached, app: int) -> None:
    token, pid = attached.record.token, attached.record.pid
    for command in (f"cat /proc/{pid}/environ", f"cat /proc/{pid}/cmdline", "ps -A -o PID,ARGS",
                    f"ls -l /proc/{pid}/environ", "ls /data/local/tmp", f"cat /proc/{pid}/cmdline | tr '\\0' ' '"):
        status, out, err = vd.model.shell(command, uid=app)
        assert token.encode() not in out + err, command
    status, _, err = vd.model.shell(f"cat /proc/{pid}/environ", uid=app)
    assert status != 0 and b"Permission denied" in err
    # the abstract socket has no permissions: any uid connects; the agent refuses the uid first
    received = _refusal(vd, attached.record.socket, app, token)
    assert received == wire.encode({"type": "refused", "code": "peer_not_allowed", "message": "peer not allowed"})
    assert attached.connection.request("bounds", {"ids": []}, timeout=2.0) == {"nodes": []}  # still serving


@pytest.mark.parametrize("uid", [SHELL_UID, ROOT_UID])
def test_the_shell_user_and_root_can_read_it_which_the_token_does_not_protect_against(vd: Bench, uid: int) -> None:
    """The documented limit: every adb user is uid 2000, like the agent; root reads any environ."""
    attached = vd.attach()
    try:
        status, out, _ = vd.model.shell(f"cat /proc/{attached.record.pid}/environ", uid=uid)
        assert status == 0 and f"MOBILE_AGENT_TOKEN={attached.record.token}".encode() in out.split(b"\0")
    finally:
        attached.stop()
