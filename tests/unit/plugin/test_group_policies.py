"""Issue 38: a test of several targets (`@pytest.mark.devices(2)` on `virtual:2`) gets every per-test
policy a single-target test gets, because both are opened by the one opener (stack/opener.py) and
recorded in one run record (plugin/run.py): a rerun when another agent takes one of its devices, each
device's screenshot, tree and logcat when it fails, a trace with both devices' screens, and a video
of each device."""

from __future__ import annotations

import json
from pathlib import Path

import numpy  # noqa: F401 - loaded before the in-process inner runs: pytester restores sys.modules after
import pytest

from pytest_mobile_agent.evidence import tracefile
from pytest_mobile_agent.mirror import snapshots  # noqa: F401 - numpy's users, loaded once for the same reason
from tests.unit.plugin.plugin_inner_runs import ISOLATED, isolate

pytest_plugins = ["pytester"]

SECOND = "emulator-5556"


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(pytester, monkeypatch)
    for name in ("MOBILE_AGENT_TRACE", "MOBILE_AGENT_VIDEO", "MOBILE_AGENT_SCREENSHOT"):
        monkeypatch.delenv(name, raising=False)


def artifacts(pytester: pytest.Pytester, test: str) -> Path:
    return pytester.path / ".mobile-agent" / "artifacts" / f"test_pair.py_{test}"


DISTURBED_ON_THE_SECOND = """
import json, pathlib
import pytest
from pytest_mobile_agent.agent import AgentJar, Deployer, DeployOptions, Records

RUNS = pathlib.Path({runs!r})

@pytest.mark.devices(2)
def test_pair_disturbed_once(screens, devices):
    runs = json.loads(RUNS.read_text()) if RUNS.exists() else []
    runs.append([d.serial for d in devices])
    RUNS.write_text(json.dumps(runs))
    screens[1].find(id="username") if screens[1].exists(id="username") else None
    if len(runs) == 1:
        # another host's agent takes UI automation of the second device over (and stops ours there)
        other = Deployer(devices[1].adb, AgentJar.stand_in(), Records(),
                         DeployOptions(force=True, idle_exit_ms=1500)).attach()
        other.connection.close()
        screens[1].refresh()
"""


def test_a_pair_is_run_again_when_another_agent_takes_one_of_its_devices(pytester: pytest.Pytester) -> None:
    runs = pytester.path / "runs.json"
    pytester.makepyfile(test_pair=DISTURBED_ON_THE_SECOND.format(runs=str(runs)))
    result = pytester.runpytest_subprocess(*ISOLATED, "--android-serial", "virtual:2", "--emulator-controller", "off",
                                           "-rA", timeout=300)
    outcomes = result.parseoutcomes()
    assert (outcomes.get("passed"), outcomes.get("rerun"), outcomes.get("failed")) == (1, 1, None), \
        result.stdout.str()
    result.stdout.fnmatch_lines(["*tests run again after a disturbance*",
                                 f"*test_pair_disturbed_once: run 1 of at most 3: {SECOND}: *"])
    assert [serials for serials in json.loads(runs.read_text())] == [["emulator-5554", SECOND]] * 2


FAILING_PAIR = """
import pytest

@pytest.mark.devices(2)
def test_pair_fails(screens, devices):
    for device in devices:
        device.adb.shell("am start -W -S -n dev.mobileagent.fixture/.MainActivity --es tab Login")
    screens[0].wait_for(id="username", timeout=10).type_text("alice")
    screens[1].wait_for(id="username", timeout=10).tap()
    screens[1].press_key("back")
    assert screens[0].find(id="username").text == "bob"
"""


def test_a_failing_pair_leaves_each_devices_artifacts_and_a_trace_of_both_screens(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_pair=FAILING_PAIR)
    result = pytester.runpytest_subprocess(*ISOLATED, "--android-serial", "virtual:2", timeout=300)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*- mobile-agent tree ({SECOND}) -*", f"*- mobile-agent logcat ({SECOND}) -*"])
    folder = artifacts(pytester, "test_pair_fails")
    for stem in ("screenshot", f"screenshot-{SECOND}"):
        assert (folder / f"{stem}.png").read_bytes().startswith(b"\x89PNG"), sorted(folder.iterdir())
    for stem in ("tree", f"tree-{SECOND}", "logcat", f"logcat-{SECOND}"):
        assert (folder / f"{stem}.txt").exists(), sorted(folder.iterdir())
    assert "username" in (folder / f"tree-{SECOND}.txt").read_text()
    trace = tracefile.read_trace(folder / "trace.zip")
    screens = trace.document["screens"]
    assert len(screens) == 2 and all(size == {"width": 1080, "height": 2400} for size in screens.values())
    first, second = screens
    actions = [step for step in trace.steps if step["depth"] == 0 and step["name"] in ("type_text", "element.type_text",
                                                                                          "element.tap", "press_key")]
    assert {step["screen"] for step in actions} == {first, second}, actions
    on_second = [step for step in actions if step["screen"] == second]
    assert all(step["before"] and step["tree"] for step in on_second), on_second  # the controller's frames
    typed = actions[0]  # alice typed on the first device; the second's field is still empty
    assert typed["screen"] == first and typed["after"]
    assert trace.member(on_second[0]["before"]) != trace.member(typed["after"]), "each device's own screen"
    assert any(step["tree"].startswith("trees/1-") for step in on_second), "the second device's trees are its own"
    assert {target["label"] for target in trace.document["targets"]} == {first, second}


PASSING_PAIR = """
import pytest

@pytest.mark.devices(2)
def test_pair_passes(screens, devices):
    for device in devices:
        device.adb.shell("am start -W -S -n dev.mobileagent.fixture/.MainActivity --es tab List")
    for screen in screens:
        screen.wait_for(text="Item 1", timeout=10)
        screen.swipe(540, 1800, 540, 900, duration=0.3)
"""


def test_a_pair_under_video_on_has_a_video_of_each_device(pytester: pytest.Pytester) -> None:
    pytest.importorskip("av", reason="the video needs PyAV (the dev extra installs it)")
    pytester.makepyfile(test_pair=PASSING_PAIR)
    result = pytester.runpytest_subprocess(*ISOLATED, "--android-serial", "virtual:2", "--android-video", "on",
                                           "--junitxml=junit.xml", timeout=300)
    result.assert_outcomes(passed=1)
    folder = artifacts(pytester, "test_pair_passes")
    for name in ("video.mp4", f"video-{SECOND}.mp4"):
        assert (folder / name).stat().st_size > 1000, sorted(folder.iterdir())
    junit = (pytester.path / "junit.xml").read_text()
    assert "mobile_agent_video" in junit and f"mobile_agent_video-{SECOND}" in junit


AGENT_ONLY = """
def test_agent_only(agent, target_group):
    assert agent.connection is not None
    part = target_group[0]
    assert part.opened_attached is agent
    assert part.opened_session is None and part.opened_control is None, "no session, screen or control opened"
"""


def test_a_test_that_asks_only_for_the_agent_never_starts_a_session(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_pair=AGENT_ONLY)
    result = pytester.runpytest_subprocess(*ISOLATED, "--android-serial", "virtual", timeout=300)
    result.assert_outcomes(passed=1)
    assert "mobile-agent status" not in result.stdout.str(), "a session's status lines come only from a session"
