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

from PIL import Image

Rgb = tuple[int, int, int]

NORMAL_TEXT_RATIO = 4.5
"""ContrastUtils.CONTRAST_RATIO_WCAG_NORMAL_TEXT."""
LARGE_TEXT_RATIO = 3.0
"""ContrastUtils.CONTRAST_RATIO_WCAG_LARGE_TEXT, also what ImageContrastCheck asks of an image."""
TOLERANCE = 0.01
"""TextContrastCheck.CONTRAST_TOLERANCE: how far a ratio may fall below its bar."""
MAX_COLOURS = 1 << 16
"""More distinct colours than this in one element (a photograph): no swatch, nothing to judge."""


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
    """An element's background and foreground colours and their ratio (two decimals)."""

    background: Rgb
    foreground: Rgb

    @property
    def ratio(self) -> float:
        return round(ratio(self.background, self.foreground) * 100.0) / 100.0

    @property
    def uniform(self) -> bool:
        """One colour only: nothing drawn on the background (RESULT_ID_SCREENCAPTURE_UNIFORM_COLOR)."""
        return self.background == self.foreground


def swatch(image: Image.Image) -> Swatch | None:
    """The swatch of `image` (an element's crop of the screenshot, RGB); None when it has no pixels
    or more than MAX_COLOURS colours."""
    found = image.getcolors(MAX_COLOURS)
    if not found:
        return None
    counted: list[tuple[int, Rgb]] = [(count, _rgb(colour)) for count, colour in found]
    if len(counted) == 1:
        only = counted[0][1]
        return Swatch(only, only)
    # ATF's histogram is keyed by the packed colour, in order: its ties go to the lowest
    counted.sort(key=lambda pair: pair[1])
    average = sum(luminance(colour) for _, colour in counted) / len(counted)
    low: Rgb | None = None
    high: Rgb | None = None
    low_count = high_count = 0
    for count, colour in counted:
        if luminance(colour) < average:
            if count > low_count:
                low, low_count = colour, count
        elif count > high_count:
            high, high_count = colour, count
    if low is None or high is None:  # cannot happen with two colours or more; kept for the types
        return None
    if high_count > low_count:
        return Swatch(background=high, foreground=low)
    return Swatch(background=low, foreground=high)


def _rgb(colour: object) -> Rgb:
    if not isinstance(colour, tuple) or len(colour) < 3:
        raise ValueError(f"an RGB image is needed for a contrast swatch, not a pixel {colour!r}")
    return (int(colour[0]), int(colour[1]), int(colour[2]))


def hex_colour(colour: Rgb) -> str:
    """`#RRGGBB`, as ContrastUtils.colorToHexString names a colour in ATF's messages."""
    return "#{:02X}{:02X}{:02X}".format(*colour)
