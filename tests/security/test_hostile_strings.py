"""Hostile strings through every call that reaches a shell or a file name, on the virtual device:
quotes, `$(...)`, backticks, `;`, `&&`, pipes, globs, newlines, NUL and non-BMP unicode. Each
arrives intact (the bytes on the far side are the bytes given) or is refused with an errors.py
error naming the problem; nothing is ever executed: a `touch /data/local/tmp/pwned` hidden in any of
them never creates the canary file on the device's file system."""

from __future__ import annotations

import contextlib
import socket
import tempfile
from pathlib import Path

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.agent import Records
from pytest_mobile_agent.agent.launch import MAIN_CLASS
from pytest_mobile_agent.automation_lock import AutomationLock
from pytest_mobile_agent.virtual.kernel.creds import ROOT
from tests.support.lab import CANARY, Bench

TOUCH = f"touch {CANARY}"
HOSTILE = [
    "it's", 'say "hi"', f"$({TOUCH})", f"`{TOUCH}`", f"x; {TOUCH}", f"x && {TOUCH}", f"x | {TOUCH}",
    f"x\n{TOUCH}", f"x\r\n{TOUCH}", f"'; {TOUCH}; '", f'"; {TOUCH}; "', f"$'\\n'{TOUCH}", "${IFS}$HOME",
    "*", "~root", "-n", "--help", "\\", "#not a comment", " leading and trailing ", "tab\there",
    "héllo 👋 𝄞 \U0010fffd", "a" * 300, "",
]
WITH_NUL = ["nul\x00byte", f"x\x00; {TOUCH}"]


@pytest.fixture(autouse=True)
def no_canary(vd: Bench):
    vd.model.shell(f"rm -f {CANARY}")
    yield
    assert not vd.exists(CANARY), "a hostile string was executed on the device"


def ids(values: list[str]) -> list[str]:
    return [repr(v)[:40] for v in values]


# --- Device.shell argument building ------------------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE, ids=ids(HOSTILE))
def test_a_shell_argument_arrives_as_one_word_intact(vd: Bench, text: str) -> None:
    out = vd.device.shell(["printf", "%s", text])
    assert out.exit_code == 0, out.stderr
    assert out.stdout == text.encode("utf-8")


@pytest.mark.parametrize("text", HOSTILE, ids=ids(HOSTILE))
def test_a_getprop_name_arrives_as_one_word(vd: Bench, text: str) -> None:
    assert vd.device.getprop(text) == ""  # no such property, and nothing else ran


@pytest.mark.parametrize("package", HOSTILE, ids=ids(HOSTILE))
def test_a_hostile_package_name_reaches_the_activity_manager_as_one_argument(vd: Bench, package: str) -> None:
    started = vd.device.shell(["am", "start", "-W", "-n", f"{package}/.Main"])
    said = started.text() + started.stderr.decode("utf-8", "replace")
    assert started.exit_code != 0  # no such app
    assert f"cmp={package}/.Main }}" in said or f"Bad component name: {package}/.Main" in said  # intact
    vd.device.shell(["am", "force-stop", package])
    assert vd.model.activity.foreground() != package


@pytest.mark.parametrize("text", WITH_NUL, ids=ids(WITH_NUL))
def test_a_nul_in_a_shell_argument_or_line_is_refused_before_anything_is_sent(vd: Bench, text: str) -> None:
    with pytest.raises(errors.InvalidArgument, match="NUL"):
        vd.device.shell(["printf", "%s", text])
    with pytest.raises(errors.InvalidArgument, match="NUL"):
        vd.device.shell(f"printf %s {text}")


# --- file names: push remote paths --------------------------------------------------------------------

NAMES = [n for n in HOSTILE if n and "/" not in n and len(n) < 200] + ["a,b,420", "x,33188"]


@pytest.mark.parametrize("name", NAMES, ids=ids(NAMES))
def test_a_pushed_file_lands_under_exactly_its_name(vd: Bench, name: str) -> None:
    remote = f"/data/local/tmp/{name}"
    data = name.encode("utf-8") + b"\x00payload"
    vd.device.push_bytes(data, remote, mode=0o644)
    try:
        assert vd.model.fs.read_file(remote, ROOT) == data  # the device model's own view: the exact name
        assert vd.device.shell(["cat", remote]).stdout == data
        assert name in vd.model.fs.listdir("/data/local/tmp", ROOT)
    finally:
        vd.device.shell(["rm", "-f", remote])
    assert not vd.model.fs.exists(remote)


@pytest.mark.parametrize("remote", ["/data/local/tmp/nul\x00byte", ""], ids=["nul", "empty"])
def test_a_remote_path_that_cannot_cross_the_wire_is_refused(vd: Bench, remote: str) -> None:
    with pytest.raises(errors.InvalidArgument):
        vd.device.push_bytes(b"x", remote)


def test_a_remote_path_over_adbds_limit_is_refused_naming_the_limit(vd: Bench) -> None:
    with pytest.raises(errors.InvalidArgument, match="1024"):
        vd.device.push_bytes(b"x", "/data/local/tmp/" + "a" * 1100)


# --- forward and reverse specs -----------------------------------------------------------------------

SOCKET_NAMES = [n for n in HOSTILE if n and ";" not in n and len(n.encode()) <= 100]


@pytest.mark.parametrize("name", SOCKET_NAMES, ids=ids(SOCKET_NAMES))
def test_a_forward_to_a_hostile_socket_name_reaches_exactly_that_socket(vd: Bench, name: str) -> None:
    listener = vd.model.sockets.listen_abstract(name, 1)
    port = vd.device.forward("tcp:0", f"localabstract:{name}")
    assert port is not None
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2.0) as sock:
            sock.sendall(b"ping")
            stream, _ = listener.accept(2.0)
            assert stream.recv(2.0) == b"ping"
            stream.close()
    finally:
        vd.device.remove_forward(f"tcp:{port}")
        listener.close()


@pytest.mark.parametrize("name", SOCKET_NAMES, ids=ids(SOCKET_NAMES))
def test_a_reverse_on_a_hostile_socket_name_listens_on_exactly_that_name(vd: Bench, name: str) -> None:
    host = socket.socket()
    host.bind(("127.0.0.1", 0))
    host.listen(1)
    host.settimeout(2.0)
    remote = f"localabstract:{name}"
    vd.device.reverse(remote, f"tcp:{host.getsockname()[1]}")
    try:
        stream = vd.model.open_service(remote)
        conn, _ = host.accept()
        with conn:
            stream.send(b"pong")
            conn.settimeout(2.0)
            assert conn.recv(4) == b"pong"
        stream.close()
    finally:
        vd.device.remove_reverse(remote)
        host.close()


@pytest.mark.parametrize("spec", ["tcp:1;tcp:2", "", "localabstract:x\x00y"], ids=["semicolon", "empty", "nul"])
def test_a_spec_that_would_change_the_request_is_refused(vd: Bench, spec: str) -> None:
    with pytest.raises(errors.InvalidArgument):
        vd.device.forward("tcp:0", spec)
    with pytest.raises(errors.InvalidArgument):
        vd.device.reverse(spec, "tcp:1")


@pytest.mark.parametrize(
    "serial", [f"x$({TOUCH})", "emulator-5554 ", "😀"], ids=ids([f"x$({TOUCH})", "emulator-5554 ", "😀"])
)
def test_a_hostile_serial_is_the_servers_not_found_never_another_device(vd: Bench, serial: str) -> None:
    with pytest.raises(errors.AdbFailure) as failure:
        vd.server.device(serial).shell("true")
    assert "not found" in failure.value.reason


@pytest.mark.parametrize("serial", ["emulator-5554\x00", "a\nb", "emulator-5554\r"])
def test_a_serial_with_a_control_character_is_refused(vd: Bench, serial: str) -> None:
    with pytest.raises(errors.InvalidArgument):
        vd.server.device(serial)


# --- the agent launch ---------------------------------------------------------------------------------

ARGS = [a for a in HOSTILE if a]


@pytest.fixture
def recorded_argv(vd: Bench):
    """The agent's main replaced by one that records its argv and prints an error line: the launch
    line still runs through the device's shell exactly as the deployer wrote it."""
    seen: list[list[str]] = []
    saved = vd.model.app_process_mains.get(MAIN_CLASS)

    def record(proc, argv=None):  # noqa: ANN001 - the device's app_process main signature
        seen.append(list(proc.argv if argv is None else argv))
        proc.stdout.write(b'MOBILE_AGENT_ERROR {"code": "test", "message": "recorded"}\n')
        return 1

    vd.model.app_process_mains[MAIN_CLASS] = record
    yield seen
    if saved is not None:
        vd.model.app_process_mains[MAIN_CLASS] = saved


def jars_on(vd: Bench) -> list[str]:
    return [n for n in vd.model.fs.listdir("/data/local/tmp", ROOT) if n.endswith(".jar")]


def test_extra_launch_arguments_arrive_as_the_agents_own_argv_intact(vd: Bench, recorded_argv) -> None:
    with pytest.raises(errors.DeployError, match="recorded"):
        vd.deployer(extra_args=tuple(ARGS)).attach()
    assert len(recorded_argv) == 1 and recorded_argv[0][-len(ARGS):] == ARGS
    assert not jars_on(vd)


def test_an_extra_launch_argument_with_a_nul_is_refused_before_anything_runs(vd: Bench, recorded_argv) -> None:
    with pytest.raises(errors.InvalidArgument, match="NUL"):
        vd.deployer(extra_args=("ok", "nul\x00")).attach()
    assert recorded_argv == [] and not vd.agent_pids()
    assert not jars_on(vd), "the pushed jar is deleted when the launch is refused"


# --- host file names: records and locks per serial ------------------------------------------------------

SERIALS = [s for s in HOSTILE if s] + ["..", ".", "../../etc/passwd", "127.0.0.1:5555", "a/b", "a\x00b"]


@pytest.mark.parametrize("serial", SERIALS, ids=ids(SERIALS))
def test_a_records_file_per_serial_stays_in_its_directory_and_round_trips(serial: str) -> None:
    from pytest_mobile_agent.agent.records import Record

    with tempfile.TemporaryDirectory() as tmp:
        records = Records.in_dir(tmp)
        path = records.path_for(serial)
        assert path.parent == Path(tmp) and path.name not in (".", "..")
        record = Record(serial, "mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae", 3000,
                        "0123456789abcdef0123456789abcdef", "0.1.0", 1, "7fec0cb05341")
        try:
            records.put(record)
        except errors.MobileAgentError as exc:  # refused with our error: fine, and said clearly
            assert serial in str(exc) or "serial" in str(exc)
            return
        assert Records.in_dir(tmp).get(serial) == record
        assert [p.name for p in Path(tmp).iterdir()] == [path.name]
        assert all(Records.in_dir(tmp).get(other) is None for other in SERIALS if other != serial)


def test_distinct_serials_never_share_a_records_file() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        records = Records.in_dir(tmp)
        assert len({records.path_for(s) for s in SERIALS}) == len(set(SERIALS))


@pytest.mark.parametrize("serial", SERIALS, ids=ids(SERIALS))
def test_a_lock_file_per_serial_stays_in_its_directory(serial: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        try:
            lock = AutomationLock(serial, directory=Path(tmp))
        except errors.MobileAgentError:
            return
        for path in (lock.lock_path, lock.holder_path):
            assert path.parent == Path(tmp) and path.name not in (".", "..")
        with contextlib.suppress(errors.MobileAgentError), lock.held("test", 1.0):
            assert lock.lock_path.exists()
        assert sorted(p.parent for p in Path(tmp).rglob("*")) == [Path(tmp)] * len(list(Path(tmp).rglob("*")))


# --- text through the agent ------------------------------------------------------------------------

TEXTS = [t for t in HOSTILE if t and len(t) < 100] + ["nul\x00inside"]


def test_text_typed_through_the_agent_arrives_intact_in_the_field(vd: Bench) -> None:
    from pytest_mobile_agent.mirror import Mirror
    from pytest_mobile_agent.session import ControllerChoice, Session, select_paths

    vd.open("Login")
    session = Session.start_selected(vd.attach(), select_paths(vd.serial, True, ControllerChoice.Off(), None),
                                     device=vd.device)
    try:
        screen = Mirror(session.backend(), timeout=10.0)
        for text in TEXTS:  # direct: the node's text is replaced by exactly the text given
            try:
                ack = screen.type_text(text, method="direct", id="username")
            except errors.AgentError as exc:  # refused: said with the agent's code
                assert exc.code == "invalid_params" and "\x00" in text, exc
                continue
            assert ack.accepted and ack.method == "direct"
            screen.refresh()
            assert screen.find(id="username").text == text
        typed = ""
        for text in TEXTS[:8]:  # a field without direct setting: keys or the clipboard, at the cursor
            ack = screen.type_text(text, id="invite_code")
            assert ack.accepted and ack.method in ("keys", "clipboard"), ack
            typed += text
        screen.refresh()
        assert screen.find(id="invite_code").text == typed
    finally:
        session.stop()
