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
``target_group``          function  the test's targets (one, or N under `@pytest.mark.devices(N)`),
                                    their locks held (taken in one global order); each target's
                                    parts open on first use (stack/opener.py): the quiet wait,
                                    the agent, the session, the screen, the device control, and
                                    close in the reverse order at teardown, before the locks go
``automation_lock``       function  the group's locks, held; the seconds spent waiting for them
``agent``                 function  the first target's resident agent, attached after the quiet
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
``web``, ``webs``         function  the target's web content (``web.page(...)`` is ``screen.web(...)``,
                                    a Playwright Page; ``webs``: each target's); its bridges and
                                    Playwright connections close at teardown, under the lock
``screens``, ``devices``  function  every target's screen and device control (`screens[0]` is
                                    `screen`); `@pytest.mark.devices(N)` asks for N targets
``apps``                  function  the app under test's handle on each target of the group
``target_resources``      session   per target: the jar, the records, the controller selection
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
from pytest_mobile_agent.agent import AgentJar, Attached, Records
from pytest_mobile_agent.control.app_under_test import AppInstallation, AppUnderTest, foreground_package
from pytest_mobile_agent.control.clipboard import hide_access_toasts
from pytest_mobile_agent.errors import hide_our_frames
from pytest_mobile_agent.mirror.steps import Steps
from pytest_mobile_agent.plugin import evidence, progress
from pytest_mobile_agent.plugin.foreign_input import InputWatch
from pytest_mobile_agent.plugin.gates import HostGate
from pytest_mobile_agent.plugin.opening import RunHooks
from pytest_mobile_agent.plugin.options import NO_SERIAL_REASON
from pytest_mobile_agent.plugin.run import TestRun, run_of
from pytest_mobile_agent.stack.opener import TargetGroup, TargetParts, TargetResources, open_group
from pytest_mobile_agent.stack.settings import Settings
from pytest_mobile_agent.stack.targets import AndroidTarget, TargetProvider

if TYPE_CHECKING:
    from pytest_mobile_agent.control import DeviceControl
    from pytest_mobile_agent.emulator import Controller
    from pytest_mobile_agent.mirror import Mirror
    from pytest_mobile_agent.mirror.watchers import Watcher
    from pytest_mobile_agent.session import Selection, Session
    from pytest_mobile_agent.web.content import WebContent

log = logging.getLogger("pytest_mobile_agent.plugin.fixtures")
__tracebackhide__ = hide_our_frames  # pytest reports our failures at the test's line, not in these frames

SETTINGS_KEY = pytest.StashKey[Settings]()
PROVIDER_KEY = pytest.StashKey[TargetProvider]()
INPUT_WATCHES_KEY = pytest.StashKey["InputWatches"]()
APP_INSTALLATION_KEY = pytest.StashKey[AppInstallation]()
STATUS_KEY = pytest.StashKey[dict[str, list[str]]]()
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


# --- the run's resources, and the test's targets ----------------------------------------------------


@pytest.fixture(scope="session")
def target_resources(pytestconfig: pytest.Config, mobile_agent_settings: Settings) -> Iterator[TargetResources]:
    """What the run keeps per target: its agent jar, its records, its controller selection; the
    controllers close at the run's end."""
    resources = TargetResources(provider_of(pytestconfig), mobile_agent_settings,
                                lambda message: _say(pytestconfig, message))
    try:
        yield resources
    finally:
        resources.close()


@pytest.fixture(scope="session")
def agent_jar(android_target: AndroidTarget, target_resources: TargetResources) -> AgentJar:
    """`--agent-jar` / MOBILE_AGENT_JAR; the stand-in on a virtual device (ours, or one served and
    named by its serial); else the per-user cached build of the package's agent sources, built
    on first use with the Android SDK found (xdist workers build once, under the builder's lock)."""
    try:
        return target_resources.jar(android_target)
    except errors.MobileAgentError as exc:
        pytest.fail(str(exc), pytrace=False)


def _say(config: pytest.Config, message: str) -> None:
    """A line on the terminal (the controller process's; an xdist worker's goes to the log)."""
    log.info(message)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and not hasattr(config, "workerinput"):
        reporter.write_line(f"[mobile-agent] {message}", yellow=True)


@pytest.fixture(scope="session")
def agent_records(android_target: AndroidTarget, target_resources: TargetResources) -> Records:
    """The records of the agents this host started, in `--agent-records` (default: the per-user
    cache, so every checkout and project of this user shares them), one per adb server and serial."""
    try:
        return target_resources.records(android_target)
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


@pytest.fixture(scope="session")
def path_selection(android_target: AndroidTarget, target_resources: TargetResources) -> Selection:
    """Whether sessions use the emulator's controller (`--emulator-controller`), decided once."""
    try:
        return target_resources.selection(android_target)
    except errors.InvalidArgument as exc:
        raise pytest.UsageError(str(exc)) from None


@pytest.fixture(scope="session")
def controller(path_selection: Selection) -> Controller | None:
    """The connected emulator controller, or None: a device, `--emulator-controller off`, or an
    emulator whose endpoint is unavailable (the session's status carries the warning)."""
    return path_selection.controller


def steps_of(request: pytest.FixtureRequest) -> Steps:
    """The test's steps (mirror/steps.py): its screens, its elements and its app handles record their
    calls there, where the step trace and the watchers attach."""
    evidence.attach(request.node)  # the step trace and the step lines (plugin/evidence.py)
    return run_of(request.node).steps


def run_record(request: pytest.FixtureRequest) -> TestRun:
    return run_of(request.node)


@pytest.fixture
def target_group(request: pytest.FixtureRequest, android_target: AndroidTarget, target_resources: TargetResources,
                 mobile_agent_settings: Settings, agent_jar: AgentJar, agent_records: Records,
                 clipboard_access_toasts: bool) -> Iterator[TargetGroup]:
    """The test's targets, their automation locks held for the whole test: the target `--android-serial`
    names, or the N of `@pytest.mark.devices(N)` (the worker's own first). Each target's parts open on
    first use (stack/opener.py) and tell the test's run record as they do; teardown closes them, the
    last target first, then releases the locks."""
    node = request.node
    targets = _targets_wanted(node, android_target, target_resources, mobile_agent_settings)
    steps = steps_of(request)
    config = request.config
    hooks = RunHooks(node, input_watch=lambda part: input_watches_of(config).of(part.device),
                     api_level=lambda: _api_level(config),
                     status=lambda key, lines: config.stash.setdefault(STATUS_KEY, {}).__setitem__(key, lines))
    run = run_of(node)
    with open_group(target_resources, targets, holder=node.nodeid, steps=steps, hooks=hooks,
                    announce=progress.announcer(node)) as group:
        for part in group:
            run.target(part.label, part.target.serial).artifacts.device = part.device
        yield group


def _targets_wanted(node: pytest.Item, android_target: AndroidTarget, resources: TargetResources,
                    settings: Settings) -> list[AndroidTarget]:
    """The one target, or the N targets `@pytest.mark.devices(N)` asks for; a run naming fewer skips
    the test with the reason (fails it under --android-require-device)."""
    if node.get_closest_marker(DEVICES_MARKER) is None:
        return [android_target]
    count = devices_wanted(node)
    failure: str | None = None
    try:
        return resources.provider.targets(count)
    except errors.MobileAgentError as exc:
        failure = f"@pytest.mark.devices({count}): {exc}"
    if settings.require_device:
        pytest.fail(f"--android-require-device: {failure}", pytrace=False)
    pytest.skip(failure)


@pytest.fixture
def automation_lock(target_group: TargetGroup) -> float:
    """The automation locks of the test's targets (per adb server and serial), held for the test,
    waiting up to `--lock-wait` for them; the seconds spent waiting."""
    return target_group.waited


@pytest.fixture
def agent(target_group: TargetGroup) -> Attached:
    """The resident agent, attached for this test once the device is quiet.

    Launched on first use, reused (about a millisecond, no process started) by every later test,
    run and worker that shares the records; teardown closes only the connection.
    """
    return target_group[0].attached


@pytest.fixture
def session(target_group: TargetGroup) -> Session:
    """The agent and the controller behind the mirror's backends, with the status report."""
    return target_group[0].session


@pytest.fixture
def screen(target_group: TargetGroup) -> Mirror:
    """The mirror: a replica of the device's windows with selectors, waits and actions."""
    return target_group[0].screen


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
def app(request: pytest.FixtureRequest, target_group: TargetGroup, app_installation: AppInstallation
        ) -> Iterator[AppUnderTest]:
    """The app under test: installed once per session (under the automation lock), then per test
    `app.start(activity=None, extras=None, clear=False)`, `stop()`, `clear()`, `grant(...)`; a
    force-stop at teardown, while the lock is still held. `@pytest.mark.app(clear=True,
    permissions=[...])` clears its data and grants those permissions before the test."""
    handle = _installed_app(request, target_group[0], app_installation)
    yield handle
    with contextlib.suppress(errors.MobileAgentError):
        handle.stop()


@pytest.fixture
def apps(request: pytest.FixtureRequest, target_group: TargetGroup, app_installation: AppInstallation
         ) -> Iterator[list[AppUnderTest]]:
    """The app under test on each target of the group (`apps[0]` is `app`'s target), installed once per
    session and target; each force-stopped at teardown, before the locks are released."""
    handles = [_installed_app(request, part, app_installation) for part in target_group]
    yield handles
    for handle in handles:
        with contextlib.suppress(errors.MobileAgentError):
            handle.stop()


def _installed_app(request: pytest.FixtureRequest, part: TargetParts, installation: AppInstallation
                   ) -> AppUnderTest:
    """The app under test on one target, installed (once per session and target) and made ready as
    `@pytest.mark.app(clear=..., permissions=...)` says."""
    if not installation.named:
        pytest.fail("the app fixture needs the app under test: --app-apk=PATH (installed for the session) or "
                    "--app-package NAME (already installed)", pytrace=False)
    failure: str | None = None
    try:
        installed = installation.ensure(part.device)
    except errors.MobileAgentError as exc:
        failure = f"the app under test cannot be installed on {part.target.serial}: {exc}"
    if failure is not None:  # failed here, outside the except block: no chained exception in the report
        pytest.fail(failure, pytrace=False)
    handle = _app_handle(request, part, installed.package, installed.activity)
    marker = request.node.get_closest_marker(APP_MARKER)
    if marker is not None:
        if marker.kwargs.get("clear"):
            handle.clear()
        handle.grant(*marker.kwargs.get("permissions", ()))
    return handle


def _app_handle(request: pytest.FixtureRequest, part: TargetParts, package: str, activity: str | None
                ) -> AppUnderTest:
    """A handle whose starts tell the target's disturbance watch which app belongs in front, and whose
    crash buffer a failing test's artifacts carry."""
    record = run_of(request.node).target(part.label, part.target.serial)
    sources = record.artifacts
    device = part.device

    def started(handle: AppUnderTest) -> None:
        watch = record.watch
        if watch is not None:
            watch.foreground = lambda: foreground_package(device)
            watch.expected_foreground = handle.package
            watch.crash = lambda: handle.crash(sources.crash_after)

    handle = AppUnderTest(device, package, activity, on_started=started, steps=steps_of(request))
    if sources.device is None:
        sources.device = device
    sources.app = handle
    return handle


@pytest.fixture(autouse=True)
def _app_marker_honoured(request: pytest.FixtureRequest) -> None:
    """`@pytest.mark.app(...)` takes effect whenever a test carries it, through the `app` fixture, also
    when the test does not ask for it; a marker with no app under test named is a usage error."""
    marker = request.node.get_closest_marker(APP_MARKER)
    if marker is None or "app" in request.fixturenames:
        return
    if not settings_of(request.config).named:
        return  # a device test with no target: skipped by its device marker, like every other
    if not request.config.stash[APP_INSTALLATION_KEY].named:
        pytest.fail(f"@pytest.mark.app({_marker_text(marker)}) needs the app under test: --app-apk=PATH or "
                    "--app-package NAME (or remove the marker)", pytrace=False)
    request.getfixturevalue("app")


def _marker_text(marker: pytest.Mark) -> str:
    return ", ".join([*map(repr, marker.args), *(f"{key}={value!r}" for key, value in marker.kwargs.items())])


@pytest.fixture
def compose_fixture(request: pytest.FixtureRequest, target_group: TargetGroup,
                    mobile_agent_settings: Settings) -> Iterator[Callable[..., AppUnderTest]]:
    """`compose_fixture(tab="Big")` starts the fixture app on that tab (the `app` handle on
    `--fixture-package` / `--fixture-activity`, the tab an extra), waits until it is in front,
    and force-stops it when the test ends. It holds the automation lock, so its force-stop comes
    before the lock's release and never kills the next worker's app on a shared device."""
    settings = mobile_agent_settings
    handle = _app_handle(request, target_group[0], settings.fixture_package, settings.fixture_activity)

    def start(
        tab: str | None = "Login", *, extras: dict[str, str] | None = None, timeout: float = 20.0
    ) -> AppUnderTest:
        pairs: dict[str, str] = dict(extras or {})
        if tab is not None:
            pairs["tab"] = tab
        handle.start(extras=pairs, timeout=timeout)
        return handle

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
def web(target_group: TargetGroup) -> WebContent:
    """The first target's web content (web/content.py): `web.page(package, url_contains=..., title=...)`
    is `screen.web(...)`, a Playwright Page attached through the loopback bridge, `web.targets()` lists
    the debuggable targets. Every bridge and Playwright connection closes at teardown, under the
    automation lock, even when the test failed."""
    return target_group[0].web


@pytest.fixture
def webs(target_group: TargetGroup) -> list[WebContent]:
    """Each target's web content, as `screens` is each target's screen."""
    return [part.web for part in target_group]


@pytest.fixture
def device_control(target_group: TargetGroup) -> DeviceControl:
    """The device under the test's control: rotation, screen, links, clipboard, notifications,
    location, battery, network, fingerprint, posture, appearance. Everything it changed is put back
    at teardown, even when the test failed, before the automation lock is released."""
    return target_group[0].control


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


@pytest.fixture
def screens(target_group: TargetGroup) -> list[Mirror]:
    """One screen per target of the test (`@pytest.mark.devices(N)`), in the order the targets were
    taken; `screens[0]` is `screen`."""
    return [part.screen for part in target_group]


@pytest.fixture
def devices(target_group: TargetGroup) -> list[DeviceControl]:
    """The matching device controls of `screens` (each with `.screen` and `.adb`)."""
    return [part.control for part in target_group]
