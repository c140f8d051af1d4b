"""The host's chromium behind a device process: started only when web content is shown, and never
left running: not when the lab stops, and not when the process that ran the device is killed
outright (PR_SET_PDEATHSIG on the keeper thread, virtual/web/chromium.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.lab import VirtualLab
from pytest_mobile_agent.virtual.ui.fixture import PACKAGE
from pytest_mobile_agent.virtual.web.chromium import DEBIAN_HEADLESS_SHELL, live_processes_in_group
from pytest_mobile_agent.virtual.web.profiles import make_profile
from tests.support.chromium import needs_chromium
from tests.support.polling import wait_until
from tests.unit.virtual.web.conftest import open_webview

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


def test_a_device_that_shows_no_web_content_starts_no_chromium(vdev: VirtualDevice) -> None:
    vdev.shell(f"am start -W -n {PACKAGE}/.MainActivity --es tab Big")
    vdev.shell(f"am start -W -n {PACKAGE}/.MainActivity --es tab Login")
    assert vdev.web.browsers() == []
    assert b"devtools_remote" not in vdev.shell("cat /proc/net/unix")[1]


@needs_chromium
def test_the_labs_stop_kills_its_chromium() -> None:
    with VirtualLab.start(1) as lab:
        opened = open_webview(lab.device(lab.serials[0]))
        chromium = opened.browser.chromium
        assert chromium is not None and chromium.alive()
    assert chromium.process.returncode is not None
    assert live_processes_in_group(chromium.pid) == []


@needs_chromium
def test_a_killed_test_process_leaves_no_chromium_running() -> None:
    script = textwrap.dedent("""
        import sys, time
        from tests.unit.virtual.web.conftest import open_webview
        from pytest_mobile_agent.virtual.device import VirtualDevice
        opened = open_webview(VirtualDevice())
        print(opened.browser.chromium.pid, opened.browser.chromium.profile, flush=True)
        time.sleep(120)
    """)
    env = {**os.environ, "PYTHONPATH": ROOT}
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, env=env, cwd=ROOT)
    try:
        assert child.stdout is not None
        pid_text, profile_text = child.stdout.readline().decode().split()
        chromium_pid, profile = int(pid_text), Path(profile_text)
        assert live_processes_in_group(chromium_pid) != []
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    assert wait_until(lambda: live_processes_in_group(chromium_pid) == [], timeout=10.0)
    time.sleep(0.2)
    assert live_processes_in_group(chromium_pid) == []
    # nobody was left to remove its profile: the next chromium's start does (this test's, or one
    # that another xdist worker started meanwhile)
    shutil.rmtree(make_profile(profile.parent))
    assert not profile.exists()


@needs_chromium
def test_a_process_dies_while_another_processs_chromium_is_starting(vdev: VirtualDevice) -> None:
    """The engine's lock is held across a chromium's start, which binds its socket under the
    kernel's lock; a process that dies meanwhile (the kernel's lock held) must not wait for it."""
    open_webview(vdev)
    stopped = threading.Event()

    def force_stop() -> None:
        vdev.shell(f"am force-stop {PACKAGE}")
        stopped.set()

    with vdev.web._lock:  # as while another process's chromium starts
        threading.Thread(target=force_stop, daemon=True).start()
        assert stopped.wait(10.0), "the app's death waited for the engine"
        assert b"webview_devtools_remote" not in vdev.shell("cat /proc/net/unix")[1]
    assert wait_until(lambda: vdev.web.browsers() == [], timeout=10.0)



BROWSERS = [pytest.param(path, id=Path(path).name) for path in ("/usr/bin/chromium", DEBIAN_HEADLESS_SHELL)
            if os.access(path, os.X_OK)]


@needs_chromium
@pytest.mark.parametrize("binary", BROWSERS)
def test_a_stopped_chromium_leaves_no_folder_in_the_temp_directory(binary: str, monkeypatch) -> None:
    """Chromium makes its process singleton's socket folder under TMPDIR and never removes it when
    killed: each start left an `org.chromium.Chromium.*` folder in /tmp (7,760 on this machine after
    a day of runs). Its temp folder is now inside its profile, which its stop removes. The headless
    shell has no process singleton (a //chrome feature) and makes no such folder."""
    import tempfile

    from pytest_mobile_agent.virtual.web.chromium import Chromium

    temp = Path(tempfile.mkdtemp(prefix="ma-", dir="/tmp"))  # short: the socket's path has 108 bytes
    try:
        monkeypatch.setenv("MOBILE_AGENT_CHROMIUM", binary)
        monkeypatch.setenv("TMPDIR", str(temp))
        monkeypatch.setattr(tempfile, "tempdir", None)  # tempfile reads TMPDIR again
        chromium = Chromium.start("test", 1.0, label="temp folder")
        try:
            singleton = list(chromium.profile.glob("tmp/org.chromium.Chromium.*"))
            assert bool(singleton) == (binary != DEBIAN_HEADLESS_SHELL), "chromium's singleton folder is inside"
            assert [p.name for p in temp.iterdir()] == [chromium.profile.name]
        finally:
            chromium.stop()
        assert list(temp.iterdir()) == []
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def test_a_profile_too_deep_for_the_singletons_socket_keeps_the_temp_folder_it_was_given(tmp_path: Path) -> None:
    import tempfile

    from pytest_mobile_agent.virtual.web.chromium import temp_inside

    short = Path(tempfile.mkdtemp(prefix="ma-", dir="/tmp"))
    try:
        assert temp_inside(short)["TMPDIR"] == str(short / "tmp") and (short / "tmp").is_dir()
    finally:
        shutil.rmtree(short)
    deep = tmp_path / ("d" * 80)
    deep.mkdir()
    assert temp_inside(deep).get("TMPDIR") == os.environ.get("TMPDIR"), "left as it is"
    assert not (deep / "tmp").exists()


def test_the_headless_shell_is_chosen_over_chromium_and_a_named_binary_over_both(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_mobile_agent.virtual.web import chromium

    shell, browser = tmp_path / "lib" / "chromium-headless-shell", tmp_path / "bin" / "chromium"
    for binary in (shell, browser):
        binary.parent.mkdir()
        binary.write_text("#!/bin/sh\n")
        binary.chmod(0o755)
    monkeypatch.delenv("MOBILE_AGENT_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(browser.parent))
    monkeypatch.setattr(chromium, "DEBIAN_HEADLESS_SHELL", str(shell))
    assert chromium.chromium_binary() == str(shell)
    monkeypatch.setattr(chromium, "DEBIAN_HEADLESS_SHELL", str(tmp_path / "none"))
    assert chromium.chromium_binary() == str(browser), "chromium when there is no shell"
    monkeypatch.setenv("PATH", f"{shell.parent}{os.pathsep}{browser.parent}")
    assert chromium.chromium_binary() == str(shell), "the shell on the PATH, as Playwright's download has it"
    monkeypatch.setenv("MOBILE_AGENT_CHROMIUM", str(browser))
    assert chromium.chromium_binary() == str(browser), "the one named"
