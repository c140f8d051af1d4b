"""The contrast swatch as ATF's ContrastSwatch computes it (utils/contrast/ContrastSwatch.java): the
unweighted average luminance of the distinct colours, the most frequent colour on each side of it, the
more frequent of the two the background; the WCAG ratio rounded to two decimals."""

from __future__ import annotations

import numpy as np

from pytest_mobile_agent.mirror.a11y.contrast import SwatchCache, hex_colour, luminance, ratio, swatch


def crop(*runs: tuple[tuple[int, int, int], int]) -> np.ndarray:
    pixels = [colour for colour, count in runs for _ in range(count)]
    return np.array(pixels, dtype=np.uint8).reshape(1, len(pixels), 3)


def test_the_wcag_figures() -> None:
    assert ratio((0, 0, 0), (255, 255, 255)) == 21.0
    assert round(ratio((118, 118, 118), (255, 255, 255)), 2) == 4.54  # the grey that just passes 4.5:1
    assert luminance((255, 255, 255)) == 1.0 and hex_colour((180, 180, 186)) == "#B4B4BA"


def test_the_more_frequent_side_is_the_background_and_antialiasing_does_not_count_as_the_text() -> None:
    measured = swatch(crop(((250, 250, 252), 900), ((30, 30, 30), 60), ((140, 140, 141), 20), ((90, 90, 90), 20)))
    assert measured is not None
    assert (measured.background, measured.foreground) == ((250, 250, 252), (30, 30, 30))
    assert measured.ratio == round(ratio((250, 250, 252), (30, 30, 30)), 2)


def test_light_text_on_a_dark_background() -> None:
    measured = swatch(crop(((32, 33, 36), 700), ((240, 240, 240), 100)))
    assert measured is not None and (measured.background, measured.foreground) == ((32, 33, 36), (240, 240, 240))


def test_equally_frequent_colours_go_to_the_lowest_packed_one_as_in_atf() -> None:
    measured = swatch(crop(((10, 10, 10), 5), ((20, 20, 20), 5), ((250, 250, 250), 50)))
    assert measured is not None and measured.foreground == (10, 10, 10)


def test_one_colour_is_uniform_and_no_pixels_is_none() -> None:
    measured = swatch(crop(((250, 250, 252), 10)))
    assert measured is not None and measured.uniform
    assert swatch(np.zeros((0, 0, 3), dtype=np.uint8)) is None


def test_the_cache_measures_a_crop_again_only_when_its_pixels_changed() -> None:
    pixels = np.full((10, 10, 3), 250, dtype=np.uint8)
    pixels[2:4, 2:8] = 30
    cache = SwatchCache()
    first = cache.swatch(pixels, (0, 0, 10, 10))
    assert cache.swatch(pixels, (0, 0, 10, 10)) is first
    pixels[2:4, 2:8] = 200
    second = cache.swatch(pixels, (0, 0, 10, 10))
    assert second is not None and second is not first and second.foreground == (200, 200, 200)
