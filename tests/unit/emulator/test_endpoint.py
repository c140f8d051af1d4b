"""emulator::endpoint::tests: from a serial to the endpoint its discovery file advertises, or the
Unavailable warning that says how to enable it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_mobile_agent.emulator import Endpoint, resolve
from pytest_mobile_agent.errors import Unavailable
from tests.support.discovery_files import WriteFile, token_mode

SEED_WARNING = (
    "emulator control endpoint unavailable for emulator-5554 (connecting to http://127.0.0.1:51770: "
    "transport error: tcp connect error: Connection refused (os error 61)): taps and frames fall back "
    "to the agent. Start the emulator with `-grpc 8554 -grpc-use-token` to use the fast path, or enable "
    "it without a restart through the emulator console command `grpc 8554`, for example "
    "`adb -s emulator-5554 emu grpc 8554`."
)


def test_no_discovery_file_is_unavailable(discovery_dir: Path) -> None:
    with pytest.raises(Unavailable) as caught:
        resolve("emulator-5554")
    assert "no running emulator advertises port.serial=5554" in caught.value.reason
    assert str(discovery_dir) in caught.value.reason
    assert "`-grpc 8554 -grpc-use-token`" in caught.value.warning()


def test_a_discovery_file_without_a_grpc_port_is_unavailable(write_discovery: WriteFile) -> None:
    path = write_discovery(port_serial="5554", port_adb="5555", avd_name="Pixel")
    with pytest.raises(Unavailable) as caught:
        resolve("emulator-5554")
    assert (
        caught.value.reason
        == f"the discovery file {path} has no grpc.port: the emulator runs without its gRPC endpoint"
    )
    assert "emu grpc 8554" in caught.value.warning()


def test_a_discovery_file_with_an_invalid_grpc_port_is_unavailable(write_discovery: WriteFile) -> None:
    write_discovery(port_serial="5554", grpc_port="85x4")
    with pytest.raises(Unavailable, match="invalid grpc.port '85x4'"):
        resolve("emulator-5554")


def test_a_discovery_file_with_a_grpc_port_resolves_to_an_endpoint(write_discovery: WriteFile) -> None:
    path = write_discovery(**token_mode(console=5556, grpc_port=8556, token="k" * 64))
    endpoint = resolve("emulator-5556")
    assert endpoint == Endpoint(
        host="127.0.0.1", port=8556, token="k" * 64, console_port=5556, discovery_file=path, serial="emulator-5556",
        avd_name="Pixel 7 API 36", avd_id="Pixel_7_API_36",
    )
    assert endpoint.avd_names == ("Pixel_7_API_36", "Pixel 7 API 36")  # what ro.boot.qemu.avd_name is compared with
    assert endpoint.url == "http://127.0.0.1:8556"
    assert "k" * 64 not in repr(endpoint) and "k" * 64 not in str(endpoint)


def test_a_discovery_file_without_a_token_or_jwks_is_an_open_endpoint(write_discovery: WriteFile) -> None:
    write_discovery(port_serial="5554", grpc_port="8571")  # -grpc 8571 alone: no auth
    assert resolve("emulator-5554").token is None


def test_an_emulator_in_jwt_mode_is_unavailable_with_the_launch_flag(write_discovery: WriteFile) -> None:
    write_discovery(
        port_serial="5554", grpc_port="8554", grpc_jwks="/r/1/jwks/u", grpc_jwk_active="/r/1/jwks/u/active.jwk"
    )
    with pytest.raises(Unavailable) as caught:
        resolve("emulator-5554")
    assert "wants signed JWT tokens (started without -grpc-use-token" in caught.value.reason
    assert "Start the emulator with `-grpc 8554 -grpc-use-token`" in caught.value.warning()


def test_a_malformed_discovery_file_is_unavailable_not_a_crash(write_discovery: WriteFile) -> None:
    write_discovery(raw=b"\xff\xfe\x00port.serial\x00=\n\x85==\n" * 50)
    with pytest.raises(Unavailable, match="no running emulator advertises port.serial=5554"):
        resolve("emulator-5554")


def test_a_serial_that_is_not_an_emulator_is_unavailable(discovery_dir: Path) -> None:
    with pytest.raises(Unavailable, match="is not an emulator serial"):
        resolve("R58M123ABC")


def test_the_warning_names_the_launch_flag_and_the_console_command() -> None:
    reason = (
        "connecting to http://127.0.0.1:51770: transport error: tcp connect error: "
        "Connection refused (os error 61)"
    )
    assert Unavailable("emulator-5554", reason).warning() == SEED_WARNING
    other = Unavailable("emulator-5580", "x").warning()
    assert "`-grpc 8580 -grpc-use-token`" in other
    assert "console command `grpc 8580`, for example `adb -s emulator-5580 emu grpc 8580`." in other
    assert str(Unavailable("emulator-5554", reason)) == SEED_WARNING


def test_a_newer_file_of_the_same_console_port_wins_over_an_older_one(write_discovery: WriteFile) -> None:
    write_discovery(os.getpid(), mtime=1_000_000, **token_mode(grpc_port=8554))
    write_discovery(os.getppid(), mtime=2_000_000, **token_mode(grpc_port=8555))
    assert resolve("emulator-5554").port == 8555
