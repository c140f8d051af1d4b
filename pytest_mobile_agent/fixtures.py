"""The fixtures that carry the driver, importable by any app's test suite.

Scopes and teardown:

========================  ========  =============================================================
fixture                   scope     what it is, and what its teardown does
========================  ========  =============================================================
``android_target``        session   the target `--android-serial` names (skips, or fails under
                                    `--android-require-device`, when it is missing or unusable)
``adb_server``            session   the adb client of the target's server
``device``                session   the target as an ``adb.Device``
``agent_jar``             session   the agent build to deploy (the stand-in on the virtual device)
``agent_records``         session   where the agent records live (reused across runs and workers)
``path_selection``        session   the controller path chosen once (``select_paths``); closes it
``controller``            session   the connected emulator controller, or None (the reason is in
                                    the session's status)
``automation_lock``       function  the target's file lock (adb server, serial), held
``agent``                 function  the resident agent, attached under the lock after the quiet
                                    wait; teardown closes the connection and leaves the agent
                                    running, so the next test, run or worker reuses it
``session``               function  the agent and the controller behind the mirror's backends;
                                    teardown detaches (the agent keeps running)
``screen``                function  the mirror on the session: selectors, waits, actions, dumps
``app_installation``      session   `--app-apk` / `--app-package`, installed on the first `app`
``app``                   function  the app under test (installed once per session, under the
                                    automation lock): start/stop/clear/grant; force-stops it
``compose_fixture``       function  a factory starting the fixture app on a tab; force-stops it
``host_gate``             function  `host_gate.check(measured, bound, what)`
========================  ========  =============================================================

With `--android-serial virtual` each pytest process (each xdist worker too) starts its own
``VirtualLab``: the virtual devices, their adb fronts, the UI model of the Compose fixture app, the
agent double and, with `--emulator-controller auto`, an emulator controller double per device whose
discovery file is where the emulator client looks. To share one virtual device between processes,
serve it with `python -m pytest_mobile_agent.virtual` and name its serial.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mobile_agent import errors, progress
from pytest_mobile_agent.adb import AdbServer, Device, Target
from pytest_mobile_agent.adb.targets import parse_target_name
from pytest_mobile_agent.adb.wire import VIRTUAL_DEVICE_PROPERTY
from pytest_mobile_agent.agent import AgentJar, Attached, Deployer, DeployOptions, Records
from pytest_mobile_agent.app import AppInstallation, AppUnderTest, foreground_package
from pytest_mobile_agent.artifacts import ARTIFACTS_KEY, ArtifactSources
from pytest_mobile_agent.foreign_input import InputWatch
from pytest_mobile_agent.gates import HostGate
from pytest_mobile_agent.lock import AutomationLock
from pytest_mobile_agent.options import AUTO, NO_SERIAL_REASON, Settings
from pytest_mobile_agent.policy import DisturbanceWatch, QuietWait, parse_ps
from pytest_mobile_agent.reruns import WATCH_KEY
from pytest_mobile_agent.userfiles import private_dir

if TYPE_CHECKING:
    from pytest_mobile_agent.mirror import Mirror
    from pytest_mobile_agent.session import Selection, Session
    from pytest_mobile_agent.virtual import VirtualLab

log = logging.getLogger("pytest_mobile_agent.fixtures")

SETTINGS_KEY = pytest.StashKey[Settings]()
PROVIDER_KEY = pytest.StashKey["TargetProvider"]()
DISCOVERY_ENV = "MOBILE_AGENT_AVD_DISCOVERY_DIR"
CONTROLLER_TOKEN_ENV = "MOBILE_AGENT_EMULATOR_TOKEN"  # the bearer token of an --emulator-controller URL
PS_COMMAND = "ps -A -o PID,ARGS"
AUTOMATION_LOCK_TIMEOUT = 900.0
UNUSABLE_TARGET = "the Android target is not usable"  # a device test's skip reason, before the error


# --- the target ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AndroidTarget:
    """The target this process drives: its serial, its adb server, the lab behind it if virtual,
    and what the server's listing says of it."""

    serial: str
    server: AdbServer
    lab: VirtualLab | None = None
    facts: Target | None = None
    served_virtual: bool = False  # a virtual device served elsewhere, named by its serial
    named_server: bool = False  # named as tcp:HOST:PORT/SERIAL: its status says which server

    @property
    def virtual(self) -> bool:
        return self.lab is not None

    @property
    def runs_stand_in(self) -> bool:
        """Whether the target is a virtual device, ours or a served one: its agent double runs the
        stand-in jar, so no jar needs building."""
        return self.virtual or self.served_virtual

    @property
    def label(self) -> str:
        """The target and its adb server, as the status and the messages name it: two
        `emulator-5554` on two servers (two hosts of a farm, two labs) are told apart."""
        return f"{self.serial} on {self.server.address}"

    def automation_lock(self) -> AutomationLock:
        """The target's automation lock, keyed by its adb server's address and its serial
        (userfiles.target_key): two devices both named emulator-5554 on two servers never share one."""
        return AutomationLock(self.serial, server=self.server.address)

    @property
    def emulator(self) -> bool:
        if self.facts is not None:
            return bool(self.facts.emulator)
        return self.serial.startswith("emulator-")


def worker_index(config: pytest.Config) -> int:
    """0 for a plain run; N for xdist's worker gwN."""
    workerinput = getattr(config, "workerinput", None)
    worker = str(workerinput.get("workerid", "gw0")) if workerinput else "gw0"
    digits = worker.removeprefix("gw")
    return int(digits) if digits.isascii() and digits.isdigit() else 0


@dataclass
class TargetProvider:
    """Resolves (and for `virtual`, starts) the target of this process, once."""

    settings: Settings
    index: int = 0
    lab: VirtualLab | None = None
    controllers: list[Any] = field(default_factory=list)
    _target: AndroidTarget | None = None
    _saved_discovery: str | None = None
    _discovery_dir: tempfile.TemporaryDirectory[str] | None = None
    _lab_records: tempfile.TemporaryDirectory[str] | None = None
    _input_watches: dict[str, InputWatch | None] = field(default_factory=dict)

    def input_watch(self, device: Device) -> InputWatch | None:
        """The session's watch on the target's input devices (foreign_input.py), started once."""
        if device.serial not in self._input_watches:
            self._input_watches[device.serial] = InputWatch.start(device)
        return self._input_watches[device.serial]

    def records_dir(self) -> Path:
        """Where the agent records live: `--agent-records` for real targets; for a virtual lab a
        directory of its own, as its agents end with it."""
        if self.lab is None:
            return self.settings.records_dir
        if self._lab_records is None:
            self._lab_records = tempfile.TemporaryDirectory(prefix="mobile-agent-records-")
        return Path(self._lab_records.name)

    def target(self) -> AndroidTarget:
        if self._target is None:
            self._target = self._virtual() if self.settings.virtual_count else self._named()
        return self._target

    def _named(self) -> AndroidTarget:
        serials = self.settings.serials
        name = parse_target_name(serials[self.index % len(serials)])
        server = AdbServer(host=name.host, port=name.port) if name.on_named_server else AdbServer()
        serial = name.serial
        if serial == AUTO:
            serial = _only_online(server)
        facts = _facts(server, serial)
        served_virtual = server.device(serial).getprop(VIRTUAL_DEVICE_PROPERTY) == "1"
        return AndroidTarget(serial, server, facts=facts, served_virtual=served_virtual,
                             named_server=name.on_named_server)

    def _virtual(self) -> AndroidTarget:
        from pytest_mobile_agent.virtual import VirtualLab

        count = self.settings.virtual_count
        self.lab = VirtualLab.start(count, real_adb=self.settings.virtual_adb == "real")
        if self.settings.emulator_controller == "auto":
            self._start_controllers(self.lab)
        server = AdbServer(host="127.0.0.1", port=self.lab.adb_port)
        serial = self.lab.serials[self.index % count]
        return AndroidTarget(serial, server, self.lab, _facts(server, serial))

    def _start_controllers(self, lab: VirtualLab) -> None:
        """An emulator controller double per virtual device, found as an emulator's would be."""
        from pytest_mobile_agent.virtual.fronts.controller import AvdConfig, ControllerDouble

        self._discovery_dir = tempfile.TemporaryDirectory(prefix="mobile-agent-avd-")
        self._saved_discovery = os.environ.get(DISCOVERY_ENV)
        os.environ[DISCOVERY_ENV] = self._discovery_dir.name
        for serial in lab.serials:
            if serial.startswith("emulator-"):
                device = lab.device(serial)
                self.controllers.append(ControllerDouble(device.display, serial=serial,
                                                         avd=AvdConfig.of_device(device)).start())

    def close(self) -> None:
        for watch in self._input_watches.values():
            if watch is not None:
                watch.close()
        self._input_watches.clear()
        for controller in self.controllers:
            with contextlib.suppress(Exception):
                controller.stop()
        self.controllers.clear()
        if self._discovery_dir is not None:
            if self._saved_discovery is None:
                os.environ.pop(DISCOVERY_ENV, None)
            else:
                os.environ[DISCOVERY_ENV] = self._saved_discovery
            self._discovery_dir.cleanup()
            self._discovery_dir = None
        if self.lab is not None:
            self.lab.stop()
            self.lab = None
        if self._lab_records is not None:
            self._lab_records.cleanup()
            self._lab_records = None
        self._target = None


def _only_online(server: AdbServer) -> str:
    online = [entry.serial for entry in server.devices() if entry.online]
    if len(online) != 1:
        raise errors.MobileAgentError(
            f"--android-serial auto needs exactly one online target on {server.address}, found {', '.join(online) or 'none'}",
            advice="Name one with --android-serial SERIAL",
        )
    return online[0]


def _facts(server: AdbServer, serial: str) -> Target:
    """The server's listing of the target; an error with the target's advice when it is not usable."""
    listed = {target.serial: target for target in server.targets()}
    target = listed.get(serial)
    if target is None:
        others = ", ".join(f"{t.serial} ({t.state})" for t in listed.values()) or "no targets"
        raise errors.MobileAgentError(
            f"{serial} is not on the adb server at {server.address} (it lists {others})",
            advice="Check the serial with `python -m pytest_mobile_agent targets` or `adb devices -l`",
        )
    if target.advice:
        raise errors.MobileAgentError(f"{serial} is {target.state}", advice=target.advice)
    return target


def provider_of(config: pytest.Config) -> TargetProvider:
    return config.stash[PROVIDER_KEY]


def settings_of(config: pytest.Config) -> Settings:
    return config.stash[SETTINGS_KEY]


@pytest.fixture(scope="session")
def mobile_agent_settings(pytestconfig: pytest.Config) -> Settings:
    """The plugin's options, parsed."""
    return settings_of(pytestconfig)


@pytest.fixture(scope="session")
def android_target(pytestconfig: pytest.Config) -> AndroidTarget:
    settings = settings_of(pytestconfig)
    if not settings.named:
        pytest.skip(NO_SERIAL_REASON)
    try:
        return provider_of(pytestconfig).target()
    except errors.MobileAgentError as exc:
        if settings.require_device:
            pytest.fail(f"the required Android target is not usable: {exc}", pytrace=False)
        pytest.skip(f"{UNUSABLE_TARGET}: {exc}")


@pytest.fixture(scope="session")
def adb_server(android_target: AndroidTarget) -> AdbServer:
    """The client of the adb server the target is on."""
    return android_target.server


@pytest.fixture(scope="session")
def device(android_target: AndroidTarget) -> Device:
    """The target, as the adb client's Device."""
    return android_target.server.device(android_target.serial)


# --- the agent -----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def agent_jar(pytestconfig: pytest.Config, android_target: AndroidTarget, mobile_agent_settings: Settings) -> AgentJar:
    """`--agent-jar` / MOBILE_AGENT_JAR; the stand-in on a virtual device (ours, or one served and
    named by its serial); else the per-user cached build of the package's agent sources, built
    on first use with the Android SDK found (xdist workers build once, under the builder's lock)."""
    try:
        if mobile_agent_settings.agent_jar is not None:
            return AgentJar.from_path(mobile_agent_settings.agent_jar)
        if android_target.runs_stand_in:
            return AgentJar.stand_in()
        return AgentJar.locate(announce=lambda message: _say(pytestconfig, message))
    except errors.MobileAgentError as exc:
        pytest.fail(str(exc), pytrace=False)


def _say(config: pytest.Config, message: str) -> None:
    """A line on the terminal (the controller process's; an xdist worker's goes to the log)."""
    log.info(message)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and not hasattr(config, "workerinput"):
        reporter.write_line(f"[mobile-agent] {message}", yellow=True)


@pytest.fixture(scope="session")
def agent_records(pytestconfig: pytest.Config, android_target: AndroidTarget) -> Records:
    """The records of the agents this host started, in `--agent-records` (default: the per-user
    cache, so every checkout and project of this user shares them), one per adb server and serial."""
    try:
        directory = private_dir(provider_of(pytestconfig).records_dir())
    except (errors.MobileAgentError, OSError) as exc:
        pytest.fail(f"the agent records directory is not usable: {exc}", pytrace=False)
    return Records.in_dir(directory, server=android_target.server.address)


@pytest.fixture
def automation_lock(request: pytest.FixtureRequest, android_target: AndroidTarget) -> Iterator[float]:
    """Hold the target's automation lock (per adb server and serial) for the test; yields the seconds spent waiting for it."""
    lock = android_target.automation_lock()
    with lock.held(request.node.nodeid, AUTOMATION_LOCK_TIMEOUT, on_wait=progress.announcer(request.node)) as waited:
        yield waited


@pytest.fixture
def agent(
    request: pytest.FixtureRequest,
    automation_lock: float,
    device: Device,
    agent_jar: AgentJar,
    agent_records: Records,
    mobile_agent_settings: Settings,
) -> Iterator[Attached]:
    """The resident agent, attached for this test once the device is quiet.

    Launched on first use, reused (about a millisecond, no process started) by every later test,
    run and worker that shares the records; teardown closes only the connection.
    """
    serial = device.serial

    def own_sockets() -> set[str]:
        record = agent_records.get(serial)
        return {record.socket} if record is not None else set()

    def processes() -> list[Any]:
        return parse_ps(device.shell(PS_COMMAND).text())

    if not mobile_agent_settings.agent_force:
        QuietWait(processes, own_sockets, timeout=mobile_agent_settings.quiet_wait,
                  on_wait=progress.announcer(request.node)).wait()
    deployer = Deployer(device, agent_jar, agent_records, DeployOptions(
        force=mobile_agent_settings.agent_force, liveness_timeout=mobile_agent_settings.agent_liveness,
        kill_timeout=mobile_agent_settings.agent_kill_wait))
    attached = deployer.attach()
    watch = DisturbanceWatch(processes, own_sockets)
    inputs = provider_of(request.config).input_watch(device)
    if inputs is not None:
        mark = inputs.mark()
        watch.foreign_input = lambda: inputs.foreign_since(mark, watch.sent_contacts())
    request.node.stash[WATCH_KEY] = watch
    _artifacts(request).mark_start(device)
    try:
        yield attached
    finally:
        disconnection = attached.connection.disconnection
        if disconnection is not None and "replaced" in str(disconnection.reason):
            watch.note(f"another host took our agent's connection ({disconnection.reason})")
        attached.connection.close()


def _artifacts(request: pytest.FixtureRequest) -> ArtifactSources:
    node = request.node
    if ARTIFACTS_KEY not in node.stash:
        node.stash[ARTIFACTS_KEY] = ArtifactSources()
    return node.stash[ARTIFACTS_KEY]


# --- controller, session, screen -----------------------------------------------------------------


@pytest.fixture(scope="session")
def path_selection(android_target: AndroidTarget, mobile_agent_settings: Settings) -> Iterator[Selection]:
    """Whether sessions use the emulator's controller (`--emulator-controller`), decided once."""
    from pytest_mobile_agent.emulator.endpoint import Endpoint
    from pytest_mobile_agent.session import ControllerChoice, PathOptions, select_paths

    wanted = mobile_agent_settings.emulator_controller
    if wanted == "off":
        choice = ControllerChoice.Off()
    elif wanted == "auto":
        choice = ControllerChoice.Auto()
    else:
        host, port = parse_controller_url(wanted)
        token = os.environ.get(CONTROLLER_TOKEN_ENV) or None
        choice = ControllerChoice.Endpoint(Endpoint.at(port, host=host, token=token, serial=android_target.serial))
    selection = select_paths(android_target.serial, android_target.emulator, choice,
                             PathOptions(connect_timeout=mobile_agent_settings.controller_connect_timeout,
                                         target=target_check(android_target)))
    try:
        yield selection
    finally:
        if selection.controller is not None:
            selection.controller.close()


def target_check(android_target: AndroidTarget) -> Any:
    """How `auto` confirms that a controller found by console port is this target's."""
    from pytest_mobile_agent.session.ownership import TargetCheck

    server = android_target.server
    return TargetCheck(android_target.serial, server.host, server.address, server.device(android_target.serial))


def parse_controller_url(url: str) -> tuple[str, int]:
    """`http://HOST:PORT` (the scheme optional) into its host and port; a usage error for anything
    else, a token in the URL included (emulator.endpoint.parse_url), the token never echoed."""
    from pytest_mobile_agent.emulator.endpoint import parse_url

    try:
        return parse_url(url)
    except errors.InvalidArgument as exc:
        raise pytest.UsageError(str(exc)) from None


@pytest.fixture(scope="session")
def controller(path_selection: Selection) -> Any:
    """The connected emulator controller, or None: a device, `--emulator-controller off`, or an
    emulator whose endpoint is unavailable (the session's status carries the warning)."""
    return path_selection.controller


@pytest.fixture
def session(request: pytest.FixtureRequest, agent: Attached, path_selection: Selection, device: Device) -> Iterator[Session]:
    """The agent and the controller behind the mirror's backends, with the status report."""
    from pytest_mobile_agent.session import Session

    started = Session.start(
        agent, controller=path_selection.controller, device=device, serial=path_selection.serial,
        warning=path_selection.warning,
    )
    _artifacts(request).session = started
    watch = request.node.stash.get(WATCH_KEY, None)
    if watch is not None:
        watch.sent_contacts = lambda: started.inputs.controller
    try:
        yield started
    finally:
        target = provider_of(request.config).target()
        heading = [f"target {target.label}"] if target.named_server else []
        request.config.stash.setdefault(STATUS_KEY, {})[target.label] = [*heading, *started.status()]
        started.detach()


STATUS_KEY = pytest.StashKey[dict[str, list[str]]]()


@pytest.fixture
def screen(request: pytest.FixtureRequest, session: Session) -> Mirror:
    """The mirror: a replica of the device's windows with selectors, waits and actions."""
    from pytest_mobile_agent.mirror import Mirror

    mirror = Mirror(session.backend())
    _artifacts(request).screen = mirror
    return mirror


# --- the app under test, and the fixture app --------------------------------------------------------

APP_MARKER = "app"
FixtureApp = AppUnderTest  # what compose_fixture gives (the name earlier suites imported)


@pytest.fixture(scope="session")
def app_installation(mobile_agent_settings: Settings) -> AppInstallation:
    """`--app-apk` / `--app-package` / `--app-activity`; the `app` fixture installs on first use."""
    settings = mobile_agent_settings
    return AppInstallation(settings.app_apk, settings.app_package, settings.app_activity)


@pytest.fixture
def app(request: pytest.FixtureRequest, automation_lock: float, device: Device,
        app_installation: AppInstallation) -> Iterator[AppUnderTest]:
    """The app under test: installed once per session (under the automation lock), then per test
    `app.start(activity=None, extras=None, clear=False)`, `stop()`, `clear()`, `grant(...)`; a
    force-stop at teardown, while the lock is still held. `@pytest.mark.app(clear=True,
    permissions=[...])` clears its data and grants those permissions before the test."""
    if not app_installation.named:
        pytest.fail("the app fixture needs the app under test: --app-apk=PATH (installed for the session) or "
                    "--app-package NAME (already installed)", pytrace=False)
    try:
        installed = app_installation.ensure(device)
    except errors.MobileAgentError as exc:
        pytest.fail(f"the app under test cannot be installed: {exc}", pytrace=False)
    handle = _app_handle(request, device, installed.package, installed.activity)
    marker = request.node.get_closest_marker(APP_MARKER)
    if marker is not None:
        if marker.kwargs.get("clear"):
            handle.clear()
        handle.grant(*marker.kwargs.get("permissions", ()))
    yield handle
    with contextlib.suppress(errors.MobileAgentError):
        handle.stop()


def _app_handle(request: pytest.FixtureRequest, device: Device, package: str, activity: str | None) -> AppUnderTest:
    """A handle whose starts tell the disturbance watch which app belongs in front, and whose crash
    buffer a failing test's artifacts carry."""

    def started(handle: AppUnderTest) -> None:
        watch = request.node.stash.get(WATCH_KEY, None)
        if watch is not None:
            watch.foreground = lambda: foreground_package(device)
            watch.expected_foreground = handle.package
            watch.crash = lambda: handle.crash(sources.crash_after)

    handle = AppUnderTest(device, package, activity, on_started=started)
    sources = _artifacts(request)
    if sources.device is None:
        sources.device = device
    sources.app = handle
    return handle


@pytest.fixture
def compose_fixture(request: pytest.FixtureRequest, automation_lock: float, device: Device,
                    mobile_agent_settings: Settings) -> Iterator[Callable[..., AppUnderTest]]:
    """`compose_fixture(tab="Big")` starts the fixture app on that tab (the `app` handle on
    `--fixture-package` / `--fixture-activity`, the tab an extra), waits until it is in front,
    and force-stops it when the test ends. It holds the automation lock, so its force-stop comes
    before the lock's release and never kills the next worker's app on a shared device."""
    settings = mobile_agent_settings
    handle = _app_handle(request, device, settings.fixture_package, settings.fixture_activity)

    def start(tab: str | None = "Login", *, extras: dict[str, str] | None = None, timeout: float = 20.0) -> AppUnderTest:
        pairs: dict[str, str] = dict(extras or {})
        if tab is not None:
            pairs["tab"] = tab
        return handle.start(extras=pairs, timeout=timeout)

    yield start
    if handle.started:
        with contextlib.suppress(errors.MobileAgentError):
            handle.stop()


# --- host gates ----------------------------------------------------------------------------------


@pytest.fixture
def host_gate() -> HostGate:
    """`host_gate.check(measured, bound, what)`: asserted unless MOBILE_AGENT_HOST_GATES=off."""
    return HostGate()
