"""The virtual renderer's pixels: a password field shows one round dot per typed character, never
the font's missing-glyph box (Pillow's built-in Aileron font has no U+2022)."""

from __future__ import annotations

import pytest
from PIL import Image

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
