"""emulator::frame::tests: top-down rows and the change detector that leaves the status bar out."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from pytest_mobile_agent.emulator import ChangeDetector, Frame, FrameHasher, status_bar_rows
from pytest_mobile_agent.emulator import frame as frame_module
from pytest_mobile_agent.emulator._proto import emulator_controller_pb2 as pb
from pytest_mobile_agent.errors import ProtocolError

W, H = 540, 1200


def pixels(width: int = W, height: int = H) -> np.ndarray:
    """A gradient frame, every row different, rows top-down."""
    rows = np.arange(height, dtype=np.uint16)[:, None, None]
    cols = np.arange(width, dtype=np.uint16)[None, :, None]
    data = np.concatenate([(rows % 256) + 0 * cols, (cols % 256) + 0 * rows, ((rows + cols) % 256)], axis=2)
    return data.astype(np.uint8)


def frame_of(array: np.ndarray, seq: int = 0) -> Frame:
    return Frame(width=array.shape[1], height=array.shape[0], data=array.tobytes(), seq=seq)


def test_rows_are_top_down() -> None:
    array = pixels()
    array[0, :, :] = (255, 0, 0)  # the top row red
    array[-1, :, :] = (0, 0, 255)  # the bottom row blue
    frame = frame_of(array)
    assert bytes(frame.row(0)) == bytes([255, 0, 0]) * W
    assert bytes(frame.row(H - 1)) == bytes([0, 0, 255]) * W
    assert frame.pixel(10, 0) == (255, 0, 0)
    assert frame.image().getpixel((10, 0)) == (255, 0, 0)
    with pytest.raises(IndexError):
        frame.row(H)


def test_the_status_bar_is_at_the_start_of_the_buffer() -> None:
    assert status_bar_rows(1200) == 72 and status_bar_rows(2400) == 144 and status_bar_rows(1000) == 60
    array = pixels()
    array[: status_bar_rows(H)] = 7
    frame = frame_of(array)
    bar = status_bar_rows(H) * frame.stride
    assert frame.data[:bar] == bytes([7]) * bar
    assert frame.data[bar : bar + 3] != bytes([7, 7, 7])


def test_a_change_in_the_status_bar_is_unchanged() -> None:
    detector = ChangeDetector()
    array = pixels()
    assert detector.changed(frame_of(array))
    for row in (0, 30, status_bar_rows(H) - 1):
        array[row, 100:200] = 255 - array[row, 100:200]  # the clock ticks
        assert not detector.changed(frame_of(array))


def test_one_changed_pixel_is_a_change_and_becomes_the_new_reference() -> None:
    detector = ChangeDetector()
    array = pixels()
    detector.changed(frame_of(array))
    reference = detector.reference
    array[status_bar_rows(H), 0, 0] ^= 1  # the first row under the status bar
    assert detector.changed(frame_of(array))
    assert detector.reference != reference
    assert not detector.changed(frame_of(array))  # the same frame again is no change
    array[H - 1, W - 1, 2] ^= 1  # the very last byte
    assert detector.changed(frame_of(array))


def test_a_dimension_change_is_a_change() -> None:
    detector = ChangeDetector()
    data = bytes(W * H * 3)
    detector.changed(Frame(W, H, data))
    assert detector.changed(Frame(H, W, data))  # the same bytes, turned to landscape
    assert detector.changed(Frame(W * 2, H // 2, data))


def test_the_key_hashes_a_view_of_the_frame_without_a_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[object] = []
    real = frame_module.xxhash.xxh3_64_intdigest

    def spy(data: object, seed: int = 0) -> int:
        seen.append(data)
        return real(data, seed=seed)

    monkeypatch.setattr(frame_module.xxhash, "xxh3_64_intdigest", spy)
    frame = frame_of(pixels())
    FrameHasher().key(frame)
    (view,) = seen
    assert isinstance(view, memoryview) and view.obj is frame.data
    assert view.nbytes == (H - status_bar_rows(H)) * W * 3


def test_a_frame_with_the_wrong_byte_count_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="needs 1944000 bytes, the controller sent 10"):
        Frame(W, H, b"0123456789")


def test_rgba_and_png_images_become_rgb888_frames() -> None:
    array = pixels(20, 30)
    rgba = np.concatenate([array, np.full((30, 20, 1), 255, np.uint8)], axis=2)
    image = pb.Image(
        format=pb.ImageFormat(format=pb.ImageFormat.RGBA8888, width=20, height=30), image=rgba.tobytes(), seq=4
    )
    frame = Frame.from_image(image)
    assert frame.data == array.tobytes() and frame.seq == 4
    png = io.BytesIO()
    Image.fromarray(array).save(png, format="PNG")
    image = pb.Image(format=pb.ImageFormat(format=pb.ImageFormat.PNG, width=20, height=30), image=png.getvalue())
    assert Frame.from_image(image).data == array.tobytes()
    broken = pb.Image(format=pb.ImageFormat(format=pb.ImageFormat.PNG, width=20, height=30), image=b"\x89PNG garbage")
    with pytest.raises(ProtocolError, match="does not decode"):
        Frame.from_image(broken)


def test_an_empty_image_is_an_empty_frame() -> None:
    image = pb.Image(format=pb.ImageFormat(format=pb.ImageFormat.RGB888, width=540, height=1200), image=b"", seq=0)
    frame = Frame.from_image(image)
    assert (frame.width, frame.height, frame.data, frame.seq) == (0, 0, b"", 0)
