"""Controller frames and the change detector that ignores the status bar.

Rows are top-down: `Frame.row(0)` is the top row of the screen, whatever the proto's comment says
(the emulator's own sample and spike S7 read them so). The status bar is therefore at the start of
the buffer, and the hash of a frame is one xxh3 over the buffer past its first 6 % of rows: a
memoryview slice, no copy and no per-row loop.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

import xxhash

from pytest_mobile_agent.errors import ProtocolError

BYTES_PER_PIXEL = 3  # RGB888
STATUS_BAR_PERCENT = 6

# ImageFormat.ImgFormat values (emulator_controller.proto)
PNG = 0
RGBA8888 = 1
RGB888 = 2


@dataclass(frozen=True)
class Frame:
    """An RGB888 frame, top row first (0x0 and empty for an inactive display). `seq` counts the device's
    frames since the stream began; `timestamp_us` is the emulator's capture time (unix µs);
    `received_at` the host's monotonic arrival time; `rotation` the emulator's Rotation.SkinRotation
    (0 portrait)."""

    width: int
    height: int
    data: bytes = field(repr=False)
    seq: int = 0
    timestamp_us: int = 0
    rotation: int = 0
    received_at: float = 0.0

    def __post_init__(self) -> None:
        if self.width < 0 or self.height < 0:
            raise ProtocolError(f"a frame of {self.width}x{self.height} pixels")
        expected = self.width * self.height * BYTES_PER_PIXEL
        if len(self.data) != expected:
            raise ProtocolError(
                f"a {self.width}x{self.height} RGB888 frame needs {expected} bytes, the controller sent "
                f"{len(self.data)}"
            )

    @property
    def stride(self) -> int:
        return self.width * BYTES_PER_PIXEL

    def row(self, index: int) -> memoryview:
        """Row `index` counted from the top, as a view into the buffer."""
        if not 0 <= index < self.height:
            raise IndexError(f"row {index} of a frame {self.height} rows high")
        start = index * self.stride
        return memoryview(self.data)[start : start + self.stride]

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        row = self.row(y)
        if not 0 <= x < self.width:
            raise IndexError(f"column {x} of a frame {self.width} pixels wide")
        r, g, b = row[x * 3 : x * 3 + 3]
        return (r, g, b)

    def image(self) -> Any:
        """The frame as a PIL image (RGB)."""
        from PIL import Image

        return Image.frombytes("RGB", (self.width, self.height), self.data)

    @classmethod
    def from_image(cls, image: Any, *, received_at: float = 0.0) -> Frame:
        """From an emulator Image message, whatever its format (PNG and RGBA8888 become RGB888)."""
        fmt = image.format
        width, height = fmt.width or image.width, fmt.height or image.height
        data = image.image  # one access: the protobuf runtime hands out a new bytes object each time
        if not data:  # an inactive or not yet visible display: the emulator sends an empty image
            width = height = 0
        elif fmt.format == RGBA8888:
            data = _rgba_to_rgb(data, width, height)
        elif fmt.format == PNG:
            data, width, height = _png_to_rgb(data)
        return cls(
            width=width,
            height=height,
            data=data,
            seq=image.seq,
            timestamp_us=image.timestampUs,
            rotation=int(fmt.rotation.rotation),
            received_at=received_at,
        )


def _rgba_to_rgb(data: bytes, width: int, height: int) -> bytes:
    if len(data) != width * height * 4:
        raise ProtocolError(f"a {width}x{height} RGBA8888 frame needs {width * height * 4} bytes, got {len(data)}")
    import numpy as np

    pixels = np.frombuffer(data, dtype=np.uint8).reshape(height * width, 4)
    return pixels[:, :3].tobytes()


def _png_to_rgb(data: bytes) -> tuple[bytes, int, int]:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as img:
            rgb = img.convert("RGB")
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise ProtocolError(f"the controller sent a PNG frame that does not decode: {exc}") from exc
    return rgb.tobytes(), rgb.width, rgb.height


def status_bar_rows(height: int) -> int:
    """The top 6 % of rows, rounded up: 72 of 1200, 144 of 2400."""
    return -(-height * STATUS_BAR_PERCENT // 100)


class FrameHasher:
    """xxh3-64 of a frame's pixels below the status bar, seeded with its dimensions.

    The seed makes a dimension change a different key; the slice leaves out the status bar, whose
    clock changes on its own every minute (every second on the virtual device).
    """

    __slots__ = ()

    def key(self, frame: Frame) -> int:
        stride = frame.width * BYTES_PER_PIXEL
        start = status_bar_rows(frame.height) * stride
        view = memoryview(frame.data)[start : frame.height * stride]
        return xxhash.xxh3_64_intdigest(view, seed=(frame.width << 32) | frame.height)


class ChangeDetector:
    """Says whether a frame differs from the last one that did, outside the status bar."""

    def __init__(self, hasher: FrameHasher | None = None) -> None:
        self.hasher = hasher or FrameHasher()
        self.reference: int | None = None

    def changed(self, frame: Frame) -> bool:
        """True for the first frame and for each frame whose key differs from the reference; such a
        frame becomes the new reference."""
        key = self.hasher.key(frame)
        if key == self.reference:
            return False
        self.reference = key
        return True

    def reset(self) -> None:
        self.reference = None
