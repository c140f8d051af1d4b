"""emulator::discovery::tests: the directories per OS, the pid_<pid>.ini parser, and which file wins."""

from __future__ import annotations

import os
import time
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.emulator import discovery
from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV, candidate_dirs, parse_ini
from tests.support.discovery_files import WriteFile, token_mode


def test_linux_uses_xdg_runtime_dir(tmp_path: Path) -> None:
    dirs = candidate_dirs({"XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/u"}, "linux")
    assert dirs[0] == Path("/run/user/1000/avd/running")
    assert Path("/home/u/.android/avd/running") in dirs


def test_linux_without_xdg_runtime_dir_uses_run_user_when_it_exists(tmp_path: Path) -> None:
    (tmp_path / "1000").mkdir()
    dirs = candidate_dirs({"HOME": "/home/u"}, "linux", uid=1000, run_user_root=tmp_path)
    assert dirs[0] == tmp_path / "1000" / "avd" / "running"


def test_linux_without_run_user_falls_back_to_the_user_directory(tmp_path: Path) -> None:
    dirs = candidate_dirs({"HOME": "/home/u"}, "linux", uid=1000, run_user_root=tmp_path)
    assert dirs == [Path("/home/u/.android/avd/running")]


def test_macos_uses_library_caches_temporary_items() -> None:
    dirs = candidate_dirs({"HOME": "/Users/u"}, "darwin")
    assert dirs[0] == Path("/Users/u/Library/Caches/TemporaryItems/avd/running")
    assert dirs[1] == Path("/Users/u/.android/avd/running")


def test_windows_uses_localappdata_temp() -> None:
    env = {"LOCALAPPDATA": r"C:\Users\u\AppData\Local", "USERPROFILE": r"C:\Users\u"}
    dirs = candidate_dirs(env, "win32")
    assert dirs[0] == Path(r"C:\Users\u\AppData\Local") / "Temp" / "avd" / "running"
    assert dirs[1] == Path(r"C:\Users\u") / ".android" / "avd" / "running"


def test_the_user_directories_follow_the_emulators_order(tmp_path: Path) -> None:
    prefs = tmp_path / "prefs"
    (prefs / ".android").mkdir(parents=True)
    env = {
        "XDG_RUNTIME_DIR": "/run/user/1000",
        "ANDROID_EMULATOR_HOME": "/emu-home",
        "ANDROID_PREFS_ROOT": str(prefs),
        "ANDROID_SDK_HOME": "/sdk-home",
        "HOME": "/home/u",
    }
    assert candidate_dirs(env, "linux") == [
        Path("/run/user/1000/avd/running"),
        Path("/emu-home/avd/running"),
        prefs / ".android" / "avd" / "running",
        Path("/sdk-home/avd/running"),
        Path("/home/u/.android/avd/running"),
    ]


def test_the_environment_override_replaces_every_candidate() -> None:
    env = {DISCOVERY_DIR_ENV: "/tmp/discovery", "XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/u"}
    for platform in ("linux", "darwin", "win32"):
        assert candidate_dirs(env, platform) == [Path("/tmp/discovery")]


def test_a_line_is_split_at_the_first_equals_sign() -> None:
    text = 'port.serial=5554\ncmdline="/sdk/qemu" "-prop" "a=b" "-grpc-use-token"\ngrpc.token=abc=\n'
    props = parse_ini(text)
    assert props["cmdline"] == '"/sdk/qemu" "-prop" "a=b" "-grpc-use-token"'
    assert props["grpc.token"] == "abc="
    assert props["port.serial"] == "5554"


def test_lines_without_an_equals_sign_and_crlf_endings_are_handled() -> None:
    props = parse_ini(b"[section]\r\nport.serial=5556\r\n\r\n=orphan\r\ngrpc.port = 8556\r\n")
    assert props == {"port.serial": "5556", "grpc.port": " 8556"}


def test_the_file_matching_the_console_port_wins(write_discovery: WriteFile, discovery_dir: Path) -> None:
    write_discovery(os.getpid(), **token_mode(console=5556, grpc_port=8556))
    parent = os.getppid()
    write_discovery(parent, **token_mode(console=5554, grpc_port=8554))
    found = discovery.find(5554, [discovery_dir])
    assert found is not None and found.pid == parent and found.grpc_port == 8554


def test_the_newest_file_wins(write_discovery: WriteFile, discovery_dir: Path) -> None:
    now = time.time()
    write_discovery(os.getpid(), mtime=now - 60, **token_mode(grpc_port=8554))
    write_discovery(os.getppid(), mtime=now, **token_mode(grpc_port=8600))
    found = discovery.find(5554, [discovery_dir])
    assert found is not None and found.grpc_port == 8600


def test_a_file_of_a_process_that_no_longer_runs_is_ignored(
    write_discovery: WriteFile, discovery_dir: Path, dead_pid: int
) -> None:
    now = time.time()
    write_discovery(os.getpid(), mtime=now - 60, **token_mode(grpc_port=8554))
    write_discovery(dead_pid, mtime=now, **token_mode(grpc_port=8600))  # newer, but stale
    found = discovery.find(5554, [discovery_dir])
    assert found is not None and found.pid == os.getpid() and found.grpc_port == 8554
    assert discovery.find(5554, [discovery_dir]) == found
    assert [f.pid for f in discovery.scan([discovery_dir], live_only=False)] == [dead_pid, os.getpid()]


def test_other_files_and_missing_directories_are_ignored(discovery_dir: Path, tmp_path: Path) -> None:
    (discovery_dir / "pid_x.ini").write_text("port.serial=5554\n")
    (discovery_dir / f"{os.getpid()}.ini").write_text("port.serial=5554\n")
    (discovery_dir / f"pid_{os.getpid()}.ini.tmp").write_text("port.serial=5554\n")
    assert discovery.scan([discovery_dir, tmp_path / "missing"]) == []


def test_the_file_reports_jwt_mode_without_a_token(write_discovery: WriteFile, discovery_dir: Path) -> None:
    write_discovery(
        port_serial="5554", grpc_port="8554", grpc_jwks="/d/1/jwks/u", grpc_jwk_active="/d/1/jwks/u/active.jwk"
    )
    found = discovery.find(5554, [discovery_dir])
    assert found is not None and found.uses_jwt and found.grpc_token is None


@given(st.binary(max_size=2048))
def test_the_parser_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    props = parse_ini(data)
    for key, value in props.items():
        assert key and key == key.strip() and "\n" not in key and "=" not in key
        assert "\n" not in value


@given(st.text(max_size=1024))
def test_the_parser_never_raises_on_arbitrary_text(text: str) -> None:
    props = parse_ini(text)
    assert all(k and "=" not in k for k in props)


KEYS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz._", min_size=1, max_size=20)
VALUES = st.text(alphabet=st.characters(exclude_characters="\r\n"), max_size=40)


@given(st.dictionaries(KEYS, VALUES))
def test_the_parser_reads_back_what_an_emulator_writes(props: dict[str, str]) -> None:
    text = "".join(f"{k}={v}\n" for k, v in props.items())
    assert parse_ini(text) == {k: v for k, v in props.items()}


def test_a_fifo_named_like_a_discovery_file_is_skipped_without_blocking(discovery_dir: Path) -> None:
    os.mkfifo(discovery_dir / f"pid_{os.getpid()}.ini")
    assert discovery.scan([discovery_dir]) == []
