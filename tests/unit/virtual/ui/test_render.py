"""The virtual renderer's pixels: a password field shows one round dot per typed character, never
the font's missing-glyph box (Pillow's built-in Aileron font has no U+2022)."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops

from pytest_mobile_agent.virtual.ui import EmulatorUi
from tests.support.ui_nodes import by_res, composed_on

INK = 128  # a pixel darker than this is drawn text, not the field's white


@pytest.fixture
def ui() -> EmulatorUi:
    return composed_on("Login")


def glyphs(image: Image.Image) -> list[tuple[int, int, int, int]]:
    """The bounding boxes of the dark shapes in `image`, left to right (split at blank columns)."""
    gray = image.convert("L")
    width, height = gray.size
    dark_columns = [any(gray.getpixel((x, y)) < INK for y in range(height)) for x in range(width)]
    boxes, start = [], None
    for x, dark in enumerate([*dark_columns, False]):
        if dark and start is None:
            start = x
        elif not dark and start is not None:
            rows = [y for y in range(height) if any(gray.getpixel((c, y)) < INK for c in range(start, x))]
            boxes.append((start, rows[0], x - 1, rows[-1]))
            start = None
    return boxes


def test_a_password_field_draws_each_character_as_a_filled_round_dot(ui: EmulatorUi) -> None:
    field = by_res(ui, "password")
    ui.set_text(field, "abc")
    left, top, right, bottom = field.bounds
    inside = ui.render().crop((left + 10, top + 10, right - 10, bottom - 10))  # within the outline
    dots = glyphs(inside)
    assert len(dots) == 3, dots
    gray = inside.convert("L")
    for x0, y0, x1, y1 in dots:
        width, height = x1 - x0 + 1, y1 - y0 + 1
        assert abs(width - height) <= 2, f"a dot is round, not a {width}x{height} box"
        assert gray.getpixel(((x0 + x1) // 2, (y0 + y1) // 2)) < INK, "a dot is filled, not an outline"


def test_a_half_visible_list_row_is_clipped_at_its_full_size_not_drawn_in_a_smaller_font() -> None:
    """Issue 41 item 13: a row half scrolled out of the List was drawn in a tiny font squeezed into
    its visible half; Android draws it whole under the list's clip."""
    ui = composed_on("List")
    scroller = ui.app.list
    assert scroller is not None
    row = by_res(ui, "item_2")
    left, top, right, bottom = row.bounds
    height = bottom - top
    whole = ui.render().crop((left, top + height // 2, right, bottom))  # Item 2's lower half, all in view
    scroller.scroll_to(scroller.offset() + height * 1.5)  # Item 2 now half above the list's top
    half = by_res(ui, "item_2")
    assert half.bounds[3] - half.bounds[1] == height - height // 2, "the tree has the visible part only"
    clipped = ui.render().crop(half.bounds)
    assert clipped.size == whole.size
    assert ImageChops.difference(clipped, whole).getbbox() is None, "the same pixels as the row's lower half"
    assert glyphs(clipped), "the text's lower half shows"
