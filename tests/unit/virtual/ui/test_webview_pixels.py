"""The page's pixels put in the WebView's box (ui/webview.fitted): a shot a pixel or two off the box
keeps every pixel it has, cut or carried on at its last row and column, never resampled."""

from __future__ import annotations

from PIL import Image

from pytest_mobile_agent.virtual.ui.webview import fitted


def page(width: int, height: int) -> Image.Image:
    """Every pixel different from its neighbours, so a resampled pixel would show."""
    shot = Image.new("RGB", (width, height))
    shot.putdata([(x * 7 % 256, y * 11 % 256, (x * y) % 256) for y in range(height) for x in range(width)])
    return shot


def test_a_shot_of_the_boxs_size_is_the_shot() -> None:
    shot = page(30, 40)
    assert fitted(shot, (30, 40)) is shot


def test_a_shot_a_pixel_larger_is_cut_to_the_box_with_its_pixels_unchanged() -> None:
    shot = page(31, 41)
    box = fitted(shot, (30, 40))
    assert box.size == (30, 40)
    assert box.tobytes() == shot.crop((0, 0, 30, 40)).tobytes()


def test_a_shot_a_pixel_smaller_carries_its_last_column_and_row_on() -> None:
    shot = page(29, 39)
    box = fitted(shot, (31, 40))
    assert box.size == (31, 40)
    assert box.crop((0, 0, 29, 39)).tobytes() == shot.tobytes()
    for y in range(39):
        assert box.getpixel((29, y)) == box.getpixel((30, y)) == shot.getpixel((28, y))
    for x in range(31):
        assert box.getpixel((x, 39)) == box.getpixel((x, 38))


def test_a_shot_wider_and_shorter_is_cut_across_and_carried_down() -> None:
    shot = page(32, 38)
    box = fitted(shot, (30, 40))
    assert box.crop((0, 0, 30, 38)).tobytes() == shot.crop((0, 0, 30, 38)).tobytes()
    assert [box.getpixel((x, 39)) for x in range(30)] == [shot.getpixel((x, 37)) for x in range(30)]


def test_a_shot_far_off_the_box_is_scaled_to_it() -> None:
    shot = page(60, 80)
    box = fitted(shot, (30, 40))
    assert box.size == (30, 40)
    assert box.tobytes() != shot.crop((0, 0, 30, 40)).tobytes()
