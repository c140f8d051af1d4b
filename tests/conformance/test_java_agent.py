"""The Python host's `Connection` against the Java agent on the host JVM.

`agent-android/build.sh --host DIR` compiles the agent (src/ against the Android stubs) and its host
entry point `dev.mobileagent.agent.HostMain`, which serves protocol 1 on loopback TCP with the fake
platform and a fixed UI (the status bar over the Compose fixture's Login tab). Each test starts its
own agent process and stops it by pid. HostMain takes control lines on standard input: `tick` (the
status bar's clock changes: an event), `gap` (the next event skips a seq), `peer-uid UID`, `toast
PACKAGE TEXT` (an app's toast: its accessibility event), each acknowledged on standard output once
applied.

`agent-android/build.sh --check` runs the agent's JUnit suite from here: that is how CI runs it.
The build digest is checked on both sides: `AgentJar`'s `build_of` against the shared vectors of
`tests/golden/xxh3_vectors.json` (which the Java `Xxh3Test` checks too), and the build the Java agent
reports for a file against `build_of` of the same bytes. Without javac (or, for the suite, junit4)
the Java tests skip and say so.
"""

from __future__ import annotations

import json
import os
import queue
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pytest_mobile_agent import errors
from pytest_mobile_agent.agent.connection import Connection, ConnectionEvent
from pytest_mobile_agent.agent.jar import build_of
from pytest_mobile_agent.agent.protocol import (
    FrameDecoder,
    HostSession,
    OutOfSync,
    ProtocolEvent,
    Resynced,
    encode,
)
from tests.support.java_agent import (
    AGENT_DIR,
    BUILD_SH,
    CHECK_DEADLINE,
    CLIENT_JIT,
    JAVA,
    JAVAC,
    JSON_JAR,
    JUNIT_JAR,
    JavaAgent,
    needs_java,
    start_java_agent,
)

ROOT = Path(__file__).resolve().parents[2]
COMPOSE, STATUS_BAR = 12, 1


@pytest.fixture
def java_agent(classpath: str) -> Iterator[JavaAgent]:
    started = start_java_agent(classpath)
    try:
        yield started
    finally:
        started.stop()


def _collect(conn: Connection) -> queue.Queue[ConnectionEvent]:
    events: queue.Queue[ConnectionEvent] = queue.Queue()

    def sink(event: ConnectionEvent) -> None:
        events.put(event)

    conn.set_sink(sink)
    return events


def _next(events: queue.Queue[ConnectionEvent], kind: type, timeout: float = 3.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no {kind.__name__} within {timeout} s")
        event = events.get(timeout=left)
        if isinstance(event, kind):
            return event


def _node(snapshot: dict[str, Any], key: str, value: str) -> dict[str, Any]:
    for window in snapshot["windows"]:
        for node in window["nodes"]:
            if node.get(key) == value:
                return dict(node)
    raise AssertionError(f"no node with {key}={value!r}")


@needs_java
def test_the_handshake_names_the_agent_its_version_and_build(java_agent: JavaAgent) -> None:
    assert java_agent.ready["version"] == (AGENT_DIR / "VERSION").read_text().strip()
    assert java_agent.ready["protocols"] == [1]
    assert java_agent.ready["stopped"] == []
    with java_agent.connect() as conn:
        hello = conn.hello
        assert hello.agent == "mobile-agent-android"
        assert hello.version == java_agent.ready["version"]
        assert hello.build == java_agent.ready["build"]
        assert hello.pid == java_agent.ready["pid"] == java_agent.process.pid
        assert hello.socket == java_agent.ready["socket"]
        assert {"events", "bounds", "window_metadata", "text_clipboard", "a11y_fields"} <= set(hello.capabilities)
        assert conn.protocol == 1


@needs_java
def test_a_refused_token_is_unauthorized_and_the_agent_keeps_serving(java_agent: JavaAgent) -> None:
    with pytest.raises(errors.Unauthorized):
        java_agent.connect(token="f" * 32)
    with java_agent.connect() as conn:
        assert conn.request("snapshot", {}, timeout=5.0)["windows"]


@needs_java
def test_an_app_peer_is_refused_and_the_agent_keeps_serving(java_agent: JavaAgent) -> None:
    with java_agent.connect() as host:
        java_agent.control("peer-uid 10123")
        with pytest.raises(errors.ProtocolError, match="peer_not_allowed"):
            java_agent.connect()
        assert "MOBILE_AGENT_LOG refused peer uid 10123" in java_agent.control("peer-uid 2000")
        assert host.request("snapshot", {}, timeout=5.0)["windows"]


@needs_java
def test_a_root_peer_reaches_the_token_check_of_an_agent_running_as_the_shell(java_agent: JavaAgent) -> None:
    """Under `adb root` the host launches the agent with `su 2000` (issue 37, item 1): adbd's
    connection is root's, and the token is the check."""
    java_agent.control("peer-uid 0")
    with pytest.raises(errors.Unauthorized):
        java_agent.connect(token="f" * 32)
    with java_agent.connect() as root:
        assert root.request("snapshot", {}, timeout=5.0)["windows"]
    java_agent.control("peer-uid 2000")


@needs_java
def test_under_adb_root_the_agent_serves_a_root_peer_and_refuses_the_shell(classpath: str) -> None:
    """`adb root`: adbd and the shell run as uid 0, so the agent (started as root) serves adbd's
    root connection; a shell peer is refused (docs/agent-android.md, "adb root")."""
    agent = start_java_agent(classpath, "--agent-uid", "0", "--peer-uid", "0")
    try:
        with agent.connect() as host:
            assert host.hello.version and host.request("snapshot", {}, timeout=5.0)["windows"]
        agent.control("peer-uid 2000")
        with pytest.raises(errors.ProtocolError, match="peer_not_allowed"):
            agent.connect()
    finally:
        agent.stop()


@needs_java
def test_a_snapshot_window_counts_its_skipped_children(java_agent: JavaAgent) -> None:
    """`skipped_children` (docs/protocol.md) reaches the Python host as the agent wrote it."""
    with java_agent.connect() as conn:
        snap = conn.request("snapshot", {}, timeout=10.0)
    assert [w["skipped_children"] for w in snap["windows"]] == [0, 0]


@needs_java
def test_a_host_speaking_no_shared_protocol_refuses_with_version_mismatch_and_the_agent_exits(
    java_agent: JavaAgent,
) -> None:
    with pytest.raises(errors.VersionMismatch):
        java_agent.connect(session=HostSession(token=java_agent.token, protocols=(2,)))
    assert java_agent.process.wait(timeout=10) == 0


@needs_java
def test_a_snapshot_reads_every_window_with_unique_ids_and_the_display(java_agent: JavaAgent) -> None:
    with java_agent.connect() as conn:
        snap = conn.request("snapshot", {"idle_timeout_ms": 500, "idle_quiet_ms": 200}, timeout=10.0)
    assert [w["id"] for w in snap["windows"]] == [STATUS_BAR, COMPOSE]
    app = snap["windows"][1]
    assert app["sends_change_events"] is False
    assert app["owner"] is None
    assert snap["windows"][0]["owner"] == "com.android.systemui"
    ids = [n["id"] for w in snap["windows"] for n in w["nodes"]]
    assert len(ids) == len(set(ids)) == snap["node_count"]
    assert snap["display"] == {"width": 1080, "height": 2400, "density": 420, "rotation": 0}
    assert snap["seq"] == 0
    assert snap["truncated"] is False


@needs_java
def test_a_tap_is_accepted_and_the_next_read_shows_the_new_screen(java_agent: JavaAgent) -> None:
    with java_agent.connect() as conn:
        assert conn.request("tap", {"x": 900, "y": 270, "hold_ms": 0}, timeout=5.0) == {"accepted": True}
        snap = conn.request("snapshot", {"idle_timeout_ms": 500}, timeout=10.0)
        assert snap["idle"]["idle"] is True
        assert snap["windows"][1]["node_count"] == 573
        assert _node(snap, "text", "Cell 499")
        capped = conn.request("snapshot", {"max_nodes": 100}, timeout=10.0)
        assert capped["truncated"] is True and capped["node_count"] == snap["node_count"]


@needs_java
def test_text_is_set_directly_or_typed_and_the_method_is_named(java_agent: JavaAgent) -> None:
    with java_agent.connect() as conn:
        snap = conn.request("snapshot", {}, timeout=10.0)
        user, pin = _node(snap, "res", "username")["id"], _node(snap, "res", "pin")["id"]
        direct = conn.request("text", {"node": user, "text": "héllo 👋", "method": "auto"}, timeout=5.0)
        assert direct == {"accepted": True, "method": "direct"}
        assert conn.request("text", {"node": pin, "text": "1234", "method": "auto"}, timeout=5.0)["method"] == "keys"
        assert (
            conn.request("text", {"node": pin, "text": "日本", "method": "auto"}, timeout=5.0)["method"] == "clipboard"
        )
        after = conn.request("snapshot", {"evict_event_less": True}, timeout=10.0)
        assert _node(after, "res", "username")["text"] == "héllo 👋"
        assert _node(after, "res", "pin")["text"] == "1234日本"
        with pytest.raises(errors.AgentError) as refused:
            conn.request("text", {"node": pin, "text": "1", "method": "direct"}, timeout=5.0)
        assert refused.value.code == "invalid_params"


@needs_java
def test_a_toast_round_trips_from_its_event_to_the_host_through_the_agents_buffer(java_agent: JavaAgent) -> None:
    """docs/protocol.md `toasts`: the fake platform delivers a toast's TYPE_NOTIFICATION_STATE_CHANGED
    event; the host's session reads it back, dated on its own clock, and asks for the next after it."""
    from pytest_mobile_agent.session.toasts import AgentToasts

    with java_agent.connect() as conn:
        toasts = AgentToasts(conn)
        assert toasts.since(0).toasts == ()
        java_agent.control("toast dev.mobileagent.fixture Continuing as guest")
        before = time.monotonic()
        batch = toasts.since(0)
        assert [(t.id, t.text, t.package, t.class_name) for t in batch.toasts] == [
            (1, "Continuing as guest", "dev.mobileagent.fixture", "android.widget.Toast")]
        assert batch.toasts[0].shown_at <= before + 0.05 and batch.last == 1
        java_agent.control("toast dev.mobileagent.fixture Saved")
        assert [t.text for t in toasts.since(batch.last).toasts] == ["Saved"]


@needs_java
def test_events_arrive_with_seq_from_1(java_agent: JavaAgent) -> None:
    with java_agent.connect() as conn:
        events = _collect(conn)
        java_agent.control("tick")
        java_agent.control("tick")
        first, second = _next(events, ProtocolEvent), _next(events, ProtocolEvent)
        assert (first.seq, second.seq) == (1, 2)
        assert first.name == "window_changed"
        assert first.data["window"] == STATUS_BAR and first.data["kinds"] == ["text"]


@needs_java
def test_a_sequence_gap_is_out_of_sync_and_the_host_resyncs(java_agent: JavaAgent) -> None:
    with java_agent.connect() as conn:
        events = _collect(conn)
        java_agent.control("tick")
        assert _next(events, ProtocolEvent).seq == 1
        java_agent.control("gap")
        java_agent.control("tick")
        gap = _next(events, OutOfSync)
        assert (gap.expected, gap.got) == (2, 3)
        assert _next(events, Resynced).seq == 3
        java_agent.control("tick")
        assert _next(events, ProtocolEvent).seq == 4


@needs_java
def test_pings_keep_a_quiet_connection_alive(java_agent: JavaAgent) -> None:
    with java_agent.connect() as conn:
        time.sleep(3.3)  # longer than either side's 3 s liveness bound, with nothing but pings
        assert not conn.closed
        assert conn.request("snapshot", {}, timeout=5.0)["windows"]


@needs_java
def test_shutdown_is_answered_and_the_agent_exits(java_agent: JavaAgent) -> None:
    conn = java_agent.connect()
    try:
        assert conn.request("shutdown", {}, timeout=5.0) == {}
        assert java_agent.process.wait(timeout=10) == 0
        assert conn.wait_closed(5.0)
    finally:
        conn.close()


@needs_java
@pytest.mark.skipif(not JUNIT_JAR.is_file(), reason="JUnit 4 is not installed (Debian: apt-get install junit4)")
def test_the_agents_junit_suite_passes() -> None:
    done = subprocess.run(["bash", str(BUILD_SH), "--check"], capture_output=True, timeout=CHECK_DEADLINE, check=False)
    output = done.stdout.decode(errors="replace") + done.stderr.decode(errors="replace")
    assert done.returncode == 0, output[-6000:]
    assert "OK (" in output


@needs_java
def test_without_an_sdk_the_device_build_says_what_is_missing(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("ANDROID_HOME", "ANDROID_SDK_ROOT")}
    env["ANDROID_HOME"] = str(tmp_path)  # an SDK directory with no platform and no build-tools
    done = subprocess.run(["bash", str(BUILD_SH)], capture_output=True, timeout=60, check=False, env=env)
    message = done.stderr.decode()
    assert done.returncode == 2
    assert "android.jar" in message and "platforms;android-" in message
    assert "d8" in message and "build-tools;" in message
    assert "--check" in message
    unset = {k: v for k, v in env.items() if k != "ANDROID_HOME"}
    done = subprocess.run(["bash", str(BUILD_SH)], capture_output=True, timeout=60, check=False, env=unset)
    assert done.returncode == 2
    assert "ANDROID_HOME" in done.stderr.decode()


def _generate(n: int) -> bytes:
    """The input of tests/golden/xxh3_vectors.json of length n (the generator it documents)."""
    state, out = n, bytearray(n)
    for i in range(n):
        state = (state * 6364136223846793005 + 1442695040888963407) & ((1 << 64) - 1)
        out[i] = state >> 56
    return bytes(out)


def test_xxh3_the_shared_vectors_give_the_python_build_the_java_agent_checks_too() -> None:
    doc = json.loads((ROOT / "tests" / "golden" / "xxh3_vectors.json").read_text())
    lengths = [v["length"] for v in doc["vectors"]]
    assert {0, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 1024, 4096, 100000} <= set(lengths)
    for vector in doc["vectors"]:
        assert build_of(_generate(vector["length"])) == vector["xxh3_64"][:12], vector["length"]


@needs_java
def test_the_build_the_java_agent_reports_is_agent_jar_build_of_the_same_bytes(classpath: str, tmp_path: Path) -> None:
    jar = tmp_path / "agent.jar"
    jar.write_bytes(secrets.token_bytes(100_003))
    started = start_java_agent(classpath, "--build-file", str(jar))
    try:
        assert started.ready["build"] == build_of(jar.read_bytes())
        with started.connect() as conn:
            assert conn.hello.build == build_of(jar.read_bytes())
    finally:
        started.stop()


@pytest.fixture(scope="module")
def shared_agent(classpath: str) -> Iterator[JavaAgent]:
    started = start_java_agent(classpath)
    try:
        yield started
    finally:
        started.stop()


_values = st.one_of(st.none(), st.booleans(), st.integers(-3, 2**40), st.text(max_size=12),
                    st.lists(st.integers(0, 100), max_size=3), st.just({}))
_messages = st.dictionaries(
    st.sampled_from(["type", "id", "method", "deadline_ms", "params", "nonce", "token", "protocol"]), _values,
).map(lambda d: json.dumps(d).encode())
_typed = st.fixed_dictionaries(
    {"type": st.sampled_from(["request", "ping", "pong", "auth", "welcome", "refuse", "telemetry"])},
    optional={"id": _values, "method": st.sampled_from(["snapshot", "bounds", "nope", 7]), "deadline_ms": _values,
              "params": _values, "nonce": _values},
).map(lambda d: json.dumps(d).encode())


def _welcomed(agent: JavaAgent) -> socket.socket:
    sock = agent.stream()
    sock.sendall(encode({"type": "auth", "token": agent.token}))
    sock.sendall(encode({"type": "welcome", "protocol": 1, "host": "hypothesis"}))
    return sock


def _until_pong_or_close(sock: socket.socket, nonce: int, timeout: float) -> list[dict[str, Any]]:
    """Every frame the agent sent until our pong (the frame was served or ignored) or the close."""
    decoder = FrameDecoder()
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"the agent neither answered nor closed: {seen}"
        sock.settimeout(left)
        try:
            data = sock.recv(65536)
        except ConnectionResetError:
            return seen
        if not data:
            return seen
        for message in decoder.feed(data):
            seen.append(message)
            if message["type"] == "pong" and message.get("nonce") == nonce:
                return seen


@needs_java
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.one_of(st.binary(min_size=1, max_size=64), _messages, _typed))
def test_any_frame_after_the_handshake_is_served_ignored_or_closed_as_a_protocol_error(
        shared_agent: JavaAgent, payload: bytes) -> None:
    assume(b"shutdown" not in payload)
    with _welcomed(shared_agent) as sock:
        sock.sendall(len(payload).to_bytes(4, "big") + payload)
        sock.sendall(encode({"type": "ping", "nonce": 424242}))
        seen = _until_pong_or_close(sock, 424242, timeout=5.0)
    kinds = [m["type"] for m in seen]
    assert kinds[0] == "hello"
    answered = kinds[-1] == "pong"
    closed_for_protocol = any(m["type"] == "closing" and m["reason"] == "protocol_error" for m in seen)
    assert answered or closed_for_protocol, seen
    assert shared_agent.process.poll() is None, "the agent keeps serving"


JIMAGE = shutil.which("jimage")
STAND_IN_D8 = """#!/usr/bin/env bash
# a stand-in for the SDK's d8: records its arguments, copies the input jar to --output
echo "$@" > "$(dirname "$0")/d8.args"
out=""; input=""
while [ $# -gt 0 ]; do
    case "$1" in
        --output|--lib|--min-api) [ "$1" = --output ] && out="$2"; shift 2;;
        --release) shift;;
        *) input="$1"; shift;;
    esac
done
cp "$input" "$out"
"""


def _fake_sdk(root: Path, classes: Path) -> Path:
    """An SDK layout whose android.jar is the agent's stubs, org.json and the JDK's java.* classes."""
    sdk = root / "sdk"
    platform = sdk / "platforms" / "android-36"
    tools = sdk / "build-tools" / "36.0.0"
    platform.mkdir(parents=True)
    tools.mkdir(parents=True)
    stubs = sorted(str(p) for p in (AGENT_DIR / "stubs").rglob("*.java"))
    subprocess.run([str(JAVAC), *CLIENT_JIT, "-nowarn", "-Xlint:-options", "--release", "8", "-cp", str(JSON_JAR), "-d",
                    str(classes), *stubs], check=True, capture_output=True, timeout=120)
    subprocess.run(["unzip", "-q", "-o", str(JSON_JAR), "org/*", "-d", str(classes)], check=True, timeout=60)
    modules = Path(str(JAVA)).resolve().parents[1] / "lib" / "modules"
    extracted = root / "jdk"
    subprocess.run(
        [
            str(JIMAGE),
            "extract",
            "--dir",
            str(extracted),
            "--include",
            "regex:/java.(base|logging)/java/(lang|util|io|nio|net|security|text|math)/.*",
            str(modules),
        ],
        check=True,
        timeout=120,
    )
    for module in ("java.base", "java.logging"):
        shutil.copytree(extracted / module / "java", classes / "java", dirs_exist_ok=True)
    subprocess.run(["jar", "cf", str(platform / "android.jar"), "-C", str(classes), "."], check=True, timeout=120)
    d8 = tools / "d8"
    d8.write_text(STAND_IN_D8)
    d8.chmod(0o755)
    return sdk


@needs_java
@pytest.mark.skipif(JIMAGE is None or shutil.which("unzip") is None or shutil.which("jar") is None,
                    reason="the stand-in SDK needs the JDK's jimage and jar, and unzip")
def test_with_an_sdk_the_build_compiles_against_android_jar_and_dexes_with_d8(tmp_path: Path) -> None:
    """build.sh's SDK branch, against a stand-in SDK (this machine has none): the sources compile
    against a platform's android.jar, d8 gets the classes with --min-api 24, the jar is written."""
    sdk = _fake_sdk(tmp_path, tmp_path / "android-classes")
    dist = tmp_path / "dist"
    env = dict(os.environ, ANDROID_HOME=str(sdk), MOBILE_AGENT_DIST=str(dist))
    done = subprocess.run(["bash", str(BUILD_SH)], capture_output=True, timeout=300, check=False, env=env)
    assert done.returncode == 0, done.stderr.decode()
    args = (sdk / "build-tools" / "36.0.0" / "d8.args").read_text().split()
    assert args[args.index("--min-api") + 1] == "24"
    assert args[args.index("--lib") + 1] == str(sdk / "platforms" / "android-36" / "android.jar")
    jar = dist / "mobile-agent-android.jar"
    names = subprocess.run(["unzip", "-Z1", str(jar)], capture_output=True, check=True, timeout=60).stdout.decode()
    assert "dev/mobileagent/agent/Main.class" in names
    assert "dev/mobileagent/agent/android/AndroidPlatform.class" in names
    assert "HostMain" not in names and "/fake/" not in names, "the host-only code stays out of the device jar"
    assert "org/json" not in names and "android/app" not in names, "the platform's classes are not bundled"
    version = subprocess.run(["unzip", "-p", str(jar), "dev/mobileagent/agent/Version.class"], capture_output=True,
                             check=True, timeout=60).stdout
    assert f"mobile-agent-android {(AGENT_DIR / 'VERSION').read_text().strip()}".encode() in version
