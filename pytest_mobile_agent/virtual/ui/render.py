"""Pixels of the UI model with Pillow: what screenshots, screencap and the controller's frames show.

Windows are drawn bottom-most first, each from a per-window image cached until the window changes
(the Big tab's 500 cells are drawn once per composition, not once per frame). A modal window dims
what lies under it. The status bar clock shows seconds, so the top of the screen changes every
second as on a real device's frames (the tree's clock text shows minutes).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from PIL import Image, ImageDraw, ImageFont

from pytest_mobile_agent.virtual.ui.clock import Clock
from pytest_mobile_agent.virtual.ui.geometry import Geometry
from pytest_mobile_agent.virtual.ui.node import Node, Window

BACKGROUND = (250, 250, 252)
BAR = (32, 33, 36)
BAR_TEXT = (240, 240, 240)
ACCENT = (60, 90, 200)
TEXT = (30, 30, 30)
HINT = (73, 69, 79)  # Material 3's onSurfaceVariant, what its text fields draw a hint in
OUTLINE = (110, 106, 116)  # an unfocused outlined field's border: 5.1:1 on the background
CELL = (226, 232, 246)
CELL_SELECTED = (120, 160, 240)
KEYBOARD = (214, 218, 224)
KEY = (250, 250, 250)

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


class Animation(Protocol):
    """What is drawn afresh over its window's cached pixels on every frame (the Loading screen's
    spinner)."""

    window: Window

    def draw(self, image: Image.Image) -> None: ...


class Screen(Protocol):
    """What a frame is drawn from: the UI model (virtual/ui/model.py)."""

    geo: Geometry
    clock: Clock
    render_cache: dict[tuple[int, int, int], Image.Image]
    animations: list[Animation]
    status_bar: Window
    nav_bar: Window
    keyboard: Window
    font_scale: Callable[[], float]

    def stacked_windows(self) -> list[Window]:
        """The windows top-most first, as they are (the caller holds the model's lock)."""
        ...


@lru_cache(maxsize=16)
def font(size: int) -> Font:
    return ImageFont.load_default(size=size)


def render(model: Screen, width: int | None = None, height: int | None = None) -> Image.Image:
    geo = model.geo
    image = Image.new("RGB", (geo.width, geo.height), BACKGROUND)
    windows = list(reversed(model.stacked_windows()))  # bottom-most first
    scale = model.font_scale()
    _cache: dict[tuple[int, int, int], Image.Image] = model.render_cache
    live = set()
    for w in windows:
        if w.modal:
            image = Image.eval(image, lambda v: v * 6 // 10)
        # a window drawn at another font scale is another picture (the status bar's: its clock's second)
        key = (w.id, w.version, int(model.clock.wall()) if w is model.status_bar else round(scale * 1000) - 1000)
        live.add(key)
        layer = _cache.get(key)
        if layer is None:
            layer = _draw_window(model, w, scale)
            _cache[key] = layer
        image.paste(layer, (w.bounds[0], w.bounds[1]))
        for animation in model.animations:
            if animation.window is w:
                animation.draw(image)
    for key in [k for k in _cache if k not in live and k[0] in {w.id for w in windows}]:
        del _cache[key]
    if len(_cache) > 64:
        for key in [k for k in _cache if k not in live]:
            del _cache[key]
    if (width and width != geo.width) or (height and height != geo.height):
        w_out = width or round(geo.width * (height or geo.height) / geo.height)
        h_out = height or round(geo.height * w_out / geo.width)
        image = image.resize((w_out, h_out), Image.Resampling.BILINEAR)
    return image


def _draw_window(model: Screen, w: Window, scale: float = 1.0) -> Image.Image:
    left, top, right, bottom = w.bounds
    if w is model.status_bar:
        return _status_bar(model, w)
    fill = BAR if w is model.nav_bar else KEYBOARD if w is model.keyboard else BACKGROUND
    image = Image.new("RGB", (right - left, bottom - top), fill)
    draw = ImageDraw.Draw(image)
    if w.modal:
        draw.rectangle((0, 0, right - left - 1, bottom - top - 1), outline=(180, 180, 190), width=3)
    for node in w.nodes():
        if not node.visible:
            continue
        if node.layout_bounds is not None and node.layout_bounds != node.bounds:
            _draw_clipped(image, node, left, top, w is model.nav_bar, scale)
        else:
            _draw_node(draw, node, left, top, w is model.nav_bar, scale=scale)
    return image


def _draw_clipped(image: Image.Image, node: Node, ox: int, oy: int, dark: bool, scale: float = 1.0) -> None:
    """A node its parent shows only in part (a list row half scrolled out): drawn at its laid-out
    size and clipped to its visible bounds, as View.draw runs under the parent's clip rectangle
    (frameworks/base core/java/android/view/View.java, ViewGroup.drawChild; Compose's
    LazyColumn clips to its bounds the same way), never squeezed into the visible part."""
    lx, ly, lr, lb = node.layout_bounds or node.bounds
    if lr <= lx or lb <= ly:
        return
    whole = Image.new("RGB", (lr - lx, lb - ly), BACKGROUND)
    _draw_node(ImageDraw.Draw(whole), node, lx, ly, dark, (lx, ly, lr, lb), scale=scale)
    vx, vy, vr, vb = node.bounds
    if vr <= vx or vb <= vy:
        return
    image.paste(whole.crop((vx - lx, vy - ly, vr - lx, vb - ly)), (vx - ox, vy - oy))


def _status_bar(model: Screen, w: Window) -> Image.Image:
    left, top, right, bottom = w.bounds
    image = Image.new("RGB", (right - left, bottom - top), BAR)
    draw = ImageDraw.Draw(image)
    clock = time.strftime("%H:%M:%S", time.gmtime(model.clock.wall()))
    draw.text((42, (bottom - top) // 2), clock, fill=BAR_TEXT, font=font(40), anchor="lm")
    for node in w.root.children[2:]:  # the system icons, each in its own shape
        slot = (node.res or "").rsplit("/", 1)[-1]
        _status_icon(draw, slot, (node.bounds[0] - left + 15, 24, node.bounds[2] - left - 15, bottom - top - 24))
    return image


def _status_icon(draw: ImageDraw.ImageDraw, slot: str, box: tuple[int, int, int, int]) -> None:
    """SystemUI's icon shapes, simplified: Wi-Fi's fan, the mobile signal's triangle, the battery's
    body and cap, airplane mode's plane (a fuselage, wings and tail)."""
    x0, y0, x1, y1 = box
    mid = (x0 + x1) // 2
    if slot == "wifi_signal":
        draw.pieslice((x0 - 6, y0, x1 + 6, y1 + (y1 - y0)), 225, 315, fill=BAR_TEXT)
    elif slot == "mobile_signal":
        draw.polygon([(x0, y1), (x1, y1), (x1, y0)], fill=BAR_TEXT)
    elif slot == "battery":
        draw.rectangle((x0 + 8, y0 + 4, x1 - 8, y1), fill=BAR_TEXT)
        draw.rectangle((mid - 5, y0, mid + 5, y0 + 4), fill=BAR_TEXT)
    elif slot == "airplane":
        third = (y1 - y0) // 3
        draw.rectangle((mid - 3, y0, mid + 3, y1), fill=BAR_TEXT)
        draw.polygon([(x0, y0 + 2 * third), (mid, y0 + third), (x1, y0 + 2 * third)], fill=BAR_TEXT)
        draw.line((mid - 9, y1, mid + 9, y1), fill=BAR_TEXT, width=4)


def _draw_node(draw: ImageDraw.ImageDraw, node: Node, ox: int, oy: int, dark: bool,
               bounds: tuple[int, int, int, int] | None = None, *, scale: float = 1.0) -> None:
    """`scale` is the font scale: text is drawn at its size times it (TextView and Compose's Text
    size text in sp, which TypedValue.applyDimension multiplies by Configuration.fontScale:
    frameworks/base core/java/android/util/TypedValue.java), in the node's laid-out bounds, which
    the double does not grow with it (a node of fixed height is what a raised scale cuts off).
    Android 14's nonlinear scaling of large text (FontScaleConverter) is not modelled."""
    text = TextPen(scale, node.text_size)
    x0, t, r, b = bounds or node.bounds
    box = (x0 - ox, t - oy, r - ox - 1, b - oy - 1)
    if box[2] <= box[0] or box[3] <= box[1]:
        return
    cls = node.cls
    h = b - t
    if node.colour is not None and cls in ("android.widget.ImageButton", "android.widget.ImageView"):
        _glyph(draw, box, node.colour)
    elif cls.endswith("Button"):
        draw.rounded_rectangle(box, radius=min(40, h // 2), fill=ACCENT)
        text(draw, box, node.text or "", (255, 255, 255), h, center=True)
    elif cls.endswith("EditText"):
        if node.colour is None or node.focused:  # a field drawn in a colour of its own is borderless
            outline = ACCENT if node.focused else OUTLINE
            draw.rounded_rectangle(box, radius=12, outline=outline, width=4 if node.focused else 2)
        shown = node.shown_text()
        if node.password and shown:
            _dots(draw, (box[0] + 30, box[1], box[2], box[3]), len(shown), h)
        elif shown:
            text(draw, (box[0] + 30, box[1], box[2], box[3]), shown, TEXT, h)
        else:
            text(draw, (box[0] + 30, box[1], box[2], box[3]), node.hint or "", node.colour or HINT, h)
    elif cls.endswith("Switch"):
        draw.rounded_rectangle(box, radius=h // 2, fill=ACCENT if node.checked else (190, 190, 196))
        knob = box[2] - h + 6 if node.checked else box[0] + 6
        draw.ellipse((knob, box[1] + 6, knob + h - 12, box[3] - 6), fill=(255, 255, 255))
    elif node.res and node.res.startswith("cell_"):
        draw.rectangle(box, fill=CELL_SELECTED if node.selected else CELL, outline=(255, 255, 255))
        text(draw, box, node.text or "", TEXT, h, center=True)
    elif node.res and node.res.startswith("tab_") and node.text:
        if node.selected:
            draw.rectangle((box[0], box[3] - 8, box[2], box[3]), fill=ACCENT)
        text(draw, box, node.text, ACCENT if node.selected else TEXT, h, center=True)
    elif node.res and node.res.startswith("item_"):
        draw.line((box[0], box[3], box[2], box[3]), fill=(220, 220, 225), width=2)
        if node.selected:
            draw.rectangle(box, fill=CELL)
        text(draw, (box[0] + 50, box[1], box[2], box[3]), node.text or "", TEXT, min(h, 147))
    elif node.clickable and (node.text or node.desc):
        label = node.text or node.desc or ""
        if dark:
            text(draw, box, {"Back": "<", "Home": "O", "Overview": "[]"}.get(label, label), BAR_TEXT, h,
                  center=True)
        else:
            draw.rounded_rectangle((box[0] + 6, box[1] + 8, box[2] - 6, box[3] - 8), radius=12,
                                   fill=CELL_SELECTED if node.checked else KEY)
            text(draw, box, label, TEXT, h, center=True)
    elif node.text:
        text(draw, box, node.text, TEXT, h)


def _glyph(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], colour: tuple[int, int, int]) -> None:
    """An icon: a ring with a bar across, in `colour`, inside the node's bounds (an icon's
    drawable, whose pixels the accessibility audit's image contrast measures)."""
    x0, y0, x1, y1 = box
    inset = max(2, (x1 - x0) // 6)
    draw.ellipse((x0 + inset, y0 + inset, x1 - inset, y1 - inset), outline=colour, width=max(3, inset // 2))
    mid = (y0 + y1) // 2
    draw.rectangle((x0 + 2 * inset, mid - inset // 3, x1 - 2 * inset, mid + inset // 3), fill=colour)


def _dots(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], count: int, height: int) -> None:
    """A password's dots (PasswordTransformationMethod's U+2022, one per character) drawn as filled
    circles: Pillow's built-in font has no glyph for U+2022 and would draw its missing-glyph box."""
    size = max(12, min(44, int(height * 0.55)))
    diameter = max(4, size * 2 // 5)
    pitch = diameter + max(3, diameter // 2)
    count = min(count, max(1, (box[2] - box[0] - 16) // pitch))  # what fits, as a single-line field scrolls
    top = (box[1] + box[3]) // 2 - diameter // 2
    for i in range(count):
        left = box[0] + 8 + i * pitch
        draw.ellipse((left, top, left + diameter - 1, top + diameter - 1), fill=TEXT)


@dataclass(frozen=True)
class TextPen:
    """The text a node draws: at the font scale, at its own size where the app set one
    (`Node.text_size`), else sized to its box."""

    scale: float
    size: int | None

    def __call__(self, draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], text: str,
                 fill: tuple[int, int, int], height: int, *, center: bool = False) -> None:
        _text(draw, box, text, fill, height, center=center, scale=self.scale, size=self.size)


def _text(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], text: str, fill: tuple[int, int, int],
          height: int, *, center: bool = False, scale: float = 1.0, size: int | None = None) -> None:
    if not text:
        return
    size = round((size if size is not None else max(12, min(44, int(height * 0.55)))) * scale)
    f = font(size)
    while size > 12 and draw.textlength(text, font=f) > box[2] - box[0] - 8:
        size -= 2
        f = font(size)
    mid_y = (box[1] + box[3]) // 2
    if center:
        draw.text(((box[0] + box[2]) // 2, mid_y), text, fill=fill, font=f, anchor="mm")
    else:
        draw.text((box[0] + 8, mid_y), text, fill=fill, font=f, anchor="lm")
