"""The pytest surface of the app's performance: the `perf` fixture, `@pytest.mark.perf(...)` budgets,
the per-step figures and their JUnit properties.

A test that uses `perf` or carries the marker gets its actions measured (control/perf/
step_sampling.py: one shell command after each action, nothing for other tests). A budget the
test's steps exceeded fails the test after its body, naming each step and figure; a marker with an
unknown limit or a value that is not a number fails the test before it runs, naming it. Every
measured step's figures are JUnit properties (`perf.<n>.<step>.<figure>`), so a CI dashboard can
plot them.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.control.app_under_test import AppInstallation
from pytest_mobile_agent.control.perf.budget import Budget
from pytest_mobile_agent.control.perf.sampler import Perf
from pytest_mobile_agent.control.perf.step_sampling import StepPerf
from pytest_mobile_agent.plugin.run import run_of
from pytest_mobile_agent.stack.opener import TargetGroup
from pytest_mobile_agent.stack.settings import Settings

SAMPLER_KEY = pytest.StashKey[StepPerf]()
MARKER = ("perf(startup_ms=None, jank_percent=None, pss_mb=None): measure the app after each action "
          "(frames, memory, CPU) and fail the test when a step exceeds a limit")


def budget_of(item: pytest.Item) -> Budget:
    marker = item.get_closest_marker("perf")
    if marker is None:
        return Budget()
    try:
        return Budget.from_marker(marker.args, marker.kwargs)
    except errors.InvalidArgument as exc:
        pytest.fail(f"usage error: {exc}", pytrace=False)


@pytest.fixture
def perf(request: pytest.FixtureRequest, target_group: TargetGroup, mobile_agent_settings: Settings,
         app_installation: AppInstallation) -> Iterator[Perf]:
    """The app under test's frames (`frames()`), memory (`memory()`) and CPU time (`cpu()`) on the
    test's first target; `reset()` starts a new span. The app is `--app-package`/`--app-apk`'s, else
    the fixture app. Each action of the test is measured too (the trace shows the figures beside it)."""
    budget = budget_of(request.node)
    part = target_group[0]
    package = (app_installation.ensure(part.device).package if app_installation.named
               else mobile_agent_settings.fixture_package)
    handle = Perf(part.device, package)
    sampler = StepPerf(handle, budget)
    request.node.stash[SAMPLER_KEY] = sampler
    remove = run_of(request.node).steps.add_listener(sampler)
    yield handle
    remove()
    request.node.user_properties.extend(junit_properties(sampler))


@pytest.fixture(autouse=True)
def _perf_marked(request: pytest.FixtureRequest) -> None:
    """A test with the marker is measured even when it does not ask for `perf` itself."""
    if request.node.get_closest_marker("perf") is not None:
        budget_of(request.node)
        request.getfixturevalue("perf")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """After the body: the budgets the steps exceeded fail the test (unless it failed already)."""
    yield
    sampler = item.stash.get(SAMPLER_KEY, None)
    if sampler is not None and sampler.violations:
        pytest.fail("performance budget exceeded:\n  " + "\n  ".join(sampler.violations), pytrace=False)


def junit_properties(sampler: StepPerf) -> list[tuple[str, Any]]:
    """`perf.<n>.<step>.<figure>` for every figure of every measured step."""
    properties: list[tuple[str, Any]] = []
    for number, (name, figures) in enumerate(sampler.measured, 1):
        for group, values in figures.items():
            if isinstance(values, dict):
                properties += [(f"perf.{number}.{name}.{key}", value) for key, value in values.items()
                               if isinstance(value, (int, float, str)) and not isinstance(value, bool)]
            elif isinstance(values, (int, float)):
                properties.append((f"perf.{number}.{name}.{group}", values))
    return properties
