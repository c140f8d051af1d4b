"""The pytest plugin: options, markers, the fixtures that carry the driver, and the policies of a
shared device (the quiet wait, retry-on-disturbance, the automation lock, failure artifacts).

Registered through the `pytest11` entry point `mobile_agent`, so installing the package is enough.
"""

from __future__ import annotations

import importlib

import pytest

from pytest_mobile_agent import artifacts, progress, reruns, rootdir
from pytest_mobile_agent.errors import MobileAgentError
from pytest_mobile_agent.fixtures import (
    PROVIDER_KEY,
    SETTINGS_KEY,
    STATUS_KEY,
    AndroidTarget,
    TargetProvider,
    worker_index,
)
from pytest_mobile_agent.options import NO_SERIAL_REASON, OPTIONS, SERIAL_ENV, Settings, add_options

__all__ = ["NO_SERIAL_REASON", "SERIAL_ENV", "android_serial"]

FIXTURES_PLUGIN = "mobile_agent_fixtures"
FIXTURES_MODULE = "pytest_mobile_agent.fixtures"
RERUNS_PLUGIN = "mobile_agent_reruns"
# A test that uses any of these needs a target, marked or not.
DEVICE_FIXTURES = frozenset(
    {"android_target", "adb_server", "device", "agent", "session", "screen", "controller", "compose_fixture",
     "automation_lock", "agent_jar", "path_selection", "app"}
)
MARKERS = (
    "device: the test needs an Android target; skipped with the reason when none is named "
    f"(--android-serial / {SERIAL_ENV}), an error under --android-require-device",
    "app(clear=False, permissions=()): per-test state of the app under test, set before the test: "
    "clear its data, grant these runtime permissions",
    "host_gate: the test asserts a wall-clock bound through the host_gate fixture, which only reports "
    "the figure when MOBILE_AGENT_HOST_GATES=off",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, args: list[str]) -> None:
    """`--agent-jar PATH` as two words must not move the rootdir (rootdir.py says why it did)."""
    rootdir.restore(early_config, args, (option.flag for option in OPTIONS if not option.is_flag))


def pytest_configure(config: pytest.Config) -> None:
    for marker in MARKERS:
        config.addinivalue_line("markers", marker)
    for name, module in ((FIXTURES_PLUGIN, FIXTURES_MODULE), (RERUNS_PLUGIN, "pytest_mobile_agent.reruns")):
        if not config.pluginmanager.has_plugin(name):
            config.pluginmanager.register(importlib.import_module(module), name)
    progress.register(config)
    settings = Settings.from_config(config)
    config.stash[SETTINGS_KEY] = settings
    config.stash[PROVIDER_KEY] = TargetProvider(settings, index=worker_index(config))


def pytest_unconfigure(config: pytest.Config) -> None:
    provider = config.stash.get(PROVIDER_KEY, None)
    if provider is not None:
        provider.close()


def android_serial(config: pytest.Config) -> str | None:
    """The target named by the option, the environment or the ini file (a comma list as given)."""
    settings = config.stash.get(SETTINGS_KEY, None)
    return ",".join(settings.serials) if settings and settings.serials else None


def pytest_report_header(config: pytest.Config) -> list[str]:
    settings = config.stash[SETTINGS_KEY]
    if not settings.named:
        return [f"mobile-agent: no Android target named; device tests are skipped ({NO_SERIAL_REASON.split(': ', 1)[1]})"]
    lines = [f"mobile-agent: targets {', '.join(settings.serials)}; controller {settings.emulator_controller}; "
             f"quiet wait {settings.quiet_wait:g} s; {settings.disturbance_runs} runs at most when disturbed"]
    provider = config.stash[PROVIDER_KEY]
    try:
        targets = provider.every_target()
    except MobileAgentError as exc:
        return [*lines, f"mobile-agent: {exc}"]
    finally:
        if settings.virtual_count and _is_xdist_controller(config):
            provider.close()  # the controller runs no test: its lab was for the header alone
    for serial, target in targets:
        lines.append(f"mobile-agent: {serial}: {target}" if isinstance(target, MobileAgentError) else _facts_line(target))
    return lines


def _facts_line(target: AndroidTarget) -> str:
    facts = target.facts
    if facts is None:
        return f"mobile-agent: {target.serial}"
    return (f"mobile-agent: {facts.serial} {facts.state}, model {facts.model}, API {facts.api_level}, "
            f"{'emulator' if facts.emulator else 'device'}")


def _is_xdist_controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput") and getattr(config.option, "dist", "no") != "no"


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under --android-require-device, a missing or unusable target fails the run at once."""
    settings = session.config.stash[SETTINGS_KEY]
    if not settings.require_device or hasattr(session.config, "workerinput"):
        return
    if not settings.named:
        raise pytest.UsageError(f"--android-require-device: no Android target named ({NO_SERIAL_REASON.split(': ', 1)[1]})")
    try:
        session.config.stash[PROVIDER_KEY].target()
    except MobileAgentError as exc:
        raise pytest.UsageError(f"--android-require-device: the Android target is not usable: {exc}") from None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("device") is None and _uses_our_device_fixtures(item):
            item.add_marker(pytest.mark.device)


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
    if item.get_closest_marker("device") is not None and not item.config.stash[SETTINGS_KEY].named:
        pytest.skip(NO_SERIAL_REASON)


def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    runs = item.config.stash[SETTINGS_KEY].disturbance_runs
    if runs <= 1 or item.get_closest_marker("device") is None or not item.config.stash[SETTINGS_KEY].named:
        return None
    reruns.run_with_retries(item, nextitem, runs)
    return True


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.failed and report.when == "call":
        artifacts.collect(item, report)


STATUS_OUTPUT = "mobile_agent_status"  # the key of a worker's statuses in xdist's workeroutput


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker has no terminal: its status lines travel to the controller in
    `config.workeroutput`, the dict xdist sends with the worker's "workerfinished" event
    (xdist/remote.py) and hands over as `node.workeroutput` in `pytest_testnodedown`."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        statuses: dict[str, list[str]] = session.config.stash.get(STATUS_KEY, {})
        workeroutput[STATUS_OUTPUT] = dict(statuses)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # type: ignore[no-untyped-def]
    """On the xdist controller: keep each worker's status lines, per target, for the summary."""
    statuses = getattr(node, "workeroutput", {}).get(STATUS_OUTPUT, {})
    node.config.stash.setdefault(STATUS_KEY, {}).update(statuses)


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    statuses = terminalreporter.config.stash.get(STATUS_KEY, {})
    if not statuses:
        return
    terminalreporter.write_sep("-", "mobile-agent status")
    for lines in statuses.values():
        for line in lines:
            terminalreporter.write_line(line)
