"""The pytest plugin's hooks: options, markers, the fixtures that carry the driver, and the policies of a
shared device (the quiet wait, retry-on-disturbance, the automation lock, failure artifacts).

The plugin module `pytest_mobile_agent.plugin` re-exports them.
"""

from __future__ import annotations

import importlib
import os
import shlex
from pathlib import Path
from typing import Any, Protocol

import pytest

from pytest_mobile_agent import __version__
from pytest_mobile_agent.adb import AdbServer, Target
from pytest_mobile_agent.adb.targets import parse_target_name
from pytest_mobile_agent.errors import MobileAgentError
from pytest_mobile_agent.plugin import accessibility, artifacts, evidence, options, progress, reruns
from pytest_mobile_agent.plugin.fixtures import (
    APP_INSTALLATION_KEY,
    INPUT_WATCHES_KEY,
    PROVIDER_KEY,
    SETTINGS_KEY,
    STATUS_KEY,
    UNUSABLE_TARGET,
    InputWatches,
    app_installation_of,
    worker_count,
    worker_index,
)
from pytest_mobile_agent.plugin.options import (
    NO_SERIAL_REASON,
    SERIAL_ENV,
    SKIP_UNUSABLE_ENV,
    add_options,
    check_spellings,
    settings_from_config,
)
from pytest_mobile_agent.stack.settings import Settings
from pytest_mobile_agent.stack.targets import TargetProvider

PLUGIN_NAME = "pytest_mobile_agent.plugin"
"""The plugin's one name: its entry point's, the module `pytest_plugins` and `-p` import, and `-p no:`'s."""
FIXTURES_PLUGIN = "mobile_agent_fixtures"
FIXTURES_MODULE = "pytest_mobile_agent.plugin.fixtures"
RERUNS_PLUGIN = "mobile_agent_reruns"
PACKAGE_DIR = Path(__file__).resolve().parent
#: why this process's device tests cannot run (decided once, after collection), or None
NO_TARGET_KEY = pytest.StashKey[str | None]()
# A test that uses any of these needs a target, marked or not.
DEVICE_FIXTURES = frozenset(
    {"android_target", "adb_server", "device", "agent", "session", "screen", "watch", "controller", "compose_fixture",
     "automation_lock", "agent_jar", "path_selection", "app", "apps", "device_control", "screens", "devices",
     "target_group"}
)
MARKERS = (
    "device: the test needs an Android target; skipped with the reason when none is named "
    f"(--android-serial / {SERIAL_ENV}), an error under --android-require-device",
    "app(clear=False, permissions=()): per-test state of the app under test, set before the test: "
    "clear its data, grant these runtime permissions",
    "host_gate: the test asserts a wall-clock bound through the host_gate fixture, which only reports "
    "the figure when MOBILE_AGENT_HOST_GATES=off",
    "perf(startup_ms=None, jank_percent=None, pss_mb=None): measure the app after each action and fail "
    "the test when a step exceeds a limit (plugin/perf.py)",
    "devices(N): the test drives N targets at once through the `screens` and `devices` fixtures, each "
    "target with its own automation lock (taken in one global order), agent and session",
    accessibility.MARKER,
)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """The earliest hook a plugin loaded by entry point sees: the arguments as pytest first read them."""
    params = early_config.invocation_params
    check_spellings([*shlex.split(os.environ.get("PYTEST_ADDOPTS", "")), *params.args], params.dir)


def pytest_configure(config: pytest.Config) -> None:
    for marker in MARKERS:
        config.addinivalue_line("markers", marker)
    for name, module in ((FIXTURES_PLUGIN, FIXTURES_MODULE), (RERUNS_PLUGIN, "pytest_mobile_agent.plugin.reruns"),
                         ("mobile_agent_perf", "pytest_mobile_agent.plugin.perf")):
        if not config.pluginmanager.has_plugin(name):
            config.pluginmanager.register(importlib.import_module(module), name)
    progress.register(config)
    settings = settings_from_config(config)
    config.stash[SETTINGS_KEY] = settings
    config.stash[PROVIDER_KEY] = TargetProvider(settings, index=worker_index(config), workers=worker_count(config))
    config.stash[INPUT_WATCHES_KEY] = InputWatches()
    config.stash[APP_INSTALLATION_KEY] = app_installation_of(settings)
    evidence.policy_of(config)  # the evidence options, checked at the start
    options.choice(config, "android_a11y")  # checked at the start too


def pytest_unconfigure(config: pytest.Config) -> None:
    watches = config.stash.get(INPUT_WATCHES_KEY, None)
    if watches is not None:
        watches.close()
    provider = config.stash.get(PROVIDER_KEY, None)
    if provider is not None:
        provider.close()


def android_serial(config: pytest.Config) -> str | None:
    """The target named by the option, the environment or the ini file (a comma list as given)."""
    settings = config.stash.get(SETTINGS_KEY, None)
    return ",".join(settings.serials) if settings and settings.serials else None


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [_name_line(), *_target_header(config)]


def _name_line() -> str:
    return f"mobile-agent: plugin {PLUGIN_NAME} {__version__} (-p no:{PLUGIN_NAME} turns it off)"


def _target_header(config: pytest.Config) -> list[str]:
    settings = config.stash[SETTINGS_KEY]
    if not settings.named:
        return [
            f"mobile-agent: no Android target named; device tests are skipped ({NO_SERIAL_REASON.split(': ', 1)[1]})"
        ]
    lines = [f"mobile-agent: targets {', '.join(settings.serials)}; controller {settings.emulator_controller}; "
             f"quiet wait {settings.quiet_wait:g} s; {settings.disturbance_runs} runs at most when disturbed"]
    if settings.virtual_count:
        from pytest_mobile_agent.stack.virtual_lab import virtual_device_facts

        model, api_level = virtual_device_facts()
        count = settings.virtual_count
        return [*lines, f"mobile-agent: virtual: {count} built-in virtual device{'s' if count > 1 else ''}, "
                        f"model {model}, API {api_level}, emulator"]
    return [*lines, *_target_lines(config, settings)]


def _target_lines(config: pytest.Config, settings: Settings) -> list[str]:
    """One line per named target with its facts (model, API level, emulator or device), or the
    reason it has none: the target this process drives, or each of a comma list's."""
    if len(settings.serials) == 1:
        try:
            target = config.stash[PROVIDER_KEY].target()
        except MobileAgentError as exc:
            return [f"mobile-agent: {exc}"]
        where = f" on {target.server.address}" if target.named_server else ""
        return [_facts_line(target.facts, where)] if target.facts is not None else []
    listings: dict[str, dict[str, Target] | MobileAgentError] = {}
    lines = []
    for item in settings.serials:
        name = parse_target_name(item)  # SERIAL, or tcp:HOST:PORT/SERIAL on that adb server
        server = AdbServer(host=name.host, port=name.port) if name.on_named_server else AdbServer()
        if server.address not in listings:
            try:
                listings[server.address] = {t.serial: t for t in server.targets()}
            except MobileAgentError as exc:
                listings[server.address] = exc
        listed = listings[server.address]
        where = f" on {server.address}" if name.on_named_server else ""
        if isinstance(listed, MobileAgentError):
            lines.append(f"mobile-agent: {item}: {listed}")
        elif name.serial in listed:
            lines.append(_facts_line(listed[name.serial], where))
        else:
            lines.append(f"mobile-agent: {item}: not on the adb server at {server.address}")
    return lines


def _facts_line(facts: Target, where: str = "") -> str:
    if not facts.online:
        return f"mobile-agent: {facts.serial}{where} {facts.state}" + (f" ({facts.advice})" if facts.advice else "")
    return (f"mobile-agent: {facts.serial}{where} {facts.state}, model {facts.model}, API {facts.api_level}, "
            f"{'emulator' if facts.emulator else 'device'}")


def pytest_sessionstart(session: pytest.Session) -> None:
    """A named target that cannot be used fails the run at once, with its advice (each item of a comma
    list is tried), unless --android-skip-unusable; under --android-require-device so does naming none.
    A virtual target starts on first use and is not tried here. xdist's controller decides for its
    workers."""
    config = session.config
    settings = config.stash[SETTINGS_KEY]
    if hasattr(config, "workerinput"):
        return
    _check_targets(config, settings)
    _check_app(config, settings)


def _check_targets(config: pytest.Config, settings: Settings) -> None:
    if not settings.named:
        if settings.require_device:
            raise pytest.UsageError(
                f"--android-require-device: no Android target named ({NO_SERIAL_REASON.split(': ', 1)[1]})")
        return
    if settings.virtual_count or (settings.skip_unusable and not settings.require_device):
        return
    for index, item in enumerate(settings.serials):
        provider = config.stash[PROVIDER_KEY] if index == 0 else TargetProvider(settings, index=index)
        try:
            provider.target()
        except MobileAgentError as exc:
            raise pytest.UsageError(_unusable_message(settings, item, exc)) from None


def _check_app(config: pytest.Config, settings: Settings) -> None:
    """`--app-apk` and `--app-package` checked once, before any test: the APK file (readable, an APK,
    of the named package), and an installed package on the target when this process can reach it
    (a real target; a virtual one unless this is xdist's controller, whose workers start their own)."""
    installation = config.stash[APP_INSTALLATION_KEY]
    try:
        installation.check()
        if installation.apk_path is not None or installation.package is None or not settings.named:
            return
        if settings.virtual_count and config.pluginmanager.has_plugin("dsession"):
            return
        try:
            device = config.stash[PROVIDER_KEY].target().device
        except MobileAgentError:
            return  # an unusable target under --android-skip-unusable: its tests skip
        installation.ensure(device)
    except MobileAgentError as exc:
        raise pytest.UsageError(str(exc)) from None


def _unusable_message(settings: Settings, item: str, exc: MobileAgentError) -> str:
    if settings.require_device:
        return f"--android-require-device: the Android target is not usable: {exc}"
    return (f"--android-serial {item}: {UNUSABLE_TARGET}: {exc} (--android-skip-unusable, or "
            f"{SKIP_UNUSABLE_ENV}=1, skips the device tests instead)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        accessibility.ignores_of(item)  # a misspelt rule in @pytest.mark.a11y is a usage error at the start
        if item.get_closest_marker("device") is None and (_uses_our_device_fixtures(item)
                                                          or item.get_closest_marker("app") is not None):
            item.add_marker(pytest.mark.device)
    if any(item.get_closest_marker("device") is not None for item in items):
        config.stash[NO_TARGET_KEY] = _no_target_reason(config)


def _no_target_reason(config: pytest.Config) -> str | None:
    """Why the device tests cannot run (no target named, or the named one unreachable: the same
    reason for a test marked `device` and for one using a device fixture), or None. A virtual
    target starts on first use, so it is not tried here; --android-require-device failed the run
    at its start already."""
    settings = config.stash[SETTINGS_KEY]
    if not settings.named:
        return NO_SERIAL_REASON
    if settings.virtual_count:
        return None
    try:
        config.stash[PROVIDER_KEY].target()
    except MobileAgentError as exc:
        return f"{UNUSABLE_TARGET}: {exc}"
    return None


def _uses_our_device_fixtures(item: pytest.Item) -> bool:
    """Whether the test uses one of the plugin's device fixtures (a suite's own fixture of the same
    name, such as a fake `device`, does not count)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    for name in DEVICE_FIXTURES & set(info.names_closure):
        definitions = info.name2fixturedefs.get(name, ())
        if definitions and getattr(definitions[-1].func, "__module__", "") == FIXTURES_MODULE:
            return True
    return False


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A device test, marked or using a device fixture, is skipped for the same reason when no
    target is named or the named one is unreachable."""
    if item.get_closest_marker("device") is None:
        return
    reason = item.config.stash.get(NO_TARGET_KEY, None)
    if reason is None and not item.config.stash[SETTINGS_KEY].named:
        reason = NO_SERIAL_REASON
    if reason:
        pytest.skip(reason)


def _at_the_test(item: pytest.Item, report: pytest.TestReport) -> None:
    """A skip raised here or in a fixture of ours is reported at the test (-rs), not at our file."""
    if not (report.skipped and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3):
        return
    path, _, message = report.longrepr
    if Path(str(path)).resolve().parent == PACKAGE_DIR:
        where, line = item.reportinfo()[:2]
        report.longrepr = (os.fspath(where), (line or 0) + 1, message)


def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    runs = item.config.stash[SETTINGS_KEY].disturbance_runs
    if runs <= 1 or item.get_closest_marker("device") is None or not item.config.stash[SETTINGS_KEY].named:
        return None
    reruns.run_with_retries(item, nextitem, runs)
    return True


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):  # type: ignore[no-untyped-def]
    outcome = yield
    failure = accessibility.body_ended(item)  # --android-a11y: the last step's screen, and the report
    if failure is not None and outcome.excinfo is None:
        outcome.force_exception(failure)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    if call.when == "teardown":
        evidence.teardown_reporting(item)  # before the report is made: its properties name the files
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.when == "call":
        if report.failed:
            screenshot = evidence.policy_of(item.config).screenshot != evidence.OFF
            artifacts.collect(item, report, call.excinfo.value if call.excinfo is not None else None, screenshot)
            if call.excinfo is not None and isinstance(call.excinfo.value, MobileAgentError):
                _summary_line_only(report)
        evidence.call_reported(item, report, call.excinfo.value if call.excinfo is not None else None)
    elif report.when == "setup":
        _at_the_test(item, report)
        evidence.setup_reported(item, report)
    else:
        evidence.teardown_reported(item, report)


def _summary_line_only(report: pytest.TestReport) -> None:
    """The short test summary's line of our own failure is its first line: on CI (where pytest never
    trims that line) a wait's whole message, its nearest candidates and tree, would print twice."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None and "\n" in crash.message:
        crash.message = crash.message.split("\n", 1)[0] + " (the candidates and the tree are above)"


STATUS_OUTPUT = "mobile_agent_status"
"""The key of an xdist worker's status lines in its `workeroutput`, which xdist sends back to the
controller process when the worker finishes (xdist's own channel for a worker's results)."""


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    from pytest_mobile_agent.evidence.video import abort_all

    abort_all()  # an interrupted run leaves no screenrecord on a device and no encoder running
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        statuses: dict[str, list[str]] = session.config.stash.get(STATUS_KEY, {})
        workeroutput[STATUS_OUTPUT] = dict(statuses)


class XdistNode(Protocol):
    """What these hooks read of xdist's WorkerController (xdist ships no types for it)."""

    config: pytest.Config
    workerinput: dict[str, object]
    workeroutput: dict[str, object] | None
    gateway: Any  # execnet's Gateway: its `id` names the worker (execnet ships no types either)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: XdistNode) -> None:
    """On the xdist controller, for each worker it starts: this run's id, so every worker writes into
    the same run's folders (artifacts.run_id)."""
    node.workerinput[artifacts.RUN_ID_INPUT] = artifacts.run_id(node.config)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: XdistNode, error: object) -> None:
    """On the xdist controller: a finished worker's status lines join the controller's, per target;
    a target two workers drove with different outcomes shows each worker's lines, named by worker."""
    statuses = node.config.stash.setdefault(STATUS_KEY, {})
    for target, lines in (getattr(node, "workeroutput", None) or {}).get(STATUS_OUTPUT, {}).items():
        key = target if statuses.get(target, lines) == lines else f"{target} ({node.gateway.id})"
        statuses[key] = list(lines)


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    statuses = terminalreporter.config.stash.get(STATUS_KEY, {})
    if not statuses:
        return
    terminalreporter.write_sep("-", "mobile-agent status")
    for lines in statuses.values():
        for line in lines:
            terminalreporter.write_line(line)
