"""What the terminal shows, run as a user runs it (pytester): the session header's target facts,
the status lines under xdist, the progress of long waits, and a path option's two spellings
leaving pytest's rootdir alone (issue 16, items 3, 5, 6 and 8)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

# Imported before the in-process inner runs (see test_plugin_surface.py): pytester drops the
# modules a run imports first, and a class imported twice makes isinstance fail.
import pytest_mobile_agent.mirror
import pytest_mobile_agent.session
import pytest_mobile_agent.virtual.agent
import pytest_mobile_agent.virtual.controller  # noqa: F401
from pytest_mobile_agent.agent import AgentJar
from pytest_mobile_agent.virtual import VirtualLab

pytest_plugins = ["pytester"]

ISOLATED = ("-p", "no:randomly", "-p", "no:cacheprovider")


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOBILE_AGENT_ANDROID_SERIAL", raising=False)
    monkeypatch.delenv("MOBILE_AGENT_REQUIRE_DEVICE", raising=False)
    monkeypatch.delenv("MOBILE_AGENT_JAR", raising=False)
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))
    monkeypatch.setenv("MOBILE_AGENT_RECORDS", str(pytester.path / "records"))


@pytest.fixture
def served_lab(monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualLab]:
    """Two virtual devices served from this process, as external devices are, reached by serial."""
    lab = VirtualLab.start(2)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(lab.adb_port))
    monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
    try:
        yield lab
    finally:
        lab.stop()


# --- item 8: the header names every target -----------------------------------------------------


def test_the_header_names_the_virtual_target_with_its_facts(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual:2")
    result.stdout.fnmatch_lines([
        "mobile-agent: targets virtual:2; *",
        "mobile-agent: emulator-5554 device, model sdk_gphone64_x86_64, API 36, emulator",
        "mobile-agent: emulator-5556 device, model sdk_gphone64_x86_64, API 36, emulator",
    ])


def test_the_header_names_every_target_of_a_comma_list(pytester: pytest.Pytester, served_lab: VirtualLab) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554,emulator-5556,emulator-5999")
    result.stdout.fnmatch_lines([
        "mobile-agent: targets emulator-5554, emulator-5556, emulator-5999; *",
        "mobile-agent: emulator-5554 device, model sdk_gphone64_x86_64, API 36, emulator",
        "mobile-agent: emulator-5556 device, model sdk_gphone64_x86_64, API 36, emulator",
        "mobile-agent: emulator-5999: emulator-5999 is not on the adb server at *",
    ])


# --- item 3: status lines under xdist --------------------------------------------------------------


def test_xdist_workers_send_their_status_lines_to_the_controller_per_target(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.parametrize("n", range(4))
        def test_on_a_session(session, n):
            assert session.status()
        """
    )
    result = pytester.runpytest_subprocess(*ISOLATED, "-n", "2", "--android-serial", "virtual:2",
                                           "--emulator-controller", "off")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*- mobile-agent status -*"])
    section = result.stdout.str().split("mobile-agent status", 1)[1]
    assert "emulator-5554: mobile-agent-android " in section and "emulator-5556: mobile-agent-android " in section
    assert section.count("input: agent (taps, long presses and swipes)") == 2


# --- item 6: a path option's two spellings -------------------------------------------------------


@pytest.mark.parametrize("spelling", ["two words", "one word"])
def test_a_path_option_outside_the_project_leaves_the_rootdir_alone(pytester: pytest.Pytester,
                                                                    tmp_path_factory: pytest.TempPathFactory,
                                                                    spelling: str) -> None:
    """`--agent-jar PATH` as two words: pytest finds the rootdir before the plugin's options are
    known, so PATH counted as a test path and the rootdir became the common ancestor."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    jar = elsewhere / "mobile-agent-android.jar"
    jar.write_bytes(AgentJar.stand_in().data)
    records = elsewhere / "records"
    records.mkdir()
    apk = elsewhere / "app.apk"
    apk.write_bytes(b"PK")
    pytester.makepyfile("def test_root(pytestconfig):\n    print('ROOT', pytestconfig.rootpath)\n")
    paths = {"--agent-jar": jar, "--agent-records": records, "--app-apk": apk}
    args = [part for flag, path in paths.items()
            for part in ((flag, str(path)) if spelling == "two words" else (f"{flag}={path}",))]
    result = pytester.runpytest("-p", "no:randomly", *args, "-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"rootdir: {pytester.path}*", f"*ROOT {pytester.path}"])
    assert not (elsewhere.parent / ".pytest_cache").exists()


# --- item 5: long waits show progress on the terminal --------------------------------------------

LOCK_HELD_IN_A_THREAD = """
import threading, time
from pytest_mobile_agent.lock import AutomationLock

def test_waits_for_the_lock(request, android_target):
    held, release = threading.Event(), threading.Event()

    def hold():
        with AutomationLock(android_target.lock_key).held("the holder in a thread", timeout=5):
            held.set()
            release.wait(10)

    threading.Thread(target=hold, daemon=True).start()
    held.wait(5)
    threading.Timer(2.5, release.set).start()
    request.getfixturevalue("automation_lock")
"""


def test_the_lock_wait_shows_who_holds_the_device_and_how_long_the_test_waited(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(LOCK_HELD_IN_A_THREAD)
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "--emulator-controller", "off")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([
        "[[]mobile-agent[]] test_the_lock_wait_shows*.py::test_waits_for_the_lock: waiting for the automation lock "
        "on emulator-5554*, held by pid * (the holder in a thread) for * s; waited 1 s of 900 s",
        "[[]mobile-agent[]] test_the_lock_wait_shows*.py::test_waits_for_the_lock: got the automation lock on "
        "emulator-5554* after * s",
    ])


def test_the_lock_wait_of_an_xdist_worker_reaches_the_controllers_terminal(pytester: pytest.Pytester,
                                                                           served_lab: VirtualLab) -> None:
    pytester.makepyfile(
        """
        import time
        import pytest

        @pytest.mark.parametrize("n", range(2))
        def test_holds_the_lock(automation_lock, n):
            time.sleep(2.5)
        """
    )
    result = pytester.runpytest_subprocess(*ISOLATED, "-n", "2", "--android-serial", "emulator-5554")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([
        "[[]mobile-agent[]] *::test_holds_the_lock[[]*[]]: waiting for the automation lock on emulator-5554*, "
        "held by pid * (*::test_holds_the_lock[[]*[]]) for * s; waited 1 s of 900 s",
    ])


def test_the_quiet_wait_shows_what_holds_the_device_and_how_long_the_test_waited(pytester: pytest.Pytester,
                                                                                 served_lab: VirtualLab) -> None:
    import threading

    stream = served_lab.device("emulator-5554").open_service("shell,v2,raw:uiautomator events")
    timer = threading.Timer(2.0, stream.close)
    timer.start()
    try:
        pytester.makepyfile("def test_x(agent):\n    pass\n")
        result = pytester.runpytest(*ISOLATED, "--android-serial", "emulator-5554", "--quiet-wait", "30")
    finally:
        timer.join()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([
        "[[]mobile-agent[]] *::test_x: waiting for the device to be quiet: automation client uiautomator* holds it; "
        "waited 0 s of 30 s",
        "[[]mobile-agent[]] *::test_x: the device is quiet after * s",
    ])


def test_a_two_word_path_that_brought_another_ini_file_is_a_usage_error_naming_the_one_word_spelling(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The jar's directory holding a pytest.ini: pytest read that file's options before ours were
    known; they cannot be undone, so the run stops and says how to write it."""
    elsewhere = tmp_path_factory.mktemp("other-project")
    (elsewhere / "pytest.ini").write_text("[pytest]\naddopts = -q\n")
    jar = elsewhere / "mobile-agent-android.jar"
    jar.write_bytes(AgentJar.stand_in().data)
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("-p", "no:randomly", "--agent-jar", str(jar))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--agent-jar {jar}: pytest read its configuration from {elsewhere / 'pytest.ini'} "
                                 "instead of None*write it as one word: --agent-jar=PATH*"])
    result = pytester.runpytest("-p", "no:randomly", f"--agent-jar={jar}")
    result.assert_outcomes(passed=1)
