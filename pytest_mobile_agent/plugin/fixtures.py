"""The fixtures that carry the driver, importable by any app's test suite.

Scopes and teardown:

========================  ========  =============================================================
fixture                   scope     what it is, and what its teardown does
========================  ========  =============================================================
``android_target``        session   the target `--android-serial` names (skips when none is
                                    named; a named one that is unusable fails, or skips under
                                    `--android-skip-unusable`)
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
``watch``                 function  ``screen.watch``: ``watch(text="Allow").tap()`` (the screen's
                                    watchers go with it)
``app_installation``      session   `--app-apk` / `--app-package`, installed on the first `app`
``app``                   function  the app under test (installed once per session, under the
                                    automation lock): start/stop/clear/grant; force-stops it
``compose_fixture``       function  a factory starting the fixture app on a tab; force-stops it
``host_gate``             function  `host_gate.check(measured, bound, what)`
``device_control``        function  the device state (control.DeviceControl); puts back every
                                    change at teardown, under the lock
``screens``, ``devices``  function  `@pytest.mark.devices(N)`: a screen and a device control per
                                    target, each with its own lock (taken in one global order),
                                    agent and session; teardown as above, per target
``target_pool``           session   per target of those: the jar, the records, the controller
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
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import AdbServer, Device
from pytest_mobile_agent.agent import AgentJar, Attached, Deployer, Records
from pytest_mobile_agent.control.clipboard import hide_access_toasts
from pytest_mobile_agent.errors import hide_our_frames
from pytest_mobile_agent.mirror.steps import Steps
from pytest_mobile_agent.plugin import evidence, progress
from pytest_mobile_agent.plugin.artifacts import ARTIFACTS_KEY, ArtifactSources
from pytest_mobile_agent.plugin.foreign_input import InputWatch
from pytest_mobile_agent.plugin.gates import HostGate
from pytest_mobile_agent.plugin.options import NO_SERIAL_REASON
from pytest_mobile_agent.plugin.policy import DisturbanceWatch, ProcessEntry, QuietWait, parse_ps
from pytest_mobile_agent.plugin.reruns import WATCH_KEY
from pytest_mobile_agent.stack.agent import choose_jar, deploy_options, records_for
from pytest_mobile_agent.stack.app import AppInstallation, AppUnderTest, foreground_package
from pytest_mobile_agent.stack.settings import Settings
from pytest_mobile_agent.stack.targets import AndroidTarget, TargetProvider

if TYPE_CHECKING:
    from pytest_mobile_agent.control import DeviceControl
    from pytest_mobile_agent.emulator import Controller
    from pytest_mobile_agent.mirror import Mirror
    from pytest_mobile_agent.mirror.watchers import Watcher
    from pytest_mobile_agent.session import Selection, Session
    from pytest_mobile_agent.stack.group import OpenTarget, TargetPool

log = logging.getLogger("pytest_mobile_agent.plugin.fixtures")
__tracebackhide__ = hide_our_frames  # pytest reports our failures at the test's line, not in these frames

SETTINGS_KEY = pytest.StashKey[Settings]()
PROVIDER_KEY = pytest.StashKey[TargetProvider]()
INPUT_WATCHES_KEY = pytest.StashKey["InputWatches"]()
APP_INSTALLATION_KEY = pytest.StashKey[AppInstallation]()
PS_COMMAND = "ps -A -o PID,ARGS"
UNUSABLE_TARGET = "the Android target is not usable"  # a device test's skip reason, before the error


# --- the target ----------------------------------------------------------------------------------


def worker_index(config: pytest.Config) -> int:
    """0 for a plain run; N for xdist's worker gwN."""
    workerinput = getattr(config, "workerinput", None)
    worker = str(workerinput.get("workerid", "gw0")) if workerinput else "gw0"
    digits = worker.removeprefix("gw")
    return int(digits) if digits.isascii() and digits.isdigit() else 0


def worker_count(config: pytest.Config) -> int:
    """1 for a plain run; xdist's number of workers (its `workercount`) in a worker."""
    workerinput = getattr(config, "workerinput", None)
    count = workerinput.get("workercount", 1) if workerinput else 1
    return count if isinstance(count, int) and count > 0 else 1


class InputWatches:
    """The session's watch on each target's input devices (foreign_input.py), started once per target."""

    def __init__(self) -> None:
        self._watches: dict[str, InputWatch | None] = {}

    def of(self, device: Device) -> InputWatch | None:
        if device.serial not in self._watches:
            self._watches[device.serial] = InputWatch.start(device)
        return self._watches[device.serial]

    def close(self) -> None:
        for watch in self._watches.values():
            if watch is not None:
                watch.close()
        self._watches.clear()


def provider_of(config: pytest.Config) -> TargetProvider:
    return config.stash[PROVIDER_KEY]


def input_watches_of(config: pytest.Config) -> InputWatches:
    return config.stash[INPUT_WATCHES_KEY]


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
        if settings.skip_unusable and not settings.require_device:
            pytest.skip(f"{UNUSABLE_TARGET}: {exc}")
        pytest.fail(f"the named Android target is not usable: {exc}", pytrace=False)


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
        return choose_jar(mobile_agent_settings, android_target, lambda message: _say(pytestconfig, message))
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
        return records_for(provider_of(pytestconfig), android_target)
    except (errors.MobileAgentError, OSError) as exc:
        pytest.fail(f"the agent records directory is not usable: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def clipboard_access_toasts(device: Device, mobile_agent_settings: Settings) -> Iterator[bool]:
    """With `--android-hide-clipboard-toasts`, ClipboardService's access toasts are off for the
    session and the setting is put back at its end (control/clipboard.py); yields whether they show."""
    if not mobile_agent_settings.hide_clipboard_toasts:
        yield True
        return
    restore = hide_access_toasts(device)
    try:
        yield False
    finally:
        restore()


@pytest.fixture
def automation_lock(request: pytest.FixtureRequest, android_target: AndroidTarget,
                    mobile_agent_settings: Settings) -> Iterator[float]:
    """Hold the target's automation lock (per adb server and serial) for the test, waiting up to
    `--lock-wait` for it; yields the seconds spent waiting."""
    lock = android_target.automation_lock()
    wait = mobile_agent_settings.lock_wait
    with lock.held(request.node.nodeid, wait, on_wait=progress.announcer(request.node)) as waited:
        yield waited


@pytest.fixture
def agent(
    request: pytest.FixtureRequest,
    automation_lock: float,
    device: Device,
    agent_jar: AgentJar,
    agent_records: Records,
    mobile_agent_settings: Settings,
    clipboard_access_toasts: bool,
) -> Iterator[Attached]:
    """The resident agent, attached for this test once the device is quiet.

    Launched on first use, reused (about a millisecond, no process started) by every later test,
    run and worker that shares the records; teardown closes only the connection.
    """
    serial = device.serial

    def own_sockets() -> set[str]:
        record = agent_records.get(serial)
        return {record.socket} if record is not None else set()

    def processes() -> list[ProcessEntry]:
        return parse_ps(device.shell(PS_COMMAND).text())

    if not mobile_agent_settings.agent_force:
        QuietWait(processes, own_sockets, timeout=mobile_agent_settings.quiet_wait,
                  on_wait=progress.announcer(request.node)).wait()
    attached = Deployer(device, agent_jar, agent_records, deploy_options(mobile_agent_settings)).attach()
    watch = DisturbanceWatch(processes, own_sockets)
    inputs = input_watches_of(request.config).of(device)
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


STEPS_KEY = pytest.StashKey[Steps]()


def steps_of(request: pytest.FixtureRequest) -> Steps:
    """The test's steps (mirror/steps.py): its screen, its elements and its app handles record their
    calls there, where the step trace and the watchers attach."""
    node = request.node
    if STEPS_KEY not in node.stash:
        node.stash[STEPS_KEY] = Steps()
    evidence.attach(node, node.stash[STEPS_KEY])  # the step trace and the step lines (plugin/evidence.py)
    return node.stash[STEPS_KEY]


def _artifacts(request: pytest.FixtureRequest) -> ArtifactSources:
    node = request.node
    if ARTIFACTS_KEY not in node.stash:
        node.stash[ARTIFACTS_KEY] = ArtifactSources()
    return node.stash[ARTIFACTS_KEY]


# --- controller, session, screen -----------------------------------------------------------------


@pytest.fixture(scope="session")
def path_selection(android_target: AndroidTarget, mobile_agent_settings: Settings) -> Iterator[Selection]:
    """Whether sessions use the emulator's controller (`--emulator-controller`), decided once."""
    from pytest_mobile_agent.stack.paths import select_controller

    try:
        selection = select_controller(android_target, mobile_agent_settings)
    except errors.InvalidArgument as exc:
        raise pytest.UsageError(str(exc)) from None
    try:
        yield selection
    finally:
        if selection.controller is not None:
            selection.controller.close()


@pytest.fixture(scope="session")
def controller(path_selection: Selection) -> Controller | None:
    """The connected emulator controller, or None: a device, `--emulator-controller off`, or an
    emulator whose endpoint is unavailable (the session's status carries the warning)."""
    return path_selection.controller


@pytest.fixture
def session(
    request: pytest.FixtureRequest, agent: Attached, path_selection: Selection, device: Device
) -> Iterator[Session]:
    """The agent and the controller behind the mirror's backends, with the status report."""
    from pytest_mobile_agent.stack import start_session

    started = start_session(agent, path_selection, device)
    _artifacts(request).session = started
    evidence.session_started(request.node, started, device)  # the video starts (plugin/evidence.py)
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
def screen(request: pytest.FixtureRequest, session: Session, mobile_agent_settings: Settings) -> Mirror:
    """The mirror: a replica of the device's windows with selectors, waits and actions."""
    from pytest_mobile_agent.mirror import Mirror

    mirror = Mirror(session.backend(), steps=steps_of(request), action_timeout=mobile_agent_settings.action_timeout)
    _artifacts(request).screen = mirror
    evidence.screen_opened(request.node, mirror.steps, session, mirror, _api_level(request.config))
    return mirror


@pytest.fixture
def watch(screen: Mirror) -> Callable[..., Watcher]:
    """`watch(text="Allow", window="system").tap()`, `.call(fn)`, `.fail(message)`: a watcher on this
    test's screen (`screen.watch`, mirror/watchers.py); an autouse fixture of a suite's conftest can
    register the watchers every test wants (or `screen.watch_builtin("allow_permissions")`)."""
    return screen.watch


def _api_level(config: pytest.Config) -> int | None:
    """The target's API level, for the snapshots' device profile (evidence.py)."""
    if settings_of(config).virtual_count:
        from pytest_mobile_agent.stack.virtual_lab import virtual_device_facts

        return virtual_device_facts()[1]
    facts = provider_of(config).target().facts
    return facts.api_level if facts is not None else None


# --- the app under test, and the fixture app --------------------------------------------------------

APP_MARKER = "app"
FixtureApp = AppUnderTest  # what compose_fixture gives (the name earlier suites imported)


def app_installation_of(settings: Settings) -> AppInstallation:
    return AppInstallation(settings.app_apk, settings.app_package, settings.app_activity)


@pytest.fixture(scope="session")
def app_installation(pytestconfig: pytest.Config) -> AppInstallation:
    """`--app-apk` / `--app-package` / `--app-activity`, checked at the session's start; the `app`
    fixture installs on first use."""
    return pytestconfig.stash[APP_INSTALLATION_KEY]


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
    failure: str | None = None
    try:
        installed = app_installation.ensure(device)
    except errors.MobileAgentError as exc:
        failure = f"the app under test cannot be installed: {exc}"
    if failure is not None:  # failed here, outside the except block: no chained exception in the report
        pytest.fail(failure, pytrace=False)
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

    handle = AppUnderTest(device, package, activity, on_started=started, steps=steps_of(request))
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

    def start(
        tab: str | None = "Login", *, extras: dict[str, str] | None = None, timeout: float = 20.0
    ) -> AppUnderTest:
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


# --- the device under the test's control, and several devices in one test (issue 26) ---------------

DEVICES_MARKER = "devices"


@pytest.fixture
def device_control(request: pytest.FixtureRequest, agent: Attached, path_selection: Selection, device: Device,
                   android_target: AndroidTarget, screen: Mirror) -> Iterator[DeviceControl]:
    """The device under the test's control: rotation, screen, links, clipboard, notifications,
    location, battery, network, fingerprint, posture, appearance. Everything it changed is put back
    at teardown, even when the test failed, before the automation lock is released."""
    from pytest_mobile_agent.stack.control import device_control as make_control

    control = make_control(android_target, device, path_selection, agent, screen, steps_of(request))
    try:
        yield control
    finally:
        _state_status(request, android_target, control)
        control.restore()


def _state_status(request: pytest.FixtureRequest, target: AndroidTarget, control: DeviceControl) -> None:
    """The status section's line saying which path each capability took on the target."""
    request.config.stash.setdefault(STATUS_KEY, {})[f"{target.label} device state"] = control.status()


def devices_wanted(node: pytest.Item) -> int:
    """How many targets `@pytest.mark.devices(N)` asks for (1 without the marker); a usage error
    naming the marker for anything but a whole number of at least 1."""
    marker = node.get_closest_marker(DEVICES_MARKER)
    if marker is None:
        return 1
    count = marker.args[0] if marker.args else marker.kwargs.get("count", None)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        pytest.fail(f"@pytest.mark.devices(N) takes a whole number N >= 1, not {count!r}", pytrace=False)
    return count


@pytest.fixture(scope="session")
def target_pool(pytestconfig: pytest.Config, mobile_agent_settings: Settings) -> Iterator[TargetPool]:
    """What the run keeps per target of a multi-device test: its jar, records, controller choice."""
    from pytest_mobile_agent.stack.group import TargetPool

    pool = TargetPool(provider_of(pytestconfig), mobile_agent_settings, lambda message: _say(pytestconfig, message))
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture
def device_group(request: pytest.FixtureRequest, android_target: AndroidTarget, target_pool: TargetPool,
                 mobile_agent_settings: Settings) -> Iterator[list[OpenTarget]]:
    """The targets `@pytest.mark.devices(N)` asks for, each with its own lock (all taken in one
    global order), agent, session, screen and device control."""
    from pytest_mobile_agent.stack.group import locks_held, open_targets

    if "automation_lock" in request.fixturenames:
        pytest.fail("a test takes `screens` / `devices` or the single-target fixtures (`screen`, `device_control`, "
                    "`agent`, `app`, ...), not both: use screens[0] and devices[0] for the first target", pytrace=False)
    count = devices_wanted(request.node)
    failure: str | None = None
    try:
        targets = target_pool.provider.targets(count)
    except errors.MobileAgentError as exc:
        failure = f"@pytest.mark.devices({count}): {exc}"
    if failure is not None:
        pytest.fail(failure, pytrace=False)
    settings = mobile_agent_settings
    announce = progress.announcer(request.node)
    with locks_held(targets, request.node.nodeid, settings.lock_wait, on_wait=announce), \
            open_targets(target_pool, targets, steps=steps_of(request),
                         before_attach=lambda target: _quiet(target, target_pool, settings, announce)) as opened:
        try:
            yield opened
        finally:
            for one in opened:
                statuses = request.config.stash.setdefault(STATUS_KEY, {})
                statuses[one.target.label] = [f"target {one.target.label}", *one.session.status()]
                _state_status(request, one.target, one.control)


def _quiet(target: AndroidTarget, pool: TargetPool, settings: Settings, announce: Callable[[str], None]) -> None:
    """The quiet wait before attaching to one of the group's targets, as the `agent` fixture waits."""
    if settings.agent_force:
        return
    device = target.device
    records = pool.records(target)

    def own_sockets() -> set[str]:
        record = records.get(device.serial)
        return {record.socket} if record is not None else set()

    QuietWait(lambda: parse_ps(device.shell(PS_COMMAND).text()), own_sockets, timeout=settings.quiet_wait,
              on_wait=announce).wait()


@pytest.fixture
def screens(device_group: list[OpenTarget]) -> list[Mirror]:
    """One screen per target of `@pytest.mark.devices(N)`, in the order the targets were taken."""
    return [one.screen for one in device_group]


@pytest.fixture
def devices(device_group: list[OpenTarget]) -> list[DeviceControl]:
    """The matching device controls of `screens` (each with `.screen` and `.adb`)."""
    return [one.control for one in device_group]
