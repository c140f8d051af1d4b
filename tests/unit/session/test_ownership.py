"""session::ownership: a controller found by console port is used only once it is the target's own
(issue 16, item 2)."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_mobile_agent.emulator import Endpoint
from pytest_mobile_agent.errors import AdbFailure
from pytest_mobile_agent.session import ControllerChoice, PathOptions, select_paths
from pytest_mobile_agent.session.ownership import (
    IDENTITY_COMMAND,
    DeviceIdentity,
    TargetCheck,
    adb_server_on_this_host,
)
from tests.support.session_fakes import FakeController

# What the emulator's discovery file says in 37.x: avd.name the display name, avd.id the AVD's name.
FOUND = Endpoint(host="127.0.0.1", port=8554, console_port=5554, serial="emulator-5554",
                 discovery_file=Path("/run/user/1000/avd/running/pid_4242.ini"),
                 avd_name="Pixel 7 API 36", avd_id="Pixel_7_API_36")


@dataclass
class Output:
    stdout: str

    def text(self) -> str:
        return self.stdout


@dataclass
class ScriptedDevice:
    """Answers IDENTITY_COMMAND as an emulator's shell does, or fails as adb would."""

    output: str = "Pixel_7_API_36\n\nPhysical size: 1080x2400\n"
    error: Exception | None = None
    commands: list[str] = field(default_factory=list)

    def shell(self, cmd: str) -> Output:
        self.commands.append(cmd)
        if self.error is not None:
            raise self.error
        return Output(self.output)


def check(device: ScriptedDevice | None = None, host: str = "127.0.0.1") -> TargetCheck:
    return TargetCheck("emulator-5554", host, f"{host}:5037", device or ScriptedDevice())


def select(target: TargetCheck, controller: FakeController | None = None) -> tuple[object, list[str]]:
    calls: list[str] = []
    controller = controller or FakeController()

    def resolve(serial: str) -> Endpoint:
        calls.append("resolve")
        return FOUND

    def connect(endpoint: Endpoint, timeout: float) -> FakeController:
        calls.append("connect")
        return controller

    options = PathOptions(resolve=resolve, connect=connect, target=target)
    return select_paths("emulator-5554", True, ControllerChoice.Auto(), options), calls


def test_the_targets_own_emulator_keeps_the_fast_path_after_one_shell_call() -> None:
    device = ScriptedDevice()
    selection, calls = select(check(device))
    assert selection.controller is not None and selection.warning is None  # type: ignore[attr-defined]
    assert calls == ["resolve", "connect"] and device.commands == [IDENTITY_COMMAND]


def test_another_avd_on_the_same_console_port_is_not_connected_to() -> None:
    selection, calls = select(check(ScriptedDevice("Pixel_9_API_35\n\nPhysical size: 1080x2400\n")))
    assert selection.controller is None and calls == ["resolve"]  # type: ignore[attr-defined]
    assert selection.warning == (  # type: ignore[attr-defined]
        "emulator control endpoint not used for emulator-5554 (the discovery file "
        "/run/user/1000/avd/running/pid_4242.ini names AVD 'Pixel_7_API_36', and emulator-5554 runs AVD "
        "'Pixel_9_API_35' (ro.boot.qemu.avd_name): another emulator on the same console port): taps and frames "
        "fall back to the agent."
    )


def test_another_display_closes_the_controller_it_connected() -> None:
    controller = FakeController()
    selection, calls = select(check(ScriptedDevice("Pixel_7_API_36\n\nPhysical size: 1440x3120\n")), controller)
    assert selection.controller is None and calls == ["resolve", "connect"]
    assert controller.closed  # type: ignore[attr-defined]
    why = "has a 1080x2400 display, and emulator-5554's physical size is 1440x3120 (wm size)"
    assert why in selection.warning  # type: ignore[operator]


def test_an_adb_server_on_another_host_never_looks_at_the_local_discovery_files() -> None:
    device = ScriptedDevice()
    selection, calls = select(check(device, host="192.0.2.7"))  # TEST-NET-1: never this host's
    assert selection.controller is None and calls == [] and device.commands == []  # type: ignore[attr-defined]
    assert selection.warning == (  # type: ignore[attr-defined]
        "emulator control endpoint not used for emulator-5554 (emulator-5554 is on the adb server at "
        "192.0.2.7:5037, not on this host, so no discovery file here can be its emulator's; name its "
        "controller with --emulator-controller http://HOST:PORT to use it): taps and frames fall back to the agent."
    )


@pytest.mark.parametrize(
    ("output", "why"),
    [
        (
            "\n\nPhysical size: 1080x2400\n",
            "emulator-5554 names no AVD (ro.boot.qemu.avd_name and ro.kernel.qemu.avd_name are empty)",
        ),
        (
            "Pixel_7_API_36\n\n/system/bin/sh: wm: inaccessible or not found\n",
            "`wm size` on emulator-5554 printed no physical size",
        ),
    ],
)
def test_a_fact_the_device_does_not_give_leaves_the_controller_unused(output: str, why: str) -> None:
    selection, _ = select(check(ScriptedDevice(output)))
    assert selection.controller is None and why in selection.warning  # type: ignore[attr-defined]


def test_a_device_that_cannot_be_asked_leaves_the_controller_unused() -> None:
    selection, calls = select(check(ScriptedDevice(error=AdbFailure("shell", "device offline"))))
    assert selection.controller is None and calls == ["resolve"]  # type: ignore[attr-defined]
    assert (
        "cannot read emulator-5554's AVD name and display size to confirm the controller: shell: device offline"
        in selection.warning
    )  # type: ignore[attr-defined]


def test_a_discovery_file_without_an_avd_cannot_be_confirmed() -> None:
    anonymous = Endpoint(host="127.0.0.1", port=8554, console_port=5554, serial="emulator-5554")
    selection = select_paths("emulator-5554", True, ControllerChoice.Auto(), PathOptions(
        resolve=lambda serial: anonymous, connect=lambda e, t: FakeController(), target=check()))
    assert selection.controller is None and "names no AVD (avd.id, avd.name)" in (selection.warning or "")


def test_an_explicit_url_is_used_as_given() -> None:
    """`--emulator-controller URL` names the controller: no discovery file, nothing to confirm."""
    given = Endpoint.at(8554, serial="emulator-5554")
    device = ScriptedDevice("Pixel_9_API_35\n\nPhysical size: 1440x3120\n")
    selection = select_paths("emulator-5554", True, ControllerChoice.Endpoint(given), PathOptions(
        connect=lambda e, t: FakeController(), target=check(device, host="192.0.2.7")))
    assert selection.controller is not None and device.commands == []


def test_the_older_kernel_property_names_the_avd_of_an_older_emulator() -> None:
    identity = DeviceIdentity.parse("\r\nPixel_XL_API_30\r\nPhysical size: 1440x2560\r\nOverride size: 720x1280\r\n")
    assert identity == DeviceIdentity("Pixel_XL_API_30", "ro.kernel.qemu.avd_name", (1440, 2560))


def test_an_older_emulators_discovery_file_names_the_avd_in_avd_name() -> None:
    older = Endpoint(host="127.0.0.1", port=8554, console_port=5554, serial="emulator-5554",
                     avd_name="Pixel_7_API_36")
    assert check().avd_reason(older) is None


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "LOCALHOST", "::1", "[::1]", None, ""])
def test_loopback_servers_are_on_this_host(host: str | None) -> None:
    assert adb_server_on_this_host(host)


@pytest.mark.parametrize("host", ["192.0.2.7", "198.51.100.20", "2001:db8::5", "0.0.0.0", "no-such-host.invalid"])
def test_other_addresses_and_unknown_names_are_not(host: str) -> None:
    assert not adb_server_on_this_host(host)


def test_an_address_this_hosts_names_resolve_to_is_on_this_host(monkeypatch: pytest.MonkeyPatch) -> None:
    real = socket.getaddrinfo

    def resolve(name: str, *args: Any, **kwargs: Any) -> Any:
        if name in (socket.gethostname(), socket.getfqdn()):
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.20.30.40", 0))]
        return real(name, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    assert adb_server_on_this_host("10.20.30.40")
    assert not adb_server_on_this_host("10.20.30.41")


# --- several discovery files for one console port (issue 41 item 13) ---------------------------------


def other_avd(port: int, avd: str, pid: int) -> Endpoint:
    return Endpoint(host="127.0.0.1", port=port, console_port=5554, serial="emulator-5554",
                    discovery_file=Path(f"/run/user/1000/avd/running/pid_{pid}.ini"), avd_id=avd)


def select_among(candidates: list[Endpoint], device: ScriptedDevice) -> tuple[Any, list[Endpoint]]:
    connected: list[Endpoint] = []

    def connect(endpoint: Endpoint, timeout: float) -> FakeController:
        connected.append(endpoint)
        return FakeController()

    options = PathOptions(candidates=lambda serial: candidates, connect=connect, target=check(device))
    return select_paths("emulator-5554", True, ControllerChoice.Auto(), options), connected


def test_of_two_files_on_the_console_port_the_one_of_the_devices_avd_is_used() -> None:
    ours, theirs = other_avd(8601, "Pixel_7_API_36_lab1_1", 11), other_avd(8602, "Pixel_7_API_36_lab2_1", 12)
    selection, connected = select_among([theirs, ours], ScriptedDevice("Pixel_7_API_36_lab1_1\n\nPhysical size: "
                                                                      "1080x2400\n"))
    assert selection.controller is not None and connected == [ours]


def test_two_files_naming_the_devices_avd_fail_closed() -> None:
    """Every virtual device reported the same AVD, so a second lab's controller for emulator-5554
    passed the check and the taps landed on its display: when two cannot be told apart, neither is used."""
    first, second = other_avd(8601, "Pixel_7_API_36", 11), other_avd(8602, "Pixel_7_API_36", 12)
    selection, connected = select_among([first, second], ScriptedDevice())
    assert selection.controller is None and connected == []
    assert ("2 discovery files claim console port 5554 for AVD 'Pixel_7_API_36' (/run/user/1000/avd/running/"
            "pid_11.ini, /run/user/1000/avd/running/pid_12.ini), so which is emulator-5554's emulator cannot be "
            "told") in (selection.warning or "")


def test_two_files_neither_of_the_devices_avd_say_so() -> None:
    selection, connected = select_among([other_avd(8601, "A", 11), other_avd(8602, "B", 12)], ScriptedDevice())
    assert selection.controller is None and connected == []
    assert "2 discovery files claim console port 5554 (" in (selection.warning or "")
    assert "and none names emulator-5554's AVD" in (selection.warning or "")


def test_two_served_labs_emulator_5554_each_drive_their_own_controller(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Both labs advertise a controller for emulator-5554 in one discovery directory; each device
    runs an AVD of its own name, so each target finds its own lab's controller."""
    from pytest_mobile_agent.adb import AdbServer
    from pytest_mobile_agent.virtual import VirtualLab

    monkeypatch.setenv("MOBILE_AGENT_AVD_DISCOVERY_DIR", str(tmp_path))
    first, second = VirtualLab.start(1), VirtualLab.start(1)
    try:
        assert first.device("emulator-5554").properties["ro.boot.qemu.avd_name"] != \
            second.device("emulator-5554").properties["ro.boot.qemu.avd_name"]
        ports = {lab: lab.start_controller("emulator-5554") for lab in (second, first)}  # the first's is newer
        for lab in (first, second):
            server = AdbServer(host="127.0.0.1", port=lab.adb_port)
            target = TargetCheck("emulator-5554", "127.0.0.1", server.address, server.device("emulator-5554"))
            selection = select_paths("emulator-5554", True, ControllerChoice.Auto(),
                                     PathOptions(connect_timeout=5.0, target=target))
            assert selection.controller is not None, selection.warning
            try:
                assert selection.controller.endpoint.port == ports[lab]
            finally:
                selection.controller.close()
    finally:
        second.stop()
        first.stop()
