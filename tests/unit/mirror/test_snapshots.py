"""The snapshot comparison (mirror/snapshots.py), on pixels: the anti-aliasing tolerance, masks, the
refused arguments, the focused field's caret, and how many screenshots a still screen takes. The
`assert_snapshot` fixture on the virtual device is tested in tests/unit/plugin/test_snapshots.py."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_mobile_agent.errors import InvalidArgument
from pytest_mobile_agent.mirror import snapshots
from pytest_mobile_agent.mirror.replica import View
from tests.support.mirror_fakes import login_screen, view_of


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
