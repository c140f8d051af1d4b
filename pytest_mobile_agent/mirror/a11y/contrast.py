"""Colour contrast from a screenshot's pixels, as ATF measures it.

`swatch(image)` separates an element's pixels into a background and a foreground colour exactly as
ATF's ContrastSwatch does by default (utils/contrast/ContrastSwatch.java,
`separateColorsUsingSingleForegroundMethod`): a histogram of the colours, the plain (unweighted)
average of their luminances, the most frequent colour above that average and the most frequent
below it; the more frequent of the two is the background. The luminance and the ratio are WCAG's,
as ContrastUtils.calculateLuminance and calculateContrastRatio compute them, the ratio rounded to
two decimals as ContrastSwatch.getContrastRatios does.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import xxhash
from PIL import Image

Rgb = tuple[int, int, int]

NORMAL_TEXT_RATIO = 4.5
"""ContrastUtils.CONTRAST_RATIO_WCAG_NORMAL_TEXT."""
LARGE_TEXT_RATIO = 3.0
"""ContrastUtils.CONTRAST_RATIO_WCAG_LARGE_TEXT, also what ImageContrastCheck asks of an image."""
TOLERANCE = 0.01
"""TextContrastCheck.CONTRAST_TOLERANCE: how far a ratio may fall below its bar."""


@lru_cache(maxsize=4096)
def luminance(colour: Rgb) -> float:
    """WCAG relative luminance (ContrastUtils.calculateLuminance)."""
    r, g, b = (_linear(c) for c in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _linear(component: int) -> float:
    srgb = component / 255.0
    return srgb / 12.92 if srgb <= 0.03928 else ((srgb + 0.055) / 1.055) ** 2.4


def ratio(first: Rgb, second: Rgb) -> float:
    """The WCAG contrast ratio of two colours, 1.0 to 21.0 (ContrastUtils.calculateContrastRatio)."""
    a, b = luminance(first), luminance(second)
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


@dataclass(frozen=True, slots=True)
class Swatch:
    """An element's background and foreground colours and their ratio (two decimals, as
    ContrastSwatch.getContrastRatios rounds it)."""

    background: Rgb
    foreground: Rgb
    ratio: float
    edge: str | None = None
    """`top` or `bottom` when something drawn on the background (not a line across the crop: a
    border, an underline) touches that edge row: text cut off there (rules.text_clipped)."""

    @classmethod
    def of(cls, background: Rgb, foreground: Rgb, edge: str | None = None) -> Swatch:
        return cls(background, foreground, round(ratio(background, foreground) * 100.0) / 100.0, edge)

    @property
    def uniform(self) -> bool:
        """One colour only: nothing drawn on the background (RESULT_ID_SCREENCAPTURE_UNIFORM_COLOR)."""
        return self.background == self.foreground


_LINEAR = np.array([_linear(c) for c in range(256)])
_LUM_R, _LUM_G, _LUM_B = 0.2126 * _LINEAR, 0.7152 * _LINEAR, 0.0722 * _LINEAR


def pixels_of(image: Image.Image) -> np.ndarray:
    """An RGB image as a height x width x 3 array of bytes (what `swatch` crops)."""
    return np.asarray(image.convert("RGB") if image.mode != "RGB" else image)


def swatch(crop: np.ndarray) -> Swatch | None:
    """The swatch of `crop` (an element's part of the screenshot, height x width x 3 bytes); None
    when it has no pixels.

    ATF's histogram is keyed by the packed colour in ascending order, and its `>` keeps the first of
    equally frequent colours: `np.unique` sorts the same way and `argmax` keeps the first."""
    if crop.size == 0:
        return None
    packed = (crop[..., 0].astype(np.uint32) << 16) | (crop[..., 1].astype(np.uint32) << 8) | crop[..., 2]
    colours, counts = np.unique(packed, return_counts=True)
    if len(colours) == 1:
        only = _unpack(int(colours[0]))
        return Swatch.of(only, only)
    lum = _LUM_R[colours >> 16] + _LUM_G[(colours >> 8) & 0xFF] + _LUM_B[colours & 0xFF]
    below = lum < lum.mean()
    low_counts, high_counts = np.where(below, counts, 0), np.where(below, 0, counts)
    low, high = int(np.argmax(low_counts)), int(np.argmax(high_counts))
    low_colour, high_colour = _unpack(int(colours[low])), _unpack(int(colours[high]))
    if high_counts[high] > low_counts[low]:
        return Swatch.of(background=high_colour, foreground=low_colour, edge=_inked_edge(crop, high_colour))
    return Swatch.of(background=low_colour, foreground=high_colour, edge=_inked_edge(crop, low_colour))


INK_DIFFERENCE = 40
"""A pixel differing from the background by more than this in a channel is drawn on it (ink)."""
LINE_SHARE = 0.5
"""Ink across more than this share of an edge row is a line (a border, an underline), not glyphs."""


def _inked_edge(crop: np.ndarray, background: Rgb) -> str | None:
    """The edge row (top, then bottom) that glyphs touch: some ink on it, less than a line's."""
    if crop.shape[0] < 3:
        return None
    for name, row in (("top", crop[0]), ("bottom", crop[-1])):
        ink = (np.abs(row.astype(np.int16) - np.array(background, dtype=np.int16)).max(axis=1) > INK_DIFFERENCE)
        share = float(ink.mean())
        if 0.0 < share < LINE_SHARE:
            return name
    return None


def _unpack(packed: int) -> Rgb:
    return (packed >> 16) & 0xFF, (packed >> 8) & 0xFF, packed & 0xFF


class SwatchCache:
    """Swatches already measured, by the crop's bounds and the xxh3 digest of its pixels: an element
    whose pixels did not change since the last audit is not measured again (the per-step audit of
    `--android-a11y` on a screen of 500 texts measures only what a step changed)."""

    def __init__(self, limit: int = 8192) -> None:
        self._kept: dict[tuple[tuple[int, int, int, int], int], Swatch | None] = {}
        self._limit = limit

    def swatch(self, pixels: np.ndarray, bounds: tuple[int, int, int, int]) -> Swatch | None:
        left, top, right, bottom = bounds
        crop = pixels[top:bottom, left:right]
        key = (bounds, xxhash.xxh3_64_intdigest(np.ascontiguousarray(crop).data))
        if key in self._kept:
            return self._kept[key]
        if len(self._kept) >= self._limit:
            self._kept.clear()
        found = self._kept[key] = swatch(crop)
        return found


def hex_colour(colour: Rgb) -> str:
    """`#RRGGBB`, as ContrastUtils.colorToHexString names a colour in ATF's messages."""
    return "#{:02X}{:02X}{:02X}".format(*colour)
