"""Visual snapshots: `screen.assert_snapshot(name)` compares the screen (or an element's bounds) with a
baseline PNG, pixel by pixel with numpy, never by bytes.

* The screen is taken from the agent (full resolution, the same on every path) once it is still:
  with the emulator's frames, one screenshot taken after the frames went quiet (`Mirror.settle`) and
  before they changed again (`Mirror.last_change`); without frames, or when they changed meanwhile,
  screenshots until two in a row are the same, masks applied: an animation still running is not
  compared (issue 41, item 16: a still screen compares in a fraction of a second, not 2.4-3.6 s).
* Masked by default: the status bar (its clock, its icons); `mask=` adds elements, or criteria whose
  every match is masked (`mask=[{"id": "avatar"}, screen.find(text="Today")]`); `default_masks=False`
  masks only those. The caret of the focused text field blinks (Editor's 500 ms blink): only its few
  pixels are let off, never the field (issue 41, item 2: what was typed is compared). In a focused
  editable field, differing pixels that form at most CARET_STRIPS thin vertical bars (each at most
  CARET_WIDTH_DP wide), a caret on in one image and off in the other, or at two places, do not count.
  A single glyph as thin as a caret ("l", "|") typed into an empty field reads as one too.
* A pixel differs when its colour differs by more than COLOUR_TOLERANCE in some channel from every
  pixel of the other image within one pixel of it, both ways (anti-aliased edges that moved by a
  pixel do not count, as pixelmatch's anti-aliasing detection intends); only the pixels that differ
  where they are are looked at around (an equal pixel is within one pixel of itself); the snapshot
  matches while the differing share of pixels is at most `threshold`.
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
STILL_QUIET = 0.1
"""With frames: how long they must have stayed the same before the one screenshot is taken."""
FRAME_IN_FLIGHT = 0.05
"""After the screenshot, how long a frame drawn meanwhile has to arrive and say the screen moved."""
CARET_WIDTH_DP = 3.0
"""The widest bar that reads as a caret: Android's text cursor is 2 dp wide (text_cursor_material)."""
CARET_STRIPS = 2
"""A caret in each image, at two places (the text before it differs, so its pixels differ too)."""
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
    """The status bar's window (its clock and icons). The focused field is compared: only its caret
    is let off (`caret_fields`)."""
    masks: list[Bounds] = [
        w.bounds
        for w in view.windows
        if w.metadata.owner == "com.android.systemui" and (w.title or "").lower() == "statusbar"
    ]
    masks.extend(e.node.bounds for e in view.entries if e.node.res and e.node.res.endswith("status_bar"))
    return masks


@dataclass(frozen=True)
class Carets:
    """Where a caret may blink (the focused editable fields' bounds, the screen's coordinates) and the
    widest bar that reads as one, in pixels."""

    fields: tuple[Bounds, ...] = ()
    width: int = 8

    @classmethod
    def of(cls, view: View) -> Carets:
        density = view.snapshot.display.density or 160
        fields = tuple(e.node.bounds for e in view.entries if e.node.focused and e.node.editable)
        return cls(fields, max(2, round(CARET_WIDTH_DP * density / 160)))

    def let_off(self, differs: np.ndarray, origin: tuple[int, int] = (0, 0)) -> np.ndarray:
        """`differs` less the pixels of each field where they are only a caret's: at most
        CARET_STRIPS runs of differing columns, each at most `width` wide."""
        if not self.fields or not differs.any():
            return differs
        out = differs.copy()
        height, width = out.shape[:2]
        for left, top, right, bottom in self.fields:
            x0, y0 = max(0, left - origin[0]), max(0, top - origin[1])
            x1, y1 = min(width, right - origin[0]), min(height, bottom - origin[1])
            if x0 >= x1 or y0 >= y1:
                continue
            region = out[y0:y1, x0:x1]
            if region.any() and _caret_only(region.any(axis=0), self.width):
                region[...] = False
        return np.asarray(out)


def _caret_only(columns: np.ndarray, widest: int) -> bool:
    """Whether the differing columns of a field form at most CARET_STRIPS runs, none wider than `widest`."""
    padded = np.concatenate(([False], columns, [False])).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    starts, ends = edges[0::2], edges[1::2]
    return len(starts) <= CARET_STRIPS and bool(((ends - starts) <= widest).all())


def masked(image: np.ndarray, masks: Sequence[Bounds], origin: tuple[int, int] = (0, 0)) -> np.ndarray:
    """The image with each mask (physical pixels, the screen's coordinates) painted grey."""
    out = image.copy()
    height, width = out.shape[:2]
    for left, top, right, bottom in masks:
        x0, y0 = max(0, left - origin[0]), max(0, top - origin[1])
        x1, y1 = min(width, right - origin[0]), min(height, bottom - origin[1])
        if x0 < x1 and y0 < y1:
            out[y0:y1, x0:x1] = MASK_GREY
    return np.asarray(out)


def compare(expected: np.ndarray, actual: np.ndarray, tolerance: int = COLOUR_TOLERANCE,
            carets: Carets | None = None, origin: tuple[int, int] = (0, 0)) -> Comparison:
    """Pixels of either image that differ beyond `tolerance` from every pixel within one pixel of them
    in the other, less a caret's (`carets`, its fields placed by `origin`); the diff image shows them
    red on the dimmed actual."""
    if expected.shape != actual.shape:
        diff = np.full(actual.shape, 255, dtype=np.uint8)
        diff[..., 1:] = 0
        return Comparison(actual.shape[0] * actual.shape[1], actual.shape[0] * actual.shape[1], diff)
    differs = differing(expected, actual, tolerance)
    if carets is not None:
        differs = carets.let_off(differs, origin)
    diff = (actual.astype(np.uint16) // 3 + 170).astype(np.uint8)
    diff[differs] = (255, 0, 0)
    return Comparison(int(differs.sum()), differs.size, diff)


def differing(one: np.ndarray, other: np.ndarray, tolerance: int = COLOUR_TOLERANCE) -> np.ndarray:
    """Where either image differs beyond `tolerance` from every pixel of the other within one pixel.
    Only the pixels that differ where they are are looked at around: an equal pixel is within one
    pixel of itself, so a still screen costs one pass."""
    if np.array_equal(one, other):
        return np.zeros(one.shape[:2], dtype=bool)
    here = np.abs(one.astype(np.int16) - other.astype(np.int16)).max(axis=2) > tolerance
    ys, xs = np.nonzero(here)
    out = np.zeros(one.shape[:2], dtype=bool)
    if len(ys):
        beyond = _beyond_neighbours(one, other, ys, xs, tolerance) | _beyond_neighbours(other, one, ys, xs, tolerance)
        out[ys[beyond], xs[beyond]] = True
    return out


def _beyond_neighbours(one: np.ndarray, other: np.ndarray, ys: np.ndarray, xs: np.ndarray,
                       tolerance: int) -> np.ndarray:
    """For the pixels (ys, xs): whether `one`'s differs from all of `other`'s within one pixel (edge
    pixels repeated)."""
    height, width = one.shape[:2]
    base = one[ys, xs].astype(np.int16)
    beyond = np.ones(len(ys), dtype=bool)
    for dy in (-1, 0, 1):
        ny = np.clip(ys + dy, 0, height - 1)
        for dx in (-1, 0, 1):
            nx = np.clip(xs + dx, 0, width - 1)
            beyond &= np.abs(base - other[ny, nx].astype(np.int16)).max(axis=1) > tolerance
    return beyond


def decode_png(data: bytes) -> np.ndarray:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB"))


def encode_png(pixels: np.ndarray, compress_level: int = 6) -> bytes:
    """A PNG of the pixels; `compress_level` 1 for a mismatch's images (zlib's fastest, a quarter of
    the time at 1080x2400), Pillow's default 6 for a baseline, written once and committed."""
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG", compress_level=compress_level)
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
    carets = Carets.of(view)
    region = element.bounds if element is not None else None
    actual = still_screen(host, masks, region, timeout, carets)
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
    result = compare(expected, actual, carets=carets, origin=_origin(region))
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


def still_screen(host: Any, masks: Sequence[Bounds], region: Bounds | None, timeout: float,
                 carets: Carets | None = None) -> np.ndarray:
    """The screen once it is still, masks applied. With frames (`host.last_change()` is not None): the
    frames quiet for STILL_QUIET (`host.settle`), then one screenshot, kept when no frame changed
    while it was taken; else (or when one did) `stable_screen`."""
    import time

    deadline = time.monotonic() + timeout
    if host.last_change() is not None:
        host.settle(timeout=timeout, quiet=STILL_QUIET)
        before = host.last_change()
        data = host.screenshot_png()
        if before is not None and host.last_change(wait=FRAME_IN_FLIGHT) == before:
            pixels, origin = crop(decode_png(data), region)
            return masked(pixels, masks, origin)
    return stable_screen(host.screenshot_png, masks, region, max(0.0, deadline - time.monotonic()), carets)


def stable_screen(
    take: Callable[[], bytes], masks: Sequence[Bounds], region: Bounds | None, timeout: float,
    carets: Carets | None = None,
) -> np.ndarray:
    """Screenshots until two in a row are the same (masks applied, a blinking caret let off);
    MobileAgentError past `timeout`."""
    import time

    deadline = time.monotonic() + timeout
    previous: np.ndarray | None = None
    while True:
        pixels, origin = crop(decode_png(take()), region)
        current = masked(pixels, masks, origin)
        if previous is not None and previous.shape == current.shape and _same_but_a_caret(previous, current, carets,
                                                                                            origin):
            return current
        if time.monotonic() > deadline:
            raise MobileAgentError(
                f"the screen did not hold still for two screenshots in {timeout:g} s",
                advice="mask what keeps moving (mask=[...]) or wait for it to settle first",
            )
        previous = current


def _same_but_a_caret(one: np.ndarray, other: np.ndarray, carets: Carets | None, origin: tuple[int, int]) -> bool:
    if np.array_equal(one, other):
        return True
    if carets is None or not carets.fields:
        return False
    exact = np.any(one != other, axis=2)
    return not carets.let_off(exact, origin).any()


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
        write_atomically(images[key], encode_png(pixels, compress_level=1))
    return images
