"""A lab of virtual devices behind their fronts, for a test session or the command line.

``VirtualLab.start(count)`` makes devices ``emulator-5554``, ``emulator-5556``, ... and serves them
on the built-in adb-server endpoint (a free loopback port). ``start_adbd(serial)`` adds a device's
adbd endpoint, on the odd port 5555..5585 its serial names when that port is free.

``VirtualLab.start(count, real_adb=True)`` runs Google's own server instead: Debian's ``adb`` as a
child process (``adb -P PORT nodaemon server`` on a free port, stopped by its pid), with every
device's adbd endpoint attached to it. A real server takes emulators from the odd ports 5555..5585
(``host:emulator:PORT``, what an emulator sends when it starts), so each device gets the first free
one and is named after it; when those ports are all taken (other labs, a running emulator), the
device listens on a free port and is attached with ``adb connect``, named ``127.0.0.1:PORT``.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import wire
from pytest_mobile_agent.virtual.adb_endpoint import AdbServerEndpoint
from pytest_mobile_agent.virtual.adbd_endpoint import (
    ADBD_PORTS,
    AdbdEndpoint,
    bind_loopback,
    reserve_emulator_port,
)

log = logging.getLogger("pytest_mobile_agent.virtual")

ADB_BINARY = "/usr/bin/adb"
PR_SET_PDEATHSIG = 1
FIRST_CONSOLE_PORT = 5554
DeviceFactory = Callable[[str, int], Any]  # (serial, index) -> a device model


def default_device_factory(serial: str, index: int) -> Any:
    from pytest_mobile_agent.virtual.device import VirtualDevice

    return VirtualDevice(serial, index=index)


def emulator_serial(index: int) -> str:
    return f"emulator-{FIRST_CONSOLE_PORT + 2 * index}"


def free_port() -> int:
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def adb_binary() -> str | None:
    """Debian's adb, or one on PATH; None when there is none."""
    if os.access(ADB_BINARY, os.X_OK):
        return ADB_BINARY
    return shutil.which("adb")


# --- a real adb server -------------------------------------------------------------------------------


def _smart_request(port: int, request: str, *, timeout: float = 5.0) -> bytes:
    """One host request to an adb server: the payload after OKAY (all of it), or AdbFailure."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(wire.encode_request(request))
        reply = bytearray()
        while True:
            try:
                chunk = sock.recv(65536)
            except OSError as exc:
                raise errors.wrap_os_error(exc, f"adb server {request}", timeout) from exc
            if not chunk:
                break
            reply += chunk
    if reply[:4] == wire.FAIL:
        raise errors.AdbFailure(request, bytes(reply[8:]).decode("utf-8", "replace"))
    if reply[:4] != wire.OKAY:
        raise errors.ProtocolError(f"{request}: the adb server answered {bytes(reply[:16])!r}")
    return bytes(reply[4:])


def _spawn_tied_to_us(argv: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[bytes], threading.Event]:
    """Start a child that ends with us, even when we are killed without a chance to stop it.

    On Linux the child asks for SIGTERM when its parent thread ends (PR_SET_PDEATHSIG); the parent
    thread is a keeper that lives until the returned event is set, so a lab started on a worker
    thread does not lose its server when that worker ends. Elsewhere: atexit only.
    """
    prctl = None
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            prctl = ctypes.CDLL(None, use_errno=True).prctl  # resolved before the fork, only called after

    def die_with_parent() -> None:
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signal.SIGTERM)

    started: dict[str, Any] = {}
    ready = threading.Event()
    release = threading.Event()

    def keeper() -> None:
        try:
            started["process"] = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                preexec_fn=die_with_parent if prctl is not None else None,  # only prctl runs between fork and exec
            )
        except BaseException as exc:  # handed to the caller
            started["error"] = exc
        ready.set()
        if "process" in started:
            release.wait()

    threading.Thread(target=keeper, name="virtual-adb-server-keeper", daemon=True).start()
    ready.wait(10.0)
    if "error" in started:
        raise errors.MobileAgentError(f"cannot start {argv[0]}: {started['error']}")
    if "process" not in started:
        raise errors.Timeout(f"starting {argv[0]}", 10.0)
    return started["process"], release


class RealAdbServer:
    """Debian's adb server as a child process on its own port."""

    def __init__(self, process: subprocess.Popen[bytes], port: int, release: threading.Event | None = None) -> None:
        self.process = process
        self.port = port
        self._release = release or threading.Event()

    @classmethod
    def start(cls, *, port: int | None = None, binary: str | None = None, timeout: float = 10.0) -> RealAdbServer:
        path = binary or adb_binary()
        if path is None:
            raise errors.MobileAgentError("no adb binary", advice="Install Debian's `adb` package (apt-get install adb)")
        chosen = port or free_port()
        env = {k: v for k, v in os.environ.items() if k not in ("ANDROID_ADB_SERVER_PORT", "ADB_SERVER_SOCKET")}
        process, release = _spawn_tied_to_us([path, "-P", str(chosen), "nodaemon", "server"], env)
        server = cls(process, chosen, release)
        atexit.register(server.stop)  # an interpreter that exits without stopping the lab still ends its child
        try:
            server._wait_ready(time.monotonic() + timeout)
        except BaseException:
            server.stop()
            raise
        log.info("real adb server pid %d on 127.0.0.1:%d", process.pid, chosen)
        return server

    @property
    def pid(self) -> int:
        return self.process.pid

    def _wait_ready(self, deadline: float) -> None:
        while True:
            if self.process.poll() is not None:
                raise errors.MobileAgentError(f"the adb server on port {self.port} exited with {self.process.returncode}")
            try:
                _smart_request(self.port, "host:version", timeout=1.0)
                return
            except (OSError, errors.MobileAgentError):
                if time.monotonic() > deadline:
                    raise errors.Timeout(f"starting the adb server on port {self.port}") from None
                time.sleep(0.05)

    def request(self, request: str, *, timeout: float = 5.0) -> bytes:
        return _smart_request(self.port, request, timeout=timeout)

    def attach_emulator(self, adbd_port: int) -> None:
        """``host:emulator:PORT``: what an emulator says to the server when it starts (no reply)."""
        with contextlib.suppress(errors.MobileAgentError):
            self.request(f"host:emulator:{adbd_port}")

    def connect(self, adbd_port: int) -> str:
        """``adb connect 127.0.0.1:PORT``; the server's answer."""
        reply = self.request(f"host:connect:127.0.0.1:{adbd_port}")
        return reply[4:].decode("utf-8", "replace")

    def states(self) -> dict[str, str]:
        reply = self.request("host:devices")
        lines = reply[4:].decode("utf-8", "replace").splitlines()
        return dict(line.split("\t", 1) for line in lines if "\t" in line)

    def wait_for(self, serials: list[str], deadline: float) -> None:
        while True:
            states = self.states()
            if all(states.get(serial) == "device" for serial in serials):
                return
            if time.monotonic() > deadline:
                raise errors.Timeout(f"the adb server attaching {', '.join(serials)} (states: {states})")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop the child by its pid: SIGTERM, then SIGKILL past 3 s."""
        atexit.unregister(self.stop)
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(3.0)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(3.0)
        self._release.set()  # the keeper thread ends


# --- the lab ---------------------------------------------------------------------------------------


class VirtualLab:
    """Virtual devices, their fronts, and optionally a real adb server in front of them."""

    def __init__(self, device_factory: DeviceFactory = default_device_factory) -> None:
        self._factory = device_factory
        self._devices: dict[str, Any] = {}
        self._adbd: dict[str, AdbdEndpoint] = {}
        self.builtin = AdbServerEndpoint()
        self.real: RealAdbServer | None = None

    @classmethod
    def start(cls, count: int = 1, *, real_adb: bool = False, device_factory: DeviceFactory = default_device_factory,
              attach_timeout: float = 10.0, emulator_ports: range = ADBD_PORTS) -> VirtualLab:
        """``count`` devices on the built-in endpoint; with ``real_adb``, behind Debian's adb server.

        ``emulator_ports`` are the ports a real server takes emulators from (an empty range makes
        every device attach through ``adb connect``).
        """
        if count < 1:
            raise errors.MobileAgentError(f"a lab needs at least one device, not {count}")
        lab = cls(device_factory)
        try:
            if real_adb:
                lab._start_real(count, attach_timeout, emulator_ports)
            else:
                for index in range(count):
                    lab._add_device(emulator_serial(index), index)
        except BaseException:
            lab.stop()
            raise
        return lab

    def _add_device(self, serial: str, index: int) -> Any:
        device = self._factory(serial, index)
        self._devices[serial] = device
        self.builtin.add_device(serial, device)
        return device

    def _start_real(self, count: int, attach_timeout: float, emulator_ports: range) -> None:
        self.real = RealAdbServer.start()
        emulators: list[int] = []
        connected: list[int] = []
        for index in range(count):
            preferred = FIRST_CONSOLE_PORT + 2 * index + 1
            listener = reserve_emulator_port(preferred, emulator_ports)
            if listener is not None:
                port = int(listener.getsockname()[1])
                serial = f"emulator-{port - 1}"
                emulators.append(port)
            else:
                listener = bind_loopback(0)
                port = int(listener.getsockname()[1])
                serial = f"127.0.0.1:{port}"
                connected.append(port)
            device = self._add_device(serial, index)
            self._adbd[serial] = AdbdEndpoint(device, listener=listener)
        for port in emulators:
            self.real.attach_emulator(port)
        for port in connected:
            log.info("adb connect 127.0.0.1:%d: %s", port, self.real.connect(port))
        self.real.wait_for(self.serials, time.monotonic() + attach_timeout)

    # --- the contract ---

    @property
    def serials(self) -> list[str]:
        return list(self._devices)

    @property
    def adb_port(self) -> int:
        """The adb server port clients use: the real server's when there is one, else the built-in."""
        return self.real.port if self.real is not None else self.builtin.port

    @property
    def builtin_adb_port(self) -> int:
        return self.builtin.port

    def device(self, serial: str) -> Any:
        try:
            return self._devices[serial]
        except KeyError:
            raise errors.MobileAgentError(f"no virtual device {serial!r} in this lab (it has {', '.join(self.serials)})") from None

    def adbd_port(self, serial: str) -> int | None:
        endpoint = self._adbd.get(serial)
        return endpoint.port if endpoint is not None else None

    def adbd_endpoint(self, serial: str) -> AdbdEndpoint | None:
        """The device's adbd endpoint, when started (fault tests drop its connections: a cable pulled)."""
        return self._adbd.get(serial)

    def start_adbd(self, serial: str) -> int:
        """The device's adbd endpoint (started on first call): its serial's port when free, else any."""
        endpoint = self._adbd.get(serial)
        if endpoint is None:
            device = self.device(serial)
            listener = None
            if serial.startswith("emulator-") and serial[9:].isdigit():
                wanted = int(serial[9:]) + 1
                if wanted in ADBD_PORTS:
                    with contextlib.suppress(OSError):
                        listener = bind_loopback(wanted)
            endpoint = AdbdEndpoint(device, listener=listener)
            self._adbd[serial] = endpoint
        return endpoint.port

    def environment(self) -> dict[str, str]:
        """What a shell needs to point adb (and the plugin) at this lab."""
        return {"ANDROID_ADB_SERVER_PORT": str(self.adb_port)}

    @contextlib.contextmanager
    def environ(self) -> Iterator[None]:
        """ANDROID_ADB_SERVER_PORT set to the lab for the duration."""
        saved = {k: os.environ.get(k) for k in ("ANDROID_ADB_SERVER_PORT", "ADB_SERVER_SOCKET")}
        os.environ.pop("ADB_SERVER_SOCKET", None)
        os.environ.update(self.environment())
        try:
            yield
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value

    def stop(self) -> None:
        """Stop the real server (by pid), the endpoints and the devices."""
        if self.real is not None:
            self.real.stop()
        for endpoint in self._adbd.values():
            endpoint.stop()
        self._adbd.clear()
        self.builtin.stop()
        for device in self._devices.values():
            stop = getattr(device, "stop", None) or getattr(device, "close", None)
            if callable(stop):
                with contextlib.suppress(Exception):
                    stop()

    def __enter__(self) -> VirtualLab:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
