"""The emulator console of a virtual device: the protocol on a socket (console.cpp's texts), and
`adb emu` through Google's own adb client and server."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent.emulator import Controller, resolve
from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV
from pytest_mobile_agent.virtual.fronts.console import TOKEN_FILE, EmulatorConsole, write_token_file
from pytest_mobile_agent.virtual.lab import VirtualLab, adb_binary

ADB = adb_binary()
BANNER_END = b"OK\r\n"


class Client:
    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.settimeout(5)

    def read_until(self, marker: bytes) -> bytes:
        data = b""
        while marker not in data:
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            data += chunk
        return data

    def ask(self, line: str, marker: bytes = BANNER_END) -> bytes:
        self.sock.sendall(line.encode() + b"\n")
        return self.read_until(marker)

    def read_to_end(self) -> bytes:
        data = b""
        while chunk := self.sock.recv(4096):
            data += chunk
        return data


@pytest.fixture
def console(tmp_path: Path) -> Iterator[tuple[EmulatorConsole, list[object]]]:
    calls: list[object] = []

    def grpc(port: int) -> int:
        calls.append(("grpc", port))
        return 8554 if port in (0, 8554) else 8554

    console = EmulatorConsole(avd_name="Pixel_7_API_36", token_path=write_token_file(tmp_path),
                              on_grpc=grpc, on_kill=lambda: calls.append("kill"))
    yield console, calls
    console.stop()


def test_a_client_must_authenticate_with_the_labs_token_before_the_full_command_set(
    console: tuple[EmulatorConsole, list[object]],
) -> None:
    con, calls = console
    client = Client(con.port)
    banner = client.read_until(BANNER_END)
    assert banner == (b"Android Console: Authentication required\r\n"
                      b"Android Console: type 'auth <auth_token>' to authenticate\r\n"
                      b"Android Console: you can find your <auth_token> in \r\n"
                      + f"'{con.token_path}'\r\nOK\r\n".encode())
    assert con.token_path.name == TOKEN_FILE and oct(con.token_path.stat().st_mode & 0o777) == "0o600"
    assert len(con.token() or "") == 16  # 12 random bytes in base64, as console_auth.cpp makes it
    assert client.ask("ping") == b"I am alive!\r\nOK\r\n"
    assert client.ask("avd name") == b"Pixel_7_API_36\r\nOK\r\n"
    assert client.ask("grpc 8554", b"\r\n") == b"KO: unknown command, try 'help'\r\n"  # not before auth
    assert (
        client.ask("auth wrong", b"\r\n")
        == b"KO: authentication token does not match ~/.emulator_console_auth_token\r\n"
    )
    assert client.ask("auth", b"\r\n") == b"KO: missing authentication token\r\n"
    assert client.ask(f"auth {con.token()}") == b"Android Console: type 'help' for a list of commands\r\nOK\r\n"
    assert client.ask("grpc 8554") == (b'OK: { "port": "8554" }\r\nOK: gRPC endpoint available at port 8554\r\nOK\r\n')
    assert client.ask("grpc 9000") == (
        b'OK: { "port": "8554" }\r\nOK: Port has already been activated at port: 8554\r\nOK\r\n'
    )
    assert client.ask("grpc x", b"\r\n") == b'KO: Usage: "grpc <port>"\r\n'
    assert calls == [("grpc", 8554), ("grpc", 9000)]
    client.sock.sendall(b"quit\n")
    assert client.read_to_end() == b""


def test_help_lists_the_commands_of_the_session_and_sub_commands_need_one(
    console: tuple[EmulatorConsole, list[object]],
) -> None:
    con, _ = console
    client = Client(con.port)
    client.read_until(BANNER_END)
    assert client.ask("help") == (
        b"Android console commands:\r\n    help|h|?\r\n    help-verbose\r\n    ping\r\n    avd\r\n"
        b"    auth\r\n    quit|exit\r\n\r\nTry 'help-verbose' for more description\r\n"
        b"Try 'help <command>' for command-specific help\r\nOK\r\n"
    )
    client.ask(f"auth {con.token()}")
    assert b"    kill\r\n    grpc\r\n" in client.ask("help")
    missing = client.ask("avd", b"KO: missing sub-command\r\n")
    assert missing.startswith(b"allows you to control (e.g. start/stop) the execution of the virtual device\r\n\r\n"
                              b"available sub-commands:\r\n    status           query virtual device status\r\n")
    assert client.ask("avd frob", b"KO:  bad sub-command\r\n").endswith(b"KO:  bad sub-command\r\n")
    assert client.ask("avd status") == b"virtual device is running\r\nOK\r\n"


def test_kill_says_goodbye_then_powers_the_device_off(console: tuple[EmulatorConsole, list[object]]) -> None:
    con, calls = console
    con.token_path.write_text("")  # an empty token file turns console auth off
    client = Client(con.port)
    assert client.read_until(BANNER_END) == b"Android Console: type 'help' for a list of commands\r\nOK\r\n"
    client.sock.sendall(b"kill\n")
    assert client.read_to_end() == b"OK: killing emulator, bye bye\r\nOK\r\n"
    deadline = time.monotonic() + 2
    while "kill" not in calls and time.monotonic() < deadline:
        time.sleep(0.01)
    assert calls == ["kill"]


@pytest.mark.parametrize(("request_line", "answer"), [
    (b"GET / HTTP/1.1", b"KO: Forbidden HTTP request. Aborting\r\n"),
    (b"\xff\xfe binary", b"KO: Forbidden binary request. Aborting\r\n"),
])
def test_an_http_request_or_binary_bytes_close_the_connection(console: tuple[EmulatorConsole, list[object]],
                                                               request_line: bytes, answer: bytes) -> None:
    con, calls = console
    client = Client(con.port)
    client.read_until(BANNER_END)
    client.sock.sendall(request_line + b"\r\n")
    assert client.read_to_end() == answer
    assert calls == []


# --- adb emu through Google's client and server ---------------------------------------------------

needs_adb = pytest.mark.skipif(ADB is None, reason="no adb binary (/usr/bin/adb): apt-get install adb")


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualLab]:
    monkeypatch.setenv(DISCOVERY_DIR_ENV, str(tmp_path / "avd-running"))
    with VirtualLab.start(1, real_adb=True) as started:
        yield started


def adb_emu(lab: VirtualLab, *args: str, home: str | None = None) -> subprocess.CompletedProcess[bytes]:
    assert ADB is not None
    env = dict(os.environ, **lab.console_environment())
    if home is not None:
        env["HOME"] = home
    return subprocess.run([ADB, "-P", str(lab.adb_port), "-s", lab.serials[0], "emu", *args], capture_output=True,
                          env=env, timeout=20, check=False)


@needs_adb
def test_adb_emu_avd_name_and_grpc_work_and_the_controller_is_found_as_an_emulators(lab: VirtualLab) -> None:
    serial = lab.serials[0]
    assert lab.console_port(serial) == int(serial.split("-")[1]) == lab.adbd_port(serial) - 1
    name = adb_emu(lab, "avd", "name")
    avd = lab.device(serial).properties["ro.boot.qemu.avd_name"]  # the lab's own (lab_avd_name)
    assert avd == f"Pixel_7_API_36_{lab.lab_id}_1"
    assert (name.returncode, name.stdout) == (0, f"{avd}\r\nOK\r\n".encode())  # adb prints what follows the 2nd OK
    started = adb_emu(lab, "grpc", "0")
    controller = lab.controller(serial)
    assert controller is not None
    assert started.stdout == (f'OK: {{ "port": "{controller.port}" }}\r\n'
                              f"OK: gRPC endpoint available at port {controller.port}\r\nOK\r\n").encode()
    endpoint = resolve(serial)  # what `--emulator-controller auto` does
    assert endpoint.port == controller.port and endpoint.token == controller.token
    connected = Controller.connect(endpoint, timeout=5.0)
    try:
        assert (connected.hardware.width, connected.hardware.height) == (1080, 2400)
    finally:
        connected.close()


@needs_adb
def test_adb_emu_without_the_token_only_reaches_the_preauth_commands(lab: VirtualLab, tmp_path: Path) -> None:
    result = adb_emu(lab, "grpc", "8554", home=str(tmp_path))  # no token file in that HOME: adb sends no auth
    assert (result.returncode, result.stdout) == (0, b"KO: unknown command, try 'help'\r\n")
    assert lab.controller(lab.serials[0]) is None


@needs_adb
def test_adb_emu_kill_takes_the_emulator_off_the_servers_list(lab: VirtualLab) -> None:
    assert ADB is not None
    serial = lab.serials[0]
    assert adb_emu(lab, "kill").stdout == b"OK: killing emulator, bye bye\r\nOK\r\n"
    deadline = time.monotonic() + 10
    while True:
        listing = subprocess.run([ADB, "-P", str(lab.adb_port), "devices"], capture_output=True, timeout=10).stdout
        if serial.encode() not in listing or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert serial.encode() not in listing
    assert lab.console_port(serial) is None


# --- the emulated network (issue 26): console.cpp's network commands, through the driver's client ---------


def test_network_speed_delay_and_status_as_the_console_answers_them(tmp_path: Path) -> None:
    from pytest_mobile_agent.emulator.console import Console, NetworkStatus
    from pytest_mobile_agent.errors import ControllerError
    from pytest_mobile_agent.virtual.android.hardware import NetworkLink

    link = NetworkLink()
    served = EmulatorConsole(avd_name="Pixel_7_API_36", token_path=write_token_file(tmp_path), on_grpc=lambda p: p,
                             on_kill=lambda: None, link=link)
    try:
        with Console.connect(served.port, serial="emulator-5554", token_path=tmp_path / TOKEN_FILE) as console:
            assert console.avd_name() == "Pixel_7_API_36"
            assert console.network_status() == NetworkStatus(0, 0, 0, 0)
            console.network_speed("lte")
            console.network_delay("100:300")
            assert console.network_status() == NetworkStatus(173000000, 58000000, 100, 300)
            console.network_speed("64")
            assert (link.upload_bps, link.download_bps) == (64000, 64000)
            with pytest.raises(ControllerError, match="KO: invalid <speed> argument, see 'help network speed' "
                                                      "for valid values"):
                console.network_speed("warp")
            with pytest.raises(ControllerError, match="KO: missing <delay> argument"):
                console.run("network delay")
            status = "\n".join(console.run("network status"))
            assert "  download speed:      64000 bits/s (7.8 KB/s)" in status
        client = Client(served.port)
        client.read_until(BANNER_END)
        assert b"KO: unknown command" in client.ask("network speed full", b"\r\n"), "only after auth"
    finally:
        served.stop()


def test_a_console_without_the_users_token_is_refused_with_the_consoles_words(tmp_path: Path) -> None:
    from pytest_mobile_agent.emulator.console import Console
    from pytest_mobile_agent.errors import ControllerError

    served = EmulatorConsole(avd_name="x", token_path=write_token_file(tmp_path), on_grpc=lambda p: p,
                             on_kill=lambda: None)
    wrong = tmp_path / "other"
    wrong.write_text("not-the-token")
    try:
        with pytest.raises(ControllerError, match="KO: authentication token does not match"):
            Console.connect(served.port, token_path=wrong)
        with pytest.raises(ControllerError, match="cannot be read"):
            Console.connect(served.port, token_path=tmp_path / "missing")
    finally:
        served.stop()
