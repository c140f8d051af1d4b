"""A lab of virtual devices behind their fronts, for a test session or the command line.

``VirtualLab.start(count)`` makes devices ``emulator-5554``, ``emulator-5556``, ... and serves them
on the built-in adb-server endpoint (a free loopback port). ``start_adbd(serial)`` adds a device's
adbd endpoint, on the odd port 5555..5585 its serial names when that port is free.

Each emulator serial also gets its console (virtual/fronts/console.py) on its console port, the adbd
port minus one, as `adb emu` expects: a real-server lab reserves the two ports together, so
concurrent labs never share a console; a built-in lab serves the console when asked
(``consoles=True``) and the serial's port is free. The console's auth token is in the lab's own
``<lab.home>/.emulator_console_auth_token`` (never the user's home: run `adb emu` with
``HOME=<lab.home>``, as the lab's ``console_environment()`` says). ``grpc <port>`` on the console
starts the device's controller double (virtual/fronts/controller.py), whose discovery file goes where
``emulator.discovery`` looks (``discovery_dir``, else its first candidate), and ``kill`` powers
the device off.

Everything a lab keeps on disk is in its own folder, ``lab.home`` (``mobile-agent-lab-*`` in the temp
directory, 0700): the console's token, and the folders the driver asks for (``folder(name)``: the
controllers' discovery files, the agents' records). ``stop`` removes it; an ``owner`` file names the
process (its pid and start time), so the folder of a lab whose process was killed before its stop is
removed by the next lab started with the same temp directory (``reap_abandoned_labs``).

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
import logging
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import wire
from pytest_mobile_agent.virtual.fronts.adb_endpoint import AdbServerEndpoint
from pytest_mobile_agent.virtual.fronts.adbd_endpoint import AdbdEndpoint
from pytest_mobile_agent.virtual.fronts.console import EmulatorConsole, write_token_file
from pytest_mobile_agent.virtual.fronts.loopback import ADBD_PORTS, bind_loopback
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.owned_folders import make_owned_folder, reap_abandoned

log = logging.getLogger("pytest_mobile_agent.virtual")

ADB_BINARY = "/usr/bin/adb"
PR_SET_PDEATHSIG = 1
FIRST_CONSOLE_PORT = 5554
BASE_AVD_NAME = "Pixel_7_API_36"
AVD_NAME_PROPERTY = "ro.boot.qemu.avd_name"
LAB_PREFIX = "mobile-agent-lab-"
DeviceFactory = Callable[[str, int], Any]  # (serial, index) -> a device model


def default_device_factory(serial: str, index: int, avd_name: str | None = None) -> Any:
    from pytest_mobile_agent.virtual.device import VirtualDevice

    return VirtualDevice(serial, index=index, properties={AVD_NAME_PROPERTY: avd_name} if avd_name else None)


def lab_avd_name(lab_id: str, index: int) -> str:
    """The AVD a lab's device runs: its own name, as each AVD running on a host has one (the AVD
    Manager refuses a second AVD of a name), so that no other virtual device's controller or
    console, with the same serial on another adb server, passes for this one's."""
    return f"{BASE_AVD_NAME}_{lab_id}_{index + 1}"


def emulator_serial(index: int) -> str:
    return f"emulator-{FIRST_CONSOLE_PORT + 2 * index}"


def free_port() -> int:
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def reserve_emulator_pair(preferred: int | None = None,
                          ports: range = ADBD_PORTS) -> tuple[socket.socket, socket.socket] | None:
    """Listeners on a console port and its adbd port (console + 1), both free: the preferred adbd
    port when it can, else the first free pair of 5554/5555..5584/5585."""
    candidates = [preferred] if preferred in ports else []
    for port in [*candidates, *ports]:
        try:
            console = bind_loopback(port - 1)
        except OSError:
            continue
        try:
            return console, bind_loopback(port)
        except OSError:
            console.close()
    return None


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


# What a preexec_fn did in the child, without one, so that subprocess need not fork() and no fork
# handler runs (grpc core's among them; docs/reliability.md): a small interpreter asks for SIGTERM
# when its parent thread ends, checks that its parent is still us, and execs the server in its place.
_DIE_WITH_PARENT = (
    "import ctypes, os, signal, sys; "
    f"ctypes.CDLL(None).prctl({PR_SET_PDEATHSIG}, signal.SIGTERM); "
    "os.getppid() == int(sys.argv[1]) or sys.exit(1); "
    "os.execv(sys.argv[2], sys.argv[2:])"
)


def _spawn_tied_to_us(argv: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[bytes], threading.Event]:
    """Start a child that ends with us, even when we are killed without a chance to stop it.

    On Linux the child asks for SIGTERM when its parent thread ends (PR_SET_PDEATHSIG, through
    _DIE_WITH_PARENT: the same pid, then the server); the parent thread is a keeper that lives until
    the returned event is set, so a lab started on a worker thread does not lose its server when
    that worker ends. Elsewhere: atexit only. No preexec_fn: subprocess then starts the child with
    vfork, which runs no fork handler.
    """
    if sys.platform.startswith("linux"):
        argv = [sys.executable, "-S", "-I", "-c", _DIE_WITH_PARENT, str(os.getpid()), *argv]
    started: dict[str, Any] = {}
    ready = threading.Event()
    release = threading.Event()

    def keeper() -> None:
        try:
            started["process"] = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
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
            raise errors.MobileAgentError("no adb binary",
                                          advice="Install Debian's `adb` package (apt-get install adb)")
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
                raise errors.MobileAgentError(
                    f"the adb server on port {self.port} exited with {self.process.returncode}")
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


# --- the lab's folder -------------------------------------------------------------------------------


def make_lab_home(directory: Path | None = None) -> Path:
    """The lab's own folder in the temp directory (0700): the console's token, and what the driver
    keeps for the lab's lifetime (`folder`). Its `owner` file names this process, so that the
    folder of a lab whose process was killed (no `stop`) is removed by the next lab started here
    (kernel/owned_folders.py)."""
    return make_owned_folder(LAB_PREFIX, directory)


def reap_abandoned_labs(directory: Path) -> list[Path]:
    """Remove the lab folders in `directory` whose owning process is gone; the folders removed."""
    return reap_abandoned(LAB_PREFIX, directory)


# --- the lab ---------------------------------------------------------------------------------------


class VirtualLab:
    """Virtual devices, their fronts, and optionally a real adb server in front of them."""

    def __init__(self, device_factory: DeviceFactory = default_device_factory, *,
                 discovery_dir: Path | None = None, adb_port: int = 0) -> None:
        #: this lab among the labs of this host: its devices' AVD names (`lab_avd_name`)
        self.lab_id = f"lab{secrets.token_hex(3)}"
        self._factory: DeviceFactory = (
            (lambda serial, index: default_device_factory(serial, index, lab_avd_name(self.lab_id, index)))
            if device_factory is default_device_factory else device_factory)
        self._devices: dict[str, Any] = {}
        self._adbd: dict[str, AdbdEndpoint] = {}
        self._consoles: dict[str, EmulatorConsole] = {}
        self._controllers: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.discovery_dir = discovery_dir
        self.home = make_lab_home()
        self.console_token_path = write_token_file(self.home)
        self.builtin = AdbServerEndpoint(port=adb_port)
        self.real: RealAdbServer | None = None

    @classmethod
    def start(cls, count: int = 1, *, real_adb: bool = False, device_factory: DeviceFactory = default_device_factory,
              attach_timeout: float = 10.0, emulator_ports: range = ADBD_PORTS, consoles: bool | None = None,
              discovery_dir: Path | None = None, adb_port: int = 0) -> VirtualLab:
        """``count`` devices on the built-in endpoint; with ``real_adb``, behind Debian's adb server.

        ``emulator_ports`` are the ports a real server takes emulators from (an empty range makes
        every device attach through ``adb connect``). ``consoles`` (default: with ``real_adb``)
        serves each emulator's console; ``discovery_dir`` is where a console-started controller
        writes its discovery file. ``adb_port`` is the built-in endpoint's port (0: a free one), as
        an adb server listens on 5037 or ANDROID_ADB_SERVER_PORT.
        """
        if count < 1:
            raise errors.MobileAgentError(f"a lab needs at least one device, not {count}")
        lab = cls(device_factory, discovery_dir=discovery_dir, adb_port=adb_port)
        try:
            if real_adb:
                lab._start_real(count, attach_timeout, emulator_ports, consoles is not False)
            else:
                for index in range(count):
                    serial = emulator_serial(index)
                    lab._add_device(serial, index)
                    if consoles:
                        lab._serve_console_if_free(serial)
        except BaseException:
            lab.stop()
            raise
        return lab

    def _add_device(self, serial: str, index: int) -> Any:
        device = self._factory(serial, index)
        self._devices[serial] = device
        self.builtin.add_device(serial, device)
        return device

    def _start_real(self, count: int, attach_timeout: float, emulator_ports: range, consoles: bool) -> None:
        self.real = RealAdbServer.start()
        emulators: list[int] = []
        connected: list[int] = []
        for index in range(count):
            preferred = FIRST_CONSOLE_PORT + 2 * index + 1
            pair = reserve_emulator_pair(preferred, emulator_ports)
            console_listener = None
            if pair is not None:
                console_listener, listener = pair
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
            if console_listener is not None:
                if consoles:
                    self._serve_console(serial, console_listener)
                else:
                    console_listener.close()
        for port in emulators:
            self.real.attach_emulator(port)
        for port in connected:
            log.info("adb connect 127.0.0.1:%d: %s", port, self.real.connect(port))
        self.real.wait_for(self.serials, time.monotonic() + attach_timeout)

    # --- the console ---

    def _serve_console(self, serial: str, listener: socket.socket | None = None) -> EmulatorConsole:
        device = self.device(serial)
        avd = getattr(device, "properties", {}).get(AVD_NAME_PROPERTY, BASE_AVD_NAME)
        console = EmulatorConsole(avd_name=avd, token_path=self.console_token_path, listener=listener,
                                  port=int(serial.rsplit("-", 1)[1]) if listener is None else 0,
                                  on_grpc=lambda port: self.start_controller(serial, port),
                                  on_kill=lambda: self.kill(serial),
                                  link=getattr(getattr(device, "state", None), "link", None))
        self._consoles[serial] = console
        return console

    def _serve_console_if_free(self, serial: str) -> None:
        try:
            self._serve_console(serial)
        except OSError:
            log.info("console port of %s is taken: no console for it in this lab", serial)

    def serve_console(self, serial: str) -> int:
        """The device's console (started on first call, on a free port when its own is not served):
        its port. A lab on the built-in adb endpoint serves none unless asked, since the console
        port of its `emulator-5554` may be another lab's."""
        console = self._consoles.get(serial)
        if console is None:
            console = self._serve_console(serial, bind_loopback(0))
        return console.port

    def folder(self, name: str) -> Path:
        """A folder of the lab's own (0700, in its home), made on first use and removed with the
        lab: the driver's records of the lab's agents, the controllers' discovery files."""
        path = self.home / name
        path.mkdir(mode=0o700, exist_ok=True)
        return path

    def console_port(self, serial: str) -> int | None:
        console = self._consoles.get(serial)
        return console.port if console is not None else None

    def console_environment(self) -> dict[str, str]:
        """What `adb emu` needs to authenticate to this lab's consoles: HOME naming the lab's
        directory, where `.emulator_console_auth_token` is (client/console.cpp reads it from HOME)."""
        return {**self.environment(), "HOME": str(self.home)}

    def start_controller(self, serial: str, port: int = 0) -> int:
        """The device's controller double (console `grpc <port>`): started on `port` when free,
        else on a free one; an already running one is kept. Its port."""
        from pytest_mobile_agent.virtual.fronts.controller import AvdConfig, ControllerDouble

        with self._lock:
            running = self._controllers.get(serial)
            if running is None:
                device = self.device(serial)
                running = ControllerDouble(device.display, serial=serial, port=port or None,
                                           avd=AvdConfig.of_device(device), discovery_dir=self.discovery_dir,
                                           hardware=getattr(device, "state", None)).start()
                self._controllers[serial] = running
            return int(running.port)

    def controller(self, serial: str) -> Any:
        """The controller double a console started for the device, if any."""
        return self._controllers.get(serial)

    def kill(self, serial: str) -> None:
        """Power the device off (console `kill`): its console, controller and adbd endpoint stop,
        it leaves the built-in server's list, and its processes end."""
        with self._lock:
            console = self._consoles.pop(serial, None)
            controller = self._controllers.pop(serial, None)
            endpoint = self._adbd.pop(serial, None)
            device = self._devices.pop(serial, None)
        for part in (console, controller, endpoint):
            if part is not None:
                with contextlib.suppress(Exception):
                    part.stop()
        self.builtin.remove_device(serial)
        if device is not None:
            stop = getattr(device, "stop", None) or getattr(device, "close", None)
            if callable(stop):
                with contextlib.suppress(Exception):
                    stop()

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
            raise errors.MobileAgentError(
                f"no virtual device {serial!r} in this lab (it has {', '.join(self.serials)})") from None

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
            if serial.startswith("emulator-") and is_decimal(serial[9:]):
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
        """Stop the real server (by pid), the consoles, controllers, endpoints and devices, and
        remove the lab's folder whatever failed on the way."""
        try:
            self._stop_parts()
        finally:
            shutil.rmtree(self.home, ignore_errors=True)

    def _stop_parts(self) -> None:
        for console in list(self._consoles.values()):
            with contextlib.suppress(Exception):
                console.stop()
        self._consoles.clear()
        for controller in list(self._controllers.values()):
            with contextlib.suppress(Exception):
                controller.stop()
        self._controllers.clear()
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
