"""The pytest surface, run as a user runs it (pytester): options, markers, fixtures, the quiet wait,
retry-on-disturbance, artifacts, and the automation lock across xdist workers."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest

# Imported here, before the in-process inner runs: pytester drops the modules a run imports first,
# and a class imported twice makes isinstance fail between the lab and the code it calls.
import pytest_mobile_agent.mirror
import pytest_mobile_agent.session
import pytest_mobile_agent.virtual.agent
import pytest_mobile_agent.virtual.fronts.controller  # noqa: F401
from pytest_mobile_agent.agent import AgentJar
from pytest_mobile_agent.virtual import VirtualLab
from tests.support.ports import closed_port

pytest_plugins = ["pytester"]

# Every inner run gets its own records, lock and cache directories, never the outer run's.
ISOLATED = ("-p", "no:randomly", "-p", "no:cacheprovider")


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOBILE_AGENT_ANDROID_SERIAL", raising=False)
    monkeypatch.delenv("MOBILE_AGENT_REQUIRE_DEVICE", raising=False)
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))
    monkeypatch.setenv("MOBILE_AGENT_RECORDS", str(pytester.path / "records"))


@pytest.fixture
def shared_lab(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtualLab]:
    """A virtual device served from this process, as an external device is: inner runs (and their
    xdist workers) reach it through its adb endpoint by serial, and deploy the stand-in jar."""
    jar = tmp_path_factory.mktemp("jar") / "mobile-agent-android.jar"
    jar.write_bytes(AgentJar.stand_in().data)
    monkeypatch.setenv("MOBILE_AGENT_JAR", str(jar))
    lab = VirtualLab.start(1)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(lab.adb_port))
    monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
    try:
        yield lab
    finally:
        lab.stop()


def test_a_device_test_without_a_target_is_skipped_naming_the_option_and_the_variable(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.device
        def test_marked():
            pass

        def test_by_fixture(device):
            pass

        def test_plain():
            pass
        """
    )
    result = pytester.runpytest(*ISOLATED, "-rs")
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(["*--android-serial SERIAL*MOBILE_AGENT_ANDROID_SERIAL*"])


def test_a_suites_own_fixture_named_like_ours_does_not_make_a_device_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.fixture
        def device():
            return "a fake"

        def test_with_its_own_device(device):
            assert device == "a fake"
        """
    )
    pytester.runpytest(*ISOLATED).assert_outcomes(passed=1)


def test_the_serial_comes_from_the_environment_and_the_ini_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(
        """
        def test_target(android_target):
            print("TARGET", android_target.serial, android_target.virtual)
        """
    )
    monkeypatch.setenv("MOBILE_AGENT_ANDROID_SERIAL", "virtual")
    result = pytester.runpytest(*ISOLATED, "-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*TARGET emulator-5554 True*"])
    monkeypatch.delenv("MOBILE_AGENT_ANDROID_SERIAL")
    pytester.makeini("[pytest]\nandroid_serial = virtual:2\n")
    result = pytester.runpytest(*ISOLATED, "-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*TARGET emulator-5554 True*"])


def test_required_without_a_target_the_run_fails_loudly(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x(device):\n    pass\n")
    result = pytester.runpytest(*ISOLATED, "--android-require-device")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--android-require-device: no Android target named*"])


def test_a_required_target_the_server_does_not_list_fails_the_run_with_advice(
    pytester: pytest.Pytester, shared_lab: VirtualLab
) -> None:
    pytester.makepyfile("def test_x(device):\n    pass\n")
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5570", "--android-require-device")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*emulator-5570 is not on the adb server*emulator-5554 (device)*adb devices -l*"])


def test_a_target_that_is_not_listed_skips_its_tests_with_the_advice_under_the_opt_out(
        pytester: pytest.Pytester, shared_lab: VirtualLab) -> None:
    pytester.makepyfile("def test_x(device):\n    pass\n")
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5570", "--android-skip-unusable", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*not usable: did you mean `--android-serial emulator-5554`? emulator-5570 is not on "
                                 "the adb server*"])


def test_bad_option_values_are_usage_errors(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    for args, message in (
        (("--quiet-wait", "soon"), "*--quiet-wait takes a number*"),
        (("--disturbance-retries", "0"), "*--disturbance-retries must be at least 1*"),
        (("--android-serial", "virtual,emulator-5554"), "*`virtual` stands alone*"),
    ):
        result = pytester.runpytest(*ISOLATED, *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, args
        result.stderr.fnmatch_lines([message])


@pytest.mark.parametrize(("gates", "outcome"), [("on", {"failed": 1}), ("off", {"passed": 1})])
def test_host_gates_assert_or_report(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, gates: str, outcome: dict[str, int]
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.host_gate
        def test_gated(host_gate):
            host_gate.check(75.0, 50, "round trip p50")
            assert 1 + 1 == 2
        """
    )
    monkeypatch.setenv("MOBILE_AGENT_HOST_GATES", gates)
    result = pytester.runpytest(*ISOLATED, "-s")
    result.assert_outcomes(**outcome)
    if gates == "off":
        result.stdout.fnmatch_lines(["*round trip p50: 75.0 ms (bound 50 ms); host gates off*"])
    else:
        result.stdout.fnmatch_lines(["*round trip p50 took 75.0 ms, over its bound of 50 ms*"])


def test_the_markers_are_registered_with_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*ISOLATED, "--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.device: the test needs an Android target*", "@pytest.mark.host_gate: *"])


def test_the_quiet_wait_fails_naming_what_held_the_device(pytester: pytest.Pytester, shared_lab: VirtualLab) -> None:
    holder = shared_lab.device("emulator-5554")
    stream = holder.open_service("shell,v2,raw:uiautomator events")
    try:
        pytester.makepyfile("def test_x(agent):\n    pass\n")
        result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", "--quiet-wait", "1")
        result.assert_outcomes(errors=1)
        result.stdout.fnmatch_lines(["*the device was not quiet after 1 s: automation client uiautomator*held it*"])
    finally:
        stream.close()


DISTURBED_ONCE = """
import json, pathlib
from pytest_mobile_agent.agent import Deployer, DeployOptions, Records

RUNS = pathlib.Path({runs!r})

def test_disturbed_once(agent, device, agent_jar):
    runs = json.loads(RUNS.read_text()) if RUNS.exists() else []
    runs.append(agent.record.socket)
    RUNS.write_text(json.dumps(runs))
    if len(runs) == 1:
        # another host's agent takes UI automation over (and stops ours), then leaves when idle
        other = Deployer(device, agent_jar, Records(), DeployOptions(force=True, idle_exit_ms=1500)).attach()
        other.connection.close()
        agent.connection.request("snapshot", {{}}, timeout=5)
"""


def test_a_disturbed_test_runs_again_once_the_device_is_quiet_and_the_report_says_why(
    pytester: pytest.Pytester, shared_lab: VirtualLab
) -> None:
    runs = pytester.path / "runs.json"
    pytester.makepyfile(DISTURBED_ONCE.format(runs=str(runs)))
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", "-rA")
    outcomes = result.parseoutcomes()
    assert (outcomes.get("passed"), outcomes.get("rerun"), outcomes.get("failed")) == (1, 1, None)
    result.stdout.fnmatch_lines(
        [
            "*tests run again after a disturbance*",
            "*test_disturbed_once: run 1 of at most 3: agent mobile-agent mobile-agent-*",
        ]
    )
    sockets = json.loads(runs.read_text())
    assert len(sockets) == 2 and sockets[0] != sockets[1]  # the second run attached a fresh agent


def test_an_ordinary_failure_is_not_run_again(pytester: pytest.Pytester, shared_lab: VirtualLab) -> None:
    runs = pytester.path / "runs.txt"
    pytester.makepyfile(
        f"""
        import pathlib

        def test_fails(agent):
            with pathlib.Path({str(runs)!r}).open("a") as f:
                f.write("run\\n")
            assert False, "the app is wrong"
        """
    )
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554")
    result.assert_outcomes(failed=1)
    assert runs.read_text().count("run") == 1
    assert "tests run again" not in result.stdout.str()


def test_a_failing_screen_test_leaves_a_screenshot_the_tree_and_the_logcat(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_fails_on_the_big_tab(compose_fixture, screen):
            compose_fixture(tab="Big")
            screen.wait_for(text="Cell 500", timeout=10)
            assert screen.exists(text="Cell 501")
        """
    )
    result = pytester.runpytest("-p", "no:randomly", "--android-serial", "virtual", "--emulator-controller", "off")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*- mobile-agent tree -*", "*Cell 500*", "*- mobile-agent logcat -*", "*- mobile-agent artifacts -*"]
    )
    artifacts = next((pytester.path / ".pytest_cache" / "d" / "mobile-agent" / "artifacts").iterdir())
    assert (artifacts / "screenshot.png").read_bytes().startswith(b"\x89PNG")
    assert "Cell 500" in (artifacts / "tree.txt").read_text()
    assert (artifacts / "logcat.txt").exists()


LOCK_RECORDER = """
import json, os, time
import pytest

@pytest.mark.parametrize("n", range(6))
def test_uses_the_agent(agent, n):
    entered = time.monotonic()
    agent.connection.request("snapshot", {{}}, timeout=5)
    time.sleep(0.05)
    left = time.monotonic()
    with open({out!r}, "a") as f:
        f.write(json.dumps([entered, left, os.environ.get("PYTEST_XDIST_WORKER", "")]) + "\\n")
"""


def test_xdist_workers_never_overlap_on_one_serial(pytester: pytest.Pytester, shared_lab: VirtualLab) -> None:
    out = pytester.path / "spans.jsonl"
    pytester.makepyfile(LOCK_RECORDER.format(out=str(out)))
    result = pytester.runpytest_subprocess(*ISOLATED, "-n", "2", "--android-serial", "emulator-5554")
    result.assert_outcomes(passed=6)
    spans = sorted(json.loads(line) for line in out.read_text().splitlines())
    assert {worker for _, _, worker in spans} == {"gw0", "gw1"}
    for (_, left, _), (entered, _, _) in zip(spans, spans[1:], strict=False):
        assert entered >= left, "two workers used UI automation on emulator-5554 at once"


def test_with_two_virtual_serials_each_worker_gets_its_own_target(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import os
        import pytest

        @pytest.mark.parametrize("n", range(4))
        def test_where(android_target, n):
            with open(os.environ["WHERE"], "a") as f:
                f.write(os.environ["PYTEST_XDIST_WORKER"] + " " + android_target.serial + "\\n")
        """
    )
    where = pytester.path / "where.txt"
    os.environ["WHERE"] = str(where)
    try:
        result = pytester.runpytest_subprocess(*ISOLATED, "-n", "2", "--android-serial", "virtual:2")
    finally:
        del os.environ["WHERE"]
    result.assert_outcomes(passed=4)
    pairs = {tuple(line.split()) for line in where.read_text().splitlines()}
    assert pairs == {("gw0", "emulator-5554"), ("gw1", "emulator-5556")}


def test_the_header_names_the_target_and_its_facts(pytester: pytest.Pytester, shared_lab: VirtualLab) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554")
    result.stdout.fnmatch_lines(
        [
            "mobile-agent: targets emulator-5554; controller auto*",
            "mobile-agent: emulator-5554 device, model *, API 36, emulator",
        ]
    )


def test_a_session_fixture_prints_the_status_lines_at_the_end(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x(session):\n    assert session.status()\n")
    result = pytester.runpytest("-p", "no:randomly", "--android-serial", "virtual", "--emulator-controller", "off")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*mobile-agent status*",
            "emulator-5554: mobile-agent-android * over protocol 1, pid *",
            "input: agent (taps, long presses and swipes)",
        ]
    )


def test_a_closed_controller_port_prints_the_seeds_status_line(pytester: pytest.Pytester) -> None:
    """Issue 16 item 11: the seed's line, whole, with only the port and the OS's errno free."""
    import errno

    pytester.makepyfile("def test_x(session):\n    assert session.status()\n")
    with closed_port() as port:
        result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "--emulator-controller",
                                    f"http://127.0.0.1:{port}")
    result.assert_outcomes(passed=1)
    assert (
        "warning: emulator control endpoint unavailable for emulator-5554 (connecting to "
        f"http://127.0.0.1:{port}: transport error: tcp connect error: {os.strerror(errno.ECONNREFUSED)} "
        f"(os error {errno.ECONNREFUSED})): taps and frames fall back to the agent. Start the emulator with "
        "`-grpc 8554 -grpc-use-token` to use the fast path, or enable it without a restart through the emulator "
        "console command `grpc 8554`, for example `adb -s emulator-5554 emu grpc 8554`."
    ) in result.outlines, result.outlines


def test_the_virtual_devices_own_controller_is_confirmed_and_used(pytester: pytest.Pytester) -> None:
    """The virtual device carries the AVD name and display its controller double reports."""
    pytester.makepyfile("def test_x(session):\n    assert session.controller is not None, session.warning\n")
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "--emulator-controller", "auto")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["input: emulator controller at http://127.0.0.1:* (taps, long presses and swipes)"])
    result.stdout.no_fnmatch_line("warning: *")


@pytest.mark.parametrize(("avd", "size", "why"), [
    ("Pixel_9_API_35", (1080, 2400),
     "the discovery file */pid_*.ini names AVD 'Pixel_9_API_35', and emulator-5554 runs AVD 'Pixel_7_API_36_lab*_1' "
     "(ro.boot.qemu.avd_name): another emulator on the same console port"),
    (None, (1280, 2856),
     "the controller at http://127.0.0.1:* has a 1280x2856 display, and emulator-5554's physical size is "
     "1080x2400 (wm size): another emulator"),
], ids=["another-avd", "another-display"])
def test_a_local_emulators_controller_on_the_same_console_port_is_not_used_for_a_served_device(
        pytester: pytest.Pytester, shared_lab: VirtualLab, monkeypatch: pytest.MonkeyPatch,
        avd: str | None, size: tuple[int, int], why: str) -> None:
    """Issue 16 item 2: `auto` matched discovery files by console port alone, so the served
    emulator-5554 took a local emulator-5554's controller and its swipes went to that screen.
    (None: an emulator of the served device's own AVD name, with another display.)"""
    from pytest_mobile_agent.virtual.device import VirtualDevice
    from pytest_mobile_agent.virtual.fronts.controller import AvdConfig, ControllerDouble

    avd = avd or shared_lab.device("emulator-5554").properties["ro.boot.qemu.avd_name"]

    stranger = VirtualDevice("emulator-5554", properties={"ro.boot.qemu.avd_name": avd})
    stranger.display.physical_width, stranger.display.physical_height = size
    discovery_dir = pytester.path / "avd-running"
    monkeypatch.setenv("MOBILE_AGENT_AVD_DISCOVERY_DIR", str(discovery_dir))
    pytester.makepyfile("def test_x(session):\n    assert session.status()\n")
    with ControllerDouble(stranger.display, avd=AvdConfig(name=avd, display_name=avd.replace("_", " ")),
                          discovery_dir=discovery_dir) as double:
        result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", "--emulator-controller", "auto")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "input: agent (taps, long presses and swipes)",
            f"warning: emulator control endpoint not used for emulator-5554 ({why}): taps and frames fall back to the "
            "agent.",
        ]
    )
    assert not double.touches


def test_the_fixture_app_is_stopped_while_the_automation_lock_is_still_held(pytester: pytest.Pytester,
                                                                             shared_lab: VirtualLab) -> None:
    """Issue 19 item 10: with `def test(compose_fixture, screen)` the lock was torn down first, and
    the app's force-stop could kill the next worker's app on a shared device."""
    pytester.makepyfile(
        """
        def test_on_login(compose_fixture, screen):
            compose_fixture(tab="Login")
        """
    )
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", "--emulator-controller", "off",
                                "--setup-show")
    result.assert_outcomes(passed=1)
    teardowns = [line.split()[-1] for line in result.outlines if line.strip().startswith("TEARDOWN")]
    device_touching = ("compose_fixture", "screen")  # the group closes the screen's parts, then releases the lock
    assert all(teardowns.index(name) < teardowns.index("target_group") for name in device_touching), teardowns


def test_the_timeouts_for_a_slow_machine_are_options_and_ini_keys_with_the_seeds_defaults(
        pytester: pytest.Pytester, shared_lab: VirtualLab) -> None:
    """Issue 19 item 13: liveness 3 s, the controller's connect 2 s and the wait after SIGKILL 1 s,
    tight for a real emulator on a loaded CI runner, could not be raised."""
    from pytest_mobile_agent.virtual.fronts.silent_port import SilentPort

    pytester.makepyfile(
        """
        def test_timeouts(agent, path_selection, mobile_agent_settings):
            s = mobile_agent_settings
            print("TIMEOUTS", s.agent_liveness, s.controller_connect_timeout, s.agent_kill_wait,
                  agent.connection._session.liveness_timeout, agent.deployer.options.kill_timeout)
            print("WARNING", path_selection.warning)
        """
    )
    with SilentPort() as silent:
        controller = ("--emulator-controller", f"http://127.0.0.1:{silent.port}")
        result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", *controller, "-s")
        result.assert_outcomes(passed=1)
        result.stdout.fnmatch_lines(["*TIMEOUTS 3.0 2.0 1.0 3.0 1.0*", "*WARNING *within the 2 s deadline*"])
        pytester.makeini("[pytest]\nagent_liveness = 12\ncontroller_connect_timeout = 0.5\nagent_kill_wait = 4\n")
        result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", *controller, "-s",
                                    "--agent-kill-wait", "6")
        result.assert_outcomes(passed=1)
        result.stdout.fnmatch_lines(["*TIMEOUTS 12.0 0.5 6.0 12.0 6.0*", "*WARNING *within the 0.5 s deadline*"])
    result = pytester.runpytest(*ISOLATED, "--agent-liveness", "0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--agent-liveness must be more than 0 seconds*"])


def test_the_action_timeout_is_an_option_and_an_ini_key_the_screen_gets(
        pytester: pytest.Pytester, shared_lab: VirtualLab) -> None:
    """Issue 25 item 1: actions wait for their element, 5 s unless --android-action-timeout or the
    ini key says otherwise (0: no wait); a bad value is a usage error naming the option."""
    pytester.makepyfile(
        """
        def test_timeout(screen):
            print("ACTION_TIMEOUT", screen.action_timeout)
        """
    )
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", "-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*ACTION_TIMEOUT 5.0*"])
    pytester.makeini("[pytest]\nandroid_action_timeout = 0.5\n")
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", "-s")
    result.stdout.fnmatch_lines(["*ACTION_TIMEOUT 0.5*"])
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", "-s", "--android-action-timeout", "0")
    result.stdout.fnmatch_lines(["*ACTION_TIMEOUT 0.0*"])
    result = pytester.runpytest(*ISOLATED, "--android-action-timeout", "soon")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--android-action-timeout takes a number*"])
