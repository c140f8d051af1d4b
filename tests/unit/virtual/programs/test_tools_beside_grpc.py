"""The host tools start without fork handlers, so a user's run needs no GRPC_ENABLE_FORK_SUPPORT=false.

grpc core registers pthread_atfork handlers, and glibc runs them in the child of every fork();
posix_spawn runs none. The check runs in a fresh interpreter whose environment lacks the
variable, with a grpc server and a channel to it live, and with a child-side fork handler of its
own, in C (glibc's __register_atfork, what pthread_atfork calls) and in Python
(os.register_at_fork), that aborts the child: a tool started through fork() would die with
SIGABRT before its exec, as the grpc poller did in CI's cmp case.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from pytest_mobile_agent.virtual.kernel import confine
from pytest_mobile_agent.virtual.programs import hosttools

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or hosttools.locate(hosttools.TOYBOX) is None
    or hosttools.locate(hosttools.AWK) is None or confine.available() is None,
    reason="needs Linux with Landlock, toybox and original-awk",
)

SCRIPT = textwrap.dedent("""
    import ctypes, json, os, resource, sys
    from concurrent import futures

    import grpc

    from pytest_mobile_agent.virtual.device import VirtualDevice
    from tests.support.virtual_shell import run_shell

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


def test_tools_run_beside_a_live_grpc_channel_without_fork_handlers() -> None:
    env = {name: value for name, value in os.environ.items() if name != "GRPC_ENABLE_FORK_SUPPORT"}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__)))))
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=root, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [
        [0, "a\nb\n", ""],
        [0, "two\n", ""],
        [0, "y\n", ""],
    ]
