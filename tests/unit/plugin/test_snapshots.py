"""Issue 24 item 5: visual snapshots on the virtual device: a baseline written, then matched; a changed
label caught with its diff image; the status bar's clock (it shows seconds) masked, so it never fails;
a mismatch under -n 2; and the comparison's anti-aliasing tolerance, on pixels."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_mobile_agent.errors import InvalidArgument
from pytest_mobile_agent.mirror import snapshots
from pytest_mobile_agent.mirror.replica import View
from tests.support.mirror_fakes import login_screen, view_of
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
    first = pytester.runpytest_subprocess(*ISOLATED, "--android-serial", "virtual", "-k", "test_login and not later "
                                          "and not error", "--android-update-snapshots")
    first.assert_outcomes(passed=1)
    baseline = pytester.path / "__snapshots__" / "test_screens" / PROFILE / "login.png"
    assert baseline.read_bytes().startswith(b"\x89PNG")
    result = pytester.runpytest_subprocess(*ISOLATED, "--android-serial", "virtual")
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
    result = pytester.runpytest_subprocess(*ISOLATED, "--android-serial", "virtual", "-k", "test_login and not later "
                                           "and not error")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*snapshot 'login' had no baseline: * is written from this run*"])
    again = pytester.runpytest_subprocess(*ISOLATED, "--android-serial", "virtual", "-k", "test_login and not later "
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
    result = pytester.runpytest_subprocess(*ISOLATED, "--android-serial", "virtual", "--android-update-snapshots")
    result.assert_outcomes(passed=1)
    result = pytester.runpytest_subprocess(*ISOLATED, "--android-serial", "virtual")
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
    baseline = pytester.runpytest_subprocess(*ISOLATED, "--android-serial", "virtual", "--android-update-snapshots",
                                             "-k", "Login0")
    baseline.assert_outcomes(passed=1)
    result = pytester.runpytest_subprocess(*ISOLATED, "-n", "2", "--android-serial", "virtual")
    result.assert_outcomes(passed=2, failed=2)
    diffs = sorted(p.parent.name for p in (pytester.path / ".mobile-agent" / "artifacts").glob("*/tab-login-diff.png"))
    assert diffs == ["test_screens.py_test_tab_Big", "test_screens.py_test_tab_List"]


def test_pixels_within_one_pixel_of_a_match_do_not_count() -> None:
    expected = np.zeros((20, 20, 3), dtype=np.uint8)
    expected[5:15, 10] = 255  # a vertical line
    shifted = np.zeros_like(expected)
    shifted[5:15, 11] = 255  # the same line one pixel to the right: anti-aliasing moved it
    assert snapshots.compare(expected, shifted).differing == 0
    moved = np.zeros_like(expected)
    moved[5:15, 14] = 255  # four pixels away: a real change
    assert snapshots.compare(expected, moved).differing == 20


def test_masks_paint_over_both_images() -> None:
    image = np.full((10, 10, 3), 200, dtype=np.uint8)
    painted = snapshots.masked(image, [(2, 3, 5, 6)])
    assert (painted[3:6, 2:5] == 128).all() and (painted[0, 0] == 200).all()
    assert (image == 200).all(), "the original is left as it was"


@pytest.mark.parametrize("name", ["", "../login", "a b", "x" * 101, 3])
def test_a_bad_name_is_refused_naming_the_argument(name: object) -> None:
    with pytest.raises(InvalidArgument, match="^name must be a file name"):
        snapshots.check_name(name)


@pytest.mark.parametrize("threshold", [-0.1, 1, True, "0.1"])
def test_a_bad_threshold_is_refused_naming_the_argument(threshold: object) -> None:
    with pytest.raises(InvalidArgument, match="^threshold is the share of pixels"):
        snapshots.check_threshold(threshold)


# --- issue 41: the caret only, and a still screen in one screenshot ------------------------------------


def _field_view(focused: bool = True) -> View:
    """The login form with its user name field [60,500][1020,640] focused."""
    screen = login_screen()
    screen["windows"][0]["nodes"][3]["focused"] = focused
    return view_of(*screen["windows"])


def _form(text_width: int = 0, caret_at: int | None = None) -> np.ndarray:
    """A white 1080x2400 screen whose field shows `text_width` pixels of black text from x 100 and a
    5-pixel caret at `caret_at` (None: the caret is in its off phase)."""
    image = np.full((2400, 1080, 3), 255, dtype=np.uint8)
    if text_width:
        image[540:600, 100:100 + text_width] = 0
    if caret_at is not None:
        image[530:610, caret_at:caret_at + 5] = (0, 90, 200)
    return image


def test_the_focused_field_is_compared_and_only_its_caret_is_let_off() -> None:
    """The whole focused field was masked, so a baseline of the empty form matched after typing."""
    view = _field_view()
    assert (60, 500, 1020, 640) not in snapshots.default_masks(view)
    carets = snapshots.Carets.of(view)
    empty_caret_on, empty_caret_off = _form(caret_at=100), _form()
    assert snapshots.compare(empty_caret_on, empty_caret_off, carets=carets).differing == 0  # the blink
    typed = _form(text_width=90, caret_at=195)  # "ada" and the caret after it
    result = snapshots.compare(empty_caret_on, typed, carets=carets)
    assert result.differing > 90 * 60 // 2
    assert snapshots.compare(empty_caret_on, _form(caret_at=400), carets=carets).differing == 0  # moved: two bars
    unfocused = snapshots.Carets.of(_field_view(focused=False))
    assert snapshots.compare(empty_caret_on, empty_caret_off, carets=unfocused).differing > 0


class StillHost:
    """A screen whose frames say when it last changed (None: no frames) and whose screenshots are
    counted."""

    def __init__(self, frames: bool, images: list[np.ndarray]) -> None:
        self.frames = frames
        self.images = images
        self.shots = 0
        self.settles: list[float] = []

    def last_change(self, wait: float = 0.0) -> float | None:
        return 10.0 if self.frames else None

    def settle(self, timeout: float, quiet: float) -> bool:
        self.settles.append(quiet)
        return True

    def screenshot_png(self) -> bytes:
        image = self.images[min(self.shots, len(self.images) - 1)]
        self.shots += 1
        return snapshots.encode_png(image, compress_level=1)


def test_with_frames_a_still_screen_takes_one_screenshot_and_without_them_two() -> None:
    """Two screenshots that agree took 2.4-3.6 s a snapshot; the frames already say the screen is still."""
    image = _form(text_width=90)
    host = StillHost(True, [image])
    assert np.array_equal(snapshots.still_screen(host, [], None, 5.0), image)
    assert host.shots == 1 and host.settles == [snapshots.STILL_QUIET]
    host = StillHost(False, [image])
    snapshots.still_screen(host, [], None, 5.0)
    assert host.shots == 2


def test_without_frames_a_blinking_caret_does_not_keep_the_screen_from_counting_as_still() -> None:
    host = StillHost(False, [_form(caret_at=100), _form(), _form(caret_at=100)])
    snapshots.still_screen(host, [], None, 5.0, snapshots.Carets.of(_field_view()))
    assert host.shots == 2
