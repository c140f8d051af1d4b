"""The controller video's pictures (evidence/video.PictureConverter): the controller's RGB888 frame,
turned upright by the display's quarter turns, as the encoder's yuv420p picture of the stream's size,
with the frame's colours."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mobile_agent.emulator.frame import Frame
from pytest_mobile_agent.session.frames import upright

av = pytest.importorskip("av")
numpy = pytest.importorskip("numpy")

from pytest_mobile_agent.evidence.video import PictureConverter  # noqa: E402

RED, GREEN, BLUE, WHITE = (220, 30, 30), (30, 200, 60), (40, 60, 210), (250, 250, 250)


def quadrants(width: int, height: int) -> Any:
    """A frame's pixels in four colours: red top left, green top right, blue bottom left, white bottom right."""
    pixels = numpy.empty((height, width, 3), numpy.uint8)
    pixels[: height // 2, : width // 2] = RED
    pixels[: height // 2, width // 2:] = GREEN
    pixels[height // 2:, : width // 2] = BLUE
    pixels[height // 2:, width // 2:] = WHITE
    return pixels


def decoded(picture: Any) -> Any:
    assert picture.format.name == "yuv420p"
    return picture.to_ndarray(format="rgb24").astype(int)


@pytest.mark.parametrize("rotation", [0, 1, 2, 3])
def test_a_frame_becomes_the_same_picture_upright_as_a_screenshot_shows_it(rotation: int) -> None:
    width, height = (120, 64) if rotation % 2 else (64, 120)
    frame = Frame(width, height, quadrants(width, height).tobytes(), rotation=rotation)
    expected = numpy.asarray(upright(frame.width, frame.height, frame.data, frame.rotation)).astype(int)
    picture = PictureConverter(av, 64, 120).picture(frame)
    assert (picture.width, picture.height) == (64, 120)
    difference = numpy.abs(decoded(picture) - expected)
    # yuv420p halves the colour's resolution: only the pixels along the quadrants' edges may blur
    inner = difference[4:56, 4:28], difference[4:56, 36:60], difference[64:116, 4:28], difference[64:116, 36:60]
    assert all(part.max() <= 6 for part in inner), [int(part.max()) for part in inner]


def test_a_frame_of_another_size_is_scaled_to_the_streams() -> None:
    frame = Frame(32, 60, quadrants(32, 60).tobytes())
    picture = PictureConverter(av, 64, 120).picture(frame)
    assert (picture.width, picture.height) == (64, 120)
    pixels = decoded(picture)
    assert numpy.abs(pixels[20, 10] - RED).max() <= 6 and numpy.abs(pixels[100, 50] - WHITE).max() <= 6


def test_the_converter_leaves_the_frames_bytes_as_they_were() -> None:
    data = quadrants(64, 120).tobytes()
    frame = Frame(64, 120, data)
    converter = PictureConverter(av, 64, 120)
    first, second = converter.picture(frame), converter.picture(frame)
    assert frame.data == data and (decoded(first) == decoded(second)).all()
