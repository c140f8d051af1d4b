"""The host tools start without fork handlers, so a user's run needs no GRPC_ENABLE_FORK_SUPPORT=false.

grpc core registers pthread_atfork handlers, and glibc runs them in the child of every fork();
posix_spawn runs none. The check runs in a fresh interpreter whose environment lacks the
variable, with a grpc server and a channel to it live, and with a child-side fork handler of its
own, in C (glibc's __register_atfork, what pthread_atfork calls) and in Python
(os.register_at_fork), that aborts the child: a tool started through fork() would die with
SIGABRT before its exec, as the grpc poller did in CI's cmp case. The same holds for the real adb
server a lab starts with `--virtual-adb real`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from pytest_mobile_agent.virtual.kernel import confine
from pytest_mobile_agent.virtual.programs import hosttools

needs_tools = pytest.mark.skipif(
    not sys.platform.startswith("linux") or hosttools.locate(hosttools.TOYBOX) is None
    or hosttools.locate(hosttools.AWK) is None or confine.available() is None,
    reason="needs Linux with Landlock, toybox and original-awk",
)

GRPC_LIVE = textwrap.dedent("""
    import ctypes, json, os, resource, sys
    from concurrent import futures

    import grpc

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    def echo(request, context):
        return request

    handler = grpc.method_handlers_generic_handler(
        "probe.Echo", {"Call": grpc.unary_unary_rpc_method_handler(echo)})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    call = channel.unary_unary("/probe.Echo/Call")
    assert call(b"live", timeout=10) == b"live"

    libc = ctypes.CDLL(None)
    libc.__register_atfork(None, None, ctypes.cast(libc.abort, ctypes.c_void_p), None)
    os.register_at_fork(after_in_child=os.abort)
""")

TOOLS = textwrap.dedent("""
    from pytest_mobile_agent.virtual.device import VirtualDevice
    from tests.support.virtual_shell import run_shell

    device = VirtualDevice()
    try:
        results = [run_shell(device, command) for command in (
            "printf 'b\\\\na\\\\n' | sort",
            "echo one two | awk '{ print $2 }'",
            "printf 'x\\\\n' > /data/local/tmp/f; sed s/x/y/ /data/local/tmp/f",
        )]
        assert call(b"still", timeout=10) == b"still"
    finally:
        device.close()
        channel.close()
        server.stop(None)
    print(json.dumps(results))
""")


REAL_ADB_LAB = textwrap.dedent("""
    from pytest_mobile_agent.virtual import VirtualLab

    lab = VirtualLab.start(1, real_adb=True)
    try:
        state = lab.real.states().get(lab.serials[0])
        assert call(b"still", timeout=10) == b"still"
    finally:
        lab.stop()
        channel.close()
        server.stop(None)
    print(json.dumps(state))
""")


def _run_beside_grpc(script: str) -> object:
    """What `script` prints last (JSON), run after GRPC_LIVE in a fresh interpreter without the variable."""
    env = {name: value for name, value in os.environ.items() if name != "GRPC_ENABLE_FORK_SUPPORT"}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__)))))
    done = subprocess.run([sys.executable, "-c", GRPC_LIVE + script], env=env, cwd=root, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@needs_tools
def test_tools_run_beside_a_live_grpc_channel_without_fork_handlers() -> None:
    assert _run_beside_grpc(TOOLS) == [
        [0, "a\nb\n", ""],
        [0, "two\n", ""],
        [0, "y\n", ""],
    ]


@pytest.mark.skipif(shutil.which("adb") is None or not sys.platform.startswith("linux"),
                    reason="needs Linux and Debian's adb")
def test_a_lab_starts_the_real_adb_server_beside_a_live_grpc_channel_without_fork_handlers() -> None:
    assert _run_beside_grpc(REAL_ADB_LAB) == "device"
