"""The perf fixture and marker on the virtual device, as a team uses them: app.start's launch
metrics, frames/memory/cpu, each action's figures in the trace and JUnit, and budgets that fail on
the Feed screen (which drops frames when scrolled) and pass on the smooth List."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
import zipfile

import pytest

pytest_plugins = ["pytester"]

ISOLATED = ("-p", "no:randomly", "--android-serial", "virtual", "--emulator-controller", "off")


@pytest.fixture(autouse=True)
def _isolated(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOBILE_AGENT_ANDROID_SERIAL", raising=False)
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(pytester.path / "cache"))


SUITE = '''
import pytest

def scroll_down(screen, times):
    for _ in range(times):
        screen.swipe(540, 1900, 540, 700, duration=0.3)

@pytest.mark.perf(jank_percent=25)
def test_feed_is_janky(compose_fixture, screen):
    compose_fixture(tab="Feed")
    screen.wait_for(id="photo_1", timeout=10)
    scroll_down(screen, 2)

@pytest.mark.perf(jank_percent=25)
def test_list_is_smooth(compose_fixture, screen):
    compose_fixture(tab="List")
    screen.wait_for(text="Item 1", timeout=10)
    scroll_down(screen, 2)

def test_the_fixture_reads_the_counters(compose_fixture, screen, perf):
    handle = compose_fixture(tab="Feed")
    launch = handle.last_launch
    assert launch.state == "COLD" and launch.timed and launch.total_ms >= 0 and launch.wait_ms >= 0
    screen.wait_for(id="photo_1", timeout=10)
    perf.reset()
    scroll_down(screen, 1)
    frames = perf.frames()
    assert frames.total > 0 and frames.janky > 0 and frames.percentiles[90] > 16
    assert len(frames.frames_ms) > 0
    memory = perf.memory()
    assert memory.pss_mb > 10 and "Graphics" in memory.parts
    assert perf.cpu() > 0
    handle.to_background()
    warm = handle.to_foreground()
    assert warm.state == "WARM" and warm.timed and handle.last_launch is warm

@pytest.mark.perf(startup_ms="fast")
def test_a_budget_of_the_wrong_type(compose_fixture):
    compose_fixture(tab="List")
'''


def test_budgets_fail_on_the_janky_feed_and_pass_on_the_smooth_list(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(SUITE)
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest(*ISOLATED, f"--junitxml={junit}", "--android-trace=on")
    result.assert_outcomes(passed=2, failed=1, errors=1)
    output = result.stdout.str()
    assert "performance budget exceeded" in output
    assert "jank_percent" in output and "exceeds the budget of 25" in output and "swipe" in output
    assert "usage error: @pytest.mark.perf(startup_ms=...) takes a number" in output and "'fast'" in output
    cases = {case.get("name"): case for case in ElementTree.parse(junit).getroot().iter("testcase")}
    smooth = {p.get("name"): p.get("value") for p in cases["test_list_is_smooth"].iter("property")}
    assert smooth["perf.1.app.start.state"] == "COLD" and float(smooth["perf.1.app.start.startup_ms"]) >= 0
    assert float(smooth["perf.2.swipe.gfxFrameTotalCount"]) > 0
    assert float(smooth["perf.2.swipe.gfxFrameJankPercent"]) <= 25
    janky = {p.get("name"): p.get("value") for p in cases["test_feed_is_janky"].iter("property")}
    assert float(janky["perf.2.swipe.gfxFrameJankPercent"]) > 25
    trace = next(pytester.path.rglob("*test_feed_is_janky/trace.zip"))
    with zipfile.ZipFile(trace) as archive:
        document = json.loads(archive.read("trace.json"))
    swipes = [step for step in document["steps"] if step["name"] == "swipe"]
    assert swipes and swipes[0]["perf"]["frames"]["gfxFrameJankPercent"] > 25
    assert "pss_mb" in swipes[0]["perf"]["memory"]
