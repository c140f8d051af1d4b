"""`--android-hide-clipboard-toasts` (issue 37, item 2): ClipboardService's access toast ("<app>
pasted from your clipboard", after every paste and the agent's own clipboard reads) is off for the
session (Settings.Secure.clipboard_show_access_notifications 0) and the setting is put back after
it; without the option the setting is left alone. An inner run on a served virtual device."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent.virtual import VirtualLab

pytest_plugins = ["pytester"]

PASTES_AND_READS_TOASTS = """
def test_the_agents_clipboard_reads(screen, device, device_control):
    assert device.shell("settings get secure clipboard_show_access_notifications").text().strip() == "{expected}"
    device_control.set_clipboard("the user's clip")
    assert device_control.clipboard == "the user's clip"
    print("TOASTS", [(t.text, t.by_agent) for t in screen.all_toasts])
"""


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualLab]:
    for name in ("MOBILE_AGENT_JAR", "MOBILE_AGENT_RECORDS", "MOBILE_AGENT_ANDROID_SERIAL", "ADB_SERVER_SOCKET",
                 "ANDROID_ADB_SERVER_PORT", "MOBILE_AGENT_EMULATOR_CONTROLLER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(tmp_path / "locks"))
    with VirtualLab.start(1) as lab:
        yield lab


def run_inner(pytester: pytest.Pytester, served: VirtualLab, expected: str, *flags: str) -> pytest.RunResult:
    pytester.makepyfile(test_inner=PASTES_AND_READS_TOASTS.replace("{expected}", expected))
    return pytester.runpytest("-s", "-p", "no:randomly", "-p", "no:xdist", "--android-serial",
                                         f"tcp:127.0.0.1:{served.adb_port}/{served.serials[0]}", "--quiet-wait", "0",
                                         *flags)


def test_the_option_turns_the_access_toasts_off_for_the_session_and_puts_the_setting_back(
        pytester: pytest.Pytester, served: VirtualLab) -> None:
    device = served.device(served.serials[0])
    device.ui.clipboard = "an app's clip"
    result = run_inner(pytester, served, "0", "--android-hide-clipboard-toasts")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*TOASTS []"])
    assert "clipboard_show_access_notifications" not in device.framework.settings["secure"], "deleted again"


def test_without_the_option_the_agents_read_shows_its_toast_marked_as_the_agents(
        pytester: pytest.Pytester, served: VirtualLab) -> None:
    device = served.device(served.serials[0])
    device.ui.clipboard = "an app's clip"
    result = run_inner(pytester, served, "null")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*TOASTS [[]('Shell pasted from your clipboard', True)[]]"])
