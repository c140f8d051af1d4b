"""The Java agent on the host JVM, for the tests that run the Python host against it.

`agent-android/build.sh --host DIR` compiles the agent (src/ against the Android stubs) and its host
entry point `dev.mobileagent.agent.HostMain`, which serves protocol 1 on loopback TCP with the fake
platform and a fixed UI. `start_java_agent` starts one process, stopped by its own pid.
"""

from __future__ import annotations

import json
import os
import secrets
import selectors
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.agent.connection import Connection
from pytest_mobile_agent.agent.protocol import HostSession

ROOT = Path(__file__).resolve().parents[2]
AGENT_DIR = ROOT / "agent-android"
BUILD_SH = AGENT_DIR / "build.sh"
JSON_JAR = Path(os.environ.get("MOBILE_AGENT_JSON_JAR", "/usr/share/java/com.android.json.jar"))
JUNIT_JAR = Path(os.environ.get("JUNIT_JAR", "/usr/share/java/junit4.jar"))
JAVAC = shutil.which("javac")
CLIENT_JIT = ("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC")
"""For javac and javap: their JVM with the client compiler only, as agent-android/build.env runs javac."""
JAVA = shutil.which("java")

needs_java = pytest.mark.skipif(
    JAVAC is None or JAVA is None or not JSON_JAR.is_file(),
    reason="the Java agent needs javac and java (Debian: openjdk-17-jdk-headless) and org.json "
    "(Debian: libandroid-json-java)",
)

READY_DEADLINE = 20.0
COMPILE_DEADLINE = 180.0
CHECK_DEADLINE = 300.0


@dataclass
class JavaAgent:
    process: subprocess.Popen[bytes]
    ready: dict[str, Any]
    token: str

    @property
    def port(self) -> int:
        return int(self.ready["port"])

    def stream(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=5.0)

    def connect(self, token: str | None = None, session: HostSession | None = None) -> Connection:
        return Connection.open(self.stream(), token or self.token, timeout=5.0, name="java-agent", session=session)

    def control(self, line: str) -> list[str]:
        """Sends a control line and waits until HostMain acknowledges it as applied; returns the
        standard output lines that came before the acknowledgement."""
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()
        deadline = time.monotonic() + READY_DEADLINE
        before = []
        while (got := read_line(self.process, deadline).rstrip("\n")) != f"MOBILE_AGENT_LOG control {line}":
            before.append(got)
        return before

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()  # by its own pid: Popen.kill signals this process only
        self.process.wait(timeout=10)
        for f in (self.process.stdin, self.process.stdout):
            if f is not None:
                f.close()


def read_line(process: subprocess.Popen[bytes], deadline: float) -> str:
    assert process.stdout is not None
    fd = process.stdout.fileno()
    line = b""
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                raise errors.Timeout("the Java agent's ready line", READY_DEADLINE)
            if not sel.select(left):
                continue
            chunk = os.read(fd, 1)
            if not chunk:
                raise errors.ProtocolError(f"the Java agent exited before its ready line (got {line!r})")
            line += chunk
    return line.decode()


def build_classpath(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Compiles the agent and its host entry point once per session, the xdist workers sharing the one
    build (the first to come compiles, under a lock; the others read its class path): the class path."""
    import filelock

    basetemp = tmp_path_factory.getbasetemp()
    # under xdist each worker's basetemp is a directory of this session's temp root
    base = basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp
    recorded = base / "java-agent-classpath"
    with filelock.FileLock(str(base / "java-agent-classpath.lock")):
        if not recorded.exists():
            recorded.write_text(_compile(base / "java-agent"))
        return recorded.read_text()


def _compile(out: Path) -> str:
    done = subprocess.run(["bash", str(BUILD_SH), "--host", str(out)], capture_output=True, timeout=COMPILE_DEADLINE,
                          check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode().strip().splitlines()[-1]


def start_java_agent(classpath: str, *extra: str) -> JavaAgent:
    token = secrets.token_hex(16)
    env = dict(os.environ, MOBILE_AGENT_TOKEN=token)
    process = subprocess.Popen(
        [str(JAVA), "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classpath,
         "dev.mobileagent.agent.HostMain", "serve", "--port", "0", "--idle-exit-ms", "20000", *extra],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
    )
    started = JavaAgent(process, {}, token)
    try:
        line = read_line(process, time.monotonic() + READY_DEADLINE)
        prefix, _, payload = line.partition(" ")
        assert prefix == "MOBILE_AGENT_READY", line
        started.ready = json.loads(payload)
    except BaseException:
        started.stop()
        raise
    return started
