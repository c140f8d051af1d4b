"""Visual snapshots: `screen.assert_snapshot(name)` compares the screen (or an element's bounds) with a
baseline PNG, pixel by pixel with numpy, never by bytes.

* The screen is taken from the agent (full resolution, the same on every path) until two screenshots
  in a row are the same, masks applied: an animation still running is not compared.
* Masked by default: the status bar (its clock, its icons) and the focused text field (the caret
  blinks in it); `mask=` adds elements, or criteria whose every match is masked
  (`mask=[{"id": "avatar"}, screen.find(text="Today")]`); `default_masks=False` masks only those.
* A pixel differs when its colour differs by more than COLOUR_TOLERANCE in some channel from every
  pixel of the other image within one pixel of it, both ways (anti-aliased edges that moved by a
  pixel do not count, as pixelmatch's anti-aliasing detection intends); the snapshot matches while
  the differing share of pixels is at most `threshold`.
* A mismatch raises SnapshotMismatch with three images written beside the test's artifacts:
  expected, actual, and the diff (the actual dimmed, differing pixels red, masks grey).
* Baselines live under `SnapshotSettings.directory` (the plugin: `__snapshots__/<module>/<profile>/`
  beside the test module, the profile naming the display size, density and API level: one set per
  device profile). A missing baseline is written from this run and the assertion fails, so a new
  baseline is looked at before it is trusted; `update=True` (`--android-update-snapshots`) writes
  every baseline and passes.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from pytest_mobile_agent.errors import InvalidArgument, MobileAgentError, hide_our_frames

if TYPE_CHECKING:
    from pytest_mobile_agent.mirror.element import Element
    from pytest_mobile_agent.mirror.replica import View
    from pytest_mobile_agent.session.backends import Bounds

COLOUR_TOLERANCE = 24
"""Of 255, in any channel: JPEG-free PNGs of one build differ by none; a font's hinting by more."""
STABLE_TIMEOUT = 5.0
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
MASK_GREY = np.array([128, 128, 128], dtype=np.uint8)
__tracebackhide__ = hide_our_frames  # pytest reports our failures at the test's line, not in these frames


class SnapshotMismatch(MobileAgentError, AssertionError):
    """The screen does not match its baseline (or had none): `images` names the three PNGs."""

    def __init__(self, message: str, images: Mapping[str, Path], *, advice: str | None = None) -> None:
        super().__init__(message, advice=advice)
        self.images = dict(images)


@dataclass
class SnapshotSettings:
    """Where the baselines and a mismatch's images go; the plugin sets them per test."""

    directory: Path = field(default_factory=lambda: Path.cwd() / "__snapshots__")
    """The baselines' folder; each device profile has its own folder in it (`profile_of`)."""
    output: Callable[[], Path] = field(default_factory=lambda: lambda: Path.cwd())
    update: bool = False
    api_level: int | None = None


def profile_of(view: View, api_level: int | None) -> str:
    """`1080x2400-420dpi-api36`: the display's size and density (the override when set) and the API
    level, the facts that change how the same screen is drawn."""
    display = view.snapshot.display
    return f"{display.width}x{display.height}-{display.density}dpi" + (f"-api{api_level}" if api_level else "")


@dataclass(frozen=True)
class Comparison:
    differing: int
    total: int
    diff: np.ndarray

    @property
    def share(self) -> float:
        return self.differing / max(1, self.total)


def check_name(name: object) -> str:
    if not isinstance(name, str) or NAME.fullmatch(name) is None:
        raise InvalidArgument(
            f"name must be a file name of letters, digits, '.', '_' and '-' (at most 100), not {name!r}"
        )
    return name


def check_threshold(threshold: object) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold < 1:
        raise InvalidArgument(f"threshold is the share of pixels that may differ, from 0 to below 1, not {threshold!r}")
    return float(threshold)


def default_masks(view: View) -> list[Bounds]:
    """The status bar's window (its clock and icons) and the focused text field (the caret blinks)."""
    masks: list[Bounds] = [
        w.bounds
        for w in view.windows
        if w.metadata.owner == "com.android.systemui" and (w.title or "").lower() == "statusbar"
    ]
    masks.extend(e.node.bounds for e in view.entries if e.node.res and e.node.res.endswith("status_bar"))
    masks.extend(e.node.bounds for e in view.entries if e.node.focused and e.node.editable)
    return masks


def masked(image: np.ndarray, masks: Sequence[Bounds], origin: tuple[int, int] = (0, 0)) -> np.ndarray:
    """The image with each mask (physical pixels, the screen's coordinates) painted grey."""
    out = image.copy()
    height, width = out.shape[:2]
    for left, top, right, bottom in masks:
        x0, y0 = max(0, left - origin[0]), max(0, top - origin[1])
        x1, y1 = min(width, right - origin[0]), min(height, bottom - origin[1])
        if x0 < x1 and y0 < y1:
            out[y0:y1, x0:x1] = MASK_GREY
    return out


def compare(expected: np.ndarray, actual: np.ndarray, tolerance: int = COLOUR_TOLERANCE) -> Comparison:
    """Pixels of either image that differ beyond `tolerance` from every pixel within one pixel of them
    in the other; the diff image shows them red on the dimmed actual."""
    if expected.shape != actual.shape:
        diff = np.full(actual.shape, 255, dtype=np.uint8)
        diff[..., 1:] = 0
        return Comparison(actual.shape[0] * actual.shape[1], actual.shape[0] * actual.shape[1], diff)
    differs = _beyond_neighbours(expected, actual, tolerance) | _beyond_neighbours(actual, expected, tolerance)
    diff = (actual.astype(np.uint16) // 3 + 170).astype(np.uint8)
    diff[differs] = (255, 0, 0)
    return Comparison(int(differs.sum()), differs.size, diff)


def _beyond_neighbours(one: np.ndarray, other: np.ndarray, tolerance: int) -> np.ndarray:
    """Where `one` differs from all of `other`'s pixels within one pixel (edge pixels repeated)."""
    padded = np.pad(other.astype(np.int16), ((1, 1), (1, 1), (0, 0)), mode="edge")
    base = one.astype(np.int16)
    height, width = one.shape[:2]
    beyond = np.ones((height, width), dtype=bool)
    for dy in range(3):
        for dx in range(3):
            shifted = padded[dy : dy + height, dx : dx + width]
            beyond &= np.abs(base - shifted).max(axis=2) > tolerance
    return beyond


def decode_png(data: bytes) -> np.ndarray:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB"))


def encode_png(pixels: np.ndarray) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


def write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.partial")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def crop(pixels: np.ndarray, bounds: Bounds | None) -> tuple[np.ndarray, tuple[int, int]]:
    if bounds is None:
        return pixels, (0, 0)
    left, top, right, bottom = bounds
    return pixels[max(0, top) : bottom, max(0, left) : right], (max(0, left), max(0, top))


def mask_bounds(mask: Sequence[Any], find_all: Callable[..., list[Element]]) -> list[Bounds]:
    """Each mask's bounds: an element's own, or every match of a criteria mapping."""
    bounds: list[Bounds] = []
    for item in mask:
        if isinstance(item, Mapping):
            bounds.extend(element.bounds for element in find_all(**item))
        elif hasattr(item, "bounds") and hasattr(item, "ref"):
            bounds.append(item.bounds)
        else:
            raise InvalidArgument(
                f"mask takes elements and criteria mappings (such as {{'id': 'clock'}}), not {item!r}"
            )
    return bounds


def check_snapshot(
    host: Any,
    name: str,
    mask: Sequence[Any],
    threshold: float,
    element: Element | None,
    use_default_masks: bool,
    timeout: float = STABLE_TIMEOUT,
) -> None:
    """The flow behind `screen.assert_snapshot`: a still screen, masked, compared with its baseline."""
    check_name(name)
    check_threshold(threshold)
    settings: SnapshotSettings = host.snapshot_settings or SnapshotSettings()
    view = host.snapshot()
    masks = (default_masks(view) if use_default_masks else []) + mask_bounds(mask, host.find_all)
    region = element.bounds if element is not None else None
    actual = stable_screen(host.screenshot_png, masks, region, timeout)
    baseline = settings.directory / profile_of(view, settings.api_level) / f"{name}.png"
    if settings.update:
        write_atomically(baseline, encode_png(actual))
        return
    if not baseline.is_file():
        write_atomically(baseline, encode_png(actual))
        raise SnapshotMismatch(
            f"snapshot {name!r} had no baseline: {baseline} is written from this run",
            {"actual": baseline},
            advice="look at it, commit it, and run again (--android-update-snapshots writes every baseline)",
        )
    expected = decode_png(baseline.read_bytes())
    if expected.shape == actual.shape:
        expected = masked(expected, masks, _origin(region))
    result = compare(expected, actual)
    if result.share <= threshold and expected.shape == actual.shape:
        return
    images = _write_mismatch(settings.output(), name, expected, actual, result.diff)
    what = (
        f"{result.differing} of {result.total} pixels differ ({result.share:.3%}, threshold {threshold:.3%})"
        if expected.shape == actual.shape
        else f"the screen is {actual.shape[1]}x{actual.shape[0]}, the baseline {expected.shape[1]}x{expected.shape[0]}"
    )
    raise SnapshotMismatch(
        f"snapshot {name!r} does not match {baseline}: {what}; diff image {images['diff']}",
        images,
        advice="if the change is meant, run with --android-update-snapshots",
    )


def stable_screen(
    take: Callable[[], bytes], masks: Sequence[Bounds], region: Bounds | None, timeout: float
) -> np.ndarray:
    """Screenshots until two in a row are the same (masks applied); MobileAgentError past `timeout`."""
    import time

    deadline = time.monotonic() + timeout
    previous: np.ndarray | None = None
    while True:
        pixels, origin = crop(decode_png(take()), region)
        current = masked(pixels, masks, origin)
        if previous is not None and previous.shape == current.shape and np.array_equal(previous, current):
            return current
        if time.monotonic() > deadline:
            raise MobileAgentError(
                f"the screen did not hold still for two screenshots in {timeout:g} s",
                advice="mask what keeps moving (mask=[...]) or wait for it to settle first",
            )
        previous = current


def _origin(region: Bounds | None) -> tuple[int, int]:
    return (0, 0) if region is None else (max(0, region[0]), max(0, region[1]))


def _write_mismatch(
    directory: Path, name: str, expected: np.ndarray, actual: np.ndarray, diff: np.ndarray
) -> dict[str, Path]:
    images = {
        "expected": directory / f"{name}-expected.png",
        "actual": directory / f"{name}-actual.png",
        "diff": directory / f"{name}-diff.png",
    }
    for key, pixels in (("expected", expected), ("actual", actual), ("diff", diff)):
        write_atomically(images[key], encode_png(pixels))
    return images
