"""Issue 24 item 5: visual snapshots on the virtual device: a baseline written, then matched; a changed
label caught with its diff image; the status bar's clock (it shows seconds) masked, so it never fails;
a mismatch under -n 2. The comparison itself, on pixels, is tested in tests/unit/mirror/test_snapshots.py."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_mobile_agent.mirror import snapshots
from tests.unit.plugin.plugin_inner_runs import ISOLATED, isolate

pytest_plugins = ["pytester"]

LOGIN = """
import time

def test_login(compose_fixture, screen):
    compose_fixture(tab="Login")
    screen.assert_snapshot("login")

def test_login_a_clock_tick_later(compose_fixture, screen):
    compose_fixture(tab="Login")
    time.sleep(1.2)  # the status bar's clock shows seconds
    screen.assert_snapshot("login")

def test_login_with_an_error_label(compose_fixture, screen):
    compose_fixture(tab="Login")
    screen.tap(id="login_button")
    screen.wait_for(id="login_error")
    screen.assert_snapshot("login")
"""
PROFILE = "1080x2400-420dpi-api36"


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(pytester, monkeypatch)
    monkeypatch.delenv("MOBILE_AGENT_UPDATE_SNAPSHOTS", raising=False)


def test_a_baseline_is_written_then_matched_and_a_changed_label_is_caught(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_screens=LOGIN)
    first = pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "-k", "test_login and not later "
                                          "and not error", "--android-update-snapshots")
    first.assert_outcomes(passed=1)
    baseline = pytester.path / "__snapshots__" / "test_screens" / PROFILE / "login.png"
    assert baseline.read_bytes().startswith(b"\x89PNG")
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*SnapshotMismatch: snapshot 'login' does not match *login.png: * pixels differ *",
                                 "*mobile-agent snapshot*"])
    folder = pytester.path / ".mobile-agent" / "artifacts" / "test_screens.py_test_login_with_an_error_label"
    diff = snapshots.decode_png((folder / "login-diff.png").read_bytes())
    red = (diff[..., 0] == 255) & (diff[..., 1] == 0) & (diff[..., 2] == 0)
    rows = np.nonzero(red.any(axis=1))[0]
    assert rows.min() >= 1579 and rows.max() <= 1663, "the differing pixels are the error label's (login_error)"
    assert (folder / "login-expected.png").exists() and (folder / "login-actual.png").exists()


def test_a_missing_baseline_is_written_and_fails_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_screens=LOGIN)
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "-k", "test_login and not later "
                                           "and not error")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*snapshot 'login' had no baseline: * is written from this run*"])
    again = pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "-k", "test_login and not later "
                                          "and not error")
    again.assert_outcomes(passed=1)


def test_without_the_default_masks_the_clock_fails_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_screens="""
        import time

        def test_clock(compose_fixture, screen):
            compose_fixture(tab="Login")
            screen.assert_snapshot("clock", default_masks=False)
            time.sleep(1.2)
            screen.assert_snapshot("clock", default_masks=False)
    """)
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "--android-update-snapshots")
    result.assert_outcomes(passed=1)
    result = pytester.runpytest(*ISOLATED, "--android-serial", "virtual")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*snapshot 'clock' does not match*"])


def test_a_mismatch_under_two_workers(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_screens="""
        import pytest

        @pytest.mark.parametrize("tab", ["Login", "List", "Big", "Login"])
        def test_tab(compose_fixture, screen, tab):
            compose_fixture(tab=tab)
            screen.assert_snapshot("tab-login")
    """)
    baseline = pytester.runpytest(*ISOLATED, "--android-serial", "virtual", "--android-update-snapshots",
                                             "-k", "Login0")
    baseline.assert_outcomes(passed=1)
    result = pytester.runpytest_subprocess(*ISOLATED, "-n", "2", "--android-serial", "virtual")
    result.assert_outcomes(passed=2, failed=2)
    diffs = sorted(p.parent.name for p in (pytester.path / ".mobile-agent" / "artifacts").glob("*/tab-login-diff.png"))
    assert diffs == ["test_screens.py_test_tab_Big", "test_screens.py_test_tab_List"]
