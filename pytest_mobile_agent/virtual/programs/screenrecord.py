"""`screenrecord [options] FILE`, as AOSP's frameworks/av/cmds/screenrecord/screenrecord.cpp has it
on API 34 and later (read in Android 14 and 15's sources, LineageOS's lineage-21.0 and lineage-22.0
branches of frameworks/av, against Android 13's, lineage-20.0; the virtual device is API 36):

* `--time-limit T` seconds, default 180 (kMaxTimeLimitSec); from API 34 any value from 0 to
  UINT32_MAX, 0 removing the limit (before API 34 the range was [1,180]: "Time limit %ds outside
  acceptable range [1,180]"). "Error parsing time limit argument" for a non-number.
* `--size WxH` (default: the display's size), `--bit-rate RATE` (`4000000` or `4M`, within
  [100000, 200000000], default 20 Mbps), `--output-format mp4|webm|h264|3gpp|frames|raw-frames`,
  `--verbose`, `--help`, and the options that change nothing here (`--bugreport`, `--rotate`,
  `--codec-name`, `--monotonic-time`, `--persistent-surface`, `--bframes`, `--display-id`,
  `--capture-secure`, `--show-device-info`, `--show-frame-time`).
* The file is created first ("Unable to open 'F': REASON", status 1); frames are encoded as the
  display changes (a virtual display sends a frame only when SurfaceFlinger composes one), until
  the time limit ("Time limit reached" with --verbose) or SIGINT / SIGHUP (the platform's
  signalCatcher: Ctrl-C in an interactive shell, or the host's adb going away), after which the
  muxer is stopped and the file is whole. SIGTERM and SIGKILL end it at once: the file holds what
  was muxed so far, without its index, as a killed screenrecord leaves it.
* Usage errors exit 2 with the tool's messages ("Invalid size '%s', must be width x height",
  "Unrecognized value: %s", "Bit rate %dbps outside acceptable range [%d,%d]", "Unknown format
  '%s'", "Must specify output file (see --help).").

The encoder is FFmpeg's (PyAV, the `video` extra) in place of MediaCodec: H.264 in MP4, VP8 in
WebM. Without PyAV the tool fails as a device without an AVC encoder does ("ERROR: unable to create
video/avc codec instance"). Only mp4 and webm are written; the raw formats (h264, frames,
raw-frames) and 3gpp are refused with a message saying so, a difference from a device.
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass
from typing import Any

from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.creds import cred_of

MAX_TIME_LIMIT = 180
UINT32_MAX = 2**32 - 1
MIN_BIT_RATE, MAX_BIT_RATE = 100_000, 200_000_000
FORMATS = ("mp4", "h264", "webm", "3gpp", "frames", "raw-frames")
WRITTEN_FORMATS = {"mp4": ("mp4", "libx264", "video/avc"), "webm": ("webm", "libvpx", "video/x-vnd.on2.vp8")}
VALUED = ("--size", "--bit-rate", "--time-limit", "--output-format", "--codec-name", "--bframes", "--display-id")
FLAGS = (
    "--help",
    "--verbose",
    "--bugreport",
    "--show-device-info",
    "--show-frame-time",
    "--rotate",
    "--monotonic-time",
    "--persistent-surface",
    "--capture-secure",
)
SIGNAL_LATENCY = 0.05
"""The longest a wait for the display lasts before the tool looks for a signal."""


class UsageError(Exception):
    """A message for stderr and the tool's status 2."""


@dataclass
class Request:
    path: str
    size: tuple[int, int] | None = None
    bit_rate: int = 20_000_000
    time_limit: int = MAX_TIME_LIMIT
    output_format: str = "mp4"
    verbose: bool = False
    help: bool = False


def screenrecord(framework: Framework, proc: pm.Process) -> int:
    try:
        request = parse(proc.argv[1:])
    except UsageError as exc:
        proc.stderr.write(f"{exc}\n")
        return 2
    if request.help:
        proc.stderr.write(usage())
        return 0
    if request.output_format not in WRITTEN_FORMATS:
        proc.stderr.write(f"ERROR: the virtual device writes mp4 and webm only, not {request.output_format}\n")
        return 1
    fs = framework.system.fs
    path = fs.normalize(request.path, proc.cwd)
    try:
        fs.write_file(path, b"", cred_of(proc))
    except OSError as exc:
        proc.stderr.write(f"Unable to open '{request.path}': {exc.strerror}\n")
        return 1
    encoder = _Encoder.open(request, framework.display.size)
    if encoder is None:
        proc.stderr.write(f"ERROR: unable to create {WRITTEN_FORMATS[request.output_format][2]} codec instance\n")
        return 1
    if request.verbose:
        width, height = encoder.size
        proc.stdout.write(
            f"Configuring recorder for {width}x{height} {WRITTEN_FORMATS[request.output_format][2]} "
            f"at {request.bit_rate / 1e6:.2f}Mbps\n"
        )
    try:
        _record(framework, proc, request, encoder)
    except pm.Terminated:
        fs.write_file(path, encoder.partial(), cred_of(proc))  # killed: no index written
        raise
    fs.write_file(path, encoder.close(), cred_of(proc))
    if request.verbose:
        proc.stdout.write(
            f"Encoder stopping; recorded {encoder.frames} frames in {encoder.seconds:.0f} seconds\n"
            "Stopping encoder and muxer\n"
        )
    return 0


def _record(framework: Framework, proc: pm.Process, request: Request, encoder: _Encoder) -> None:
    """Encode the display as it changes until the time limit, SIGINT or SIGHUP."""
    display = framework.display
    proc.signals.catch(pm.SIGINT, pm.SIGHUP)
    started = time.monotonic()
    ends = None if request.time_limit == UINT32_MAX else started + request.time_limit
    seen = display.change_count
    encoder.add(display.render(), 0.0)
    while True:
        now = time.monotonic()
        if ends is not None and now >= ends:
            if request.verbose:
                proc.stdout.write("Time limit reached\n")
            break
        display.wait_change(seen, SIGNAL_LATENCY if ends is None else max(0.0, min(ends - now, SIGNAL_LATENCY)))
        try:
            proc.checkpoint()  # the display's condition is not the kernel's: signals are looked for between waits
        except pm.Interrupted:
            break
        if display.change_count != seen:
            seen = display.change_count
            encoder.add(display.render(), time.monotonic() - started)
    encoder.seconds = time.monotonic() - started


def parse(args: list[str]) -> Request:
    """The tool's getopt_long options, its checks and its messages."""
    values: dict[str, str] = {}
    flags: set[str] = set()
    files: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        name, equals, inline = arg.partition("=")
        if name in VALUED:
            if not equals:
                index += 1
                if index >= len(args):
                    raise UsageError(f"screenrecord: option '{name}' requires an argument")
                inline = args[index]
            values[name] = inline
        elif arg in FLAGS:
            flags.add(arg)
        elif arg.startswith("--") and arg != "--":
            raise UsageError(f"screenrecord: unrecognized option '{arg}'")
        else:
            files.append(arg)
        index += 1
    request = Request(path="", verbose="--verbose" in flags, help="--help" in flags)
    if "--size" in values:
        request.size = _size(values["--size"])
    if "--bit-rate" in values:
        request.bit_rate = _bit_rate(values["--bit-rate"])
    if "--time-limit" in values:
        request.time_limit = _time_limit(values["--time-limit"])
    if "--output-format" in values:
        if values["--output-format"] not in FORMATS:
            raise UsageError(f"Unknown format '{values['--output-format']}'")
        request.output_format = values["--output-format"]
    if request.help:
        return request
    if len(files) != 1:
        raise UsageError("Must specify output file (see --help).")
    request.path = files[0]
    return request


def _size(text: str) -> tuple[int, int]:
    width, x, height = text.partition("x")
    if not (width.isdigit() and x and height.isdigit()):
        raise UsageError(f"Invalid size '{text}', must be width x height")
    if int(width) == 0 or int(height) == 0:
        raise UsageError(f"Invalid size {int(width)}x{int(height)}, width and height may not be zero")
    return int(width), int(height)


def _bit_rate(text: str) -> int:
    number, unit = (text[:-1], 1_000_000) if text[-1:] in ("m", "M") else (text, 1)
    if not number.lstrip("-").isdigit():
        raise UsageError(f"Unrecognized value: {text}")
    rate = int(number) * unit
    if not MIN_BIT_RATE <= rate <= MAX_BIT_RATE:
        raise UsageError(f"Bit rate {rate}bps outside acceptable range [{MIN_BIT_RATE},{MAX_BIT_RATE}]")
    return rate


def _time_limit(text: str) -> int:
    digits = text.rstrip(" ")
    if not digits.lstrip("-").isdigit():
        raise UsageError("Error parsing time limit argument")
    seconds = int(digits)
    if not 0 <= seconds <= UINT32_MAX:
        raise UsageError(f"Time limit {seconds}s outside acceptable range [0,{UINT32_MAX}] seconds")
    return UINT32_MAX if seconds == 0 else seconds


def usage() -> str:
    return (
        "Usage: screenrecord [options] <filename>\n\n"
        "Android screenrecord v1.3.  Records the device's display to a .mp4 file.\n\n"
        "Options:\n"
        '--size WIDTHxHEIGHT\n    Set the video size, e.g. "1280x720".  Default is the device\'s main\n'
        "    display resolution (if supported), 1280x720 if not.  For best results,\n"
        "    use a size supported by the AVC encoder.\n"
        "--bit-rate RATE\n    Set the video bit rate, in bits per second.  Value may be specified as\n"
        "    bits or megabits, e.g. '4000000' is equivalent to '4M'.  Default 20Mbps.\n"
        "--bugreport\n    Add additional information, such as a timestamp overlay, that is helpful\n"
        "    in videos captured to illustrate bugs.\n"
        f"--time-limit TIME\n    Set the maximum recording time, in seconds.  Default is {MAX_TIME_LIMIT}. Set to 0\n"
        "    to remove the time limit.\n"
        "--display-id ID\n    specify the physical display ID to record. Default is the primary display.\n"
        '    see "dumpsys SurfaceFlinger --display-id" for valid display IDs.\n'
        "--verbose\n    Display interesting information on stdout.\n"
        "--help\n    Show this message.\n\n"
        "Recording continues until Ctrl-C is hit or the time limit is reached.\n\n"
    )


class _Encoder:
    """FFmpeg's encoder and muxer (PyAV) writing into memory; the device's file is written at the end."""

    def __init__(self, av: Any, request: Request, display_size: tuple[int, int]) -> None:
        container_format, codec, _ = WRITTEN_FORMATS[request.output_format]
        width, height = request.size or display_size
        self.size = (width - width % 2, height - height % 2)  # 4:2:0 chroma needs even sides
        self._buffer = io.BytesIO()
        self._container = av.open(self._buffer, mode="w", format=container_format)
        self._stream = self._container.add_stream(codec, rate=60)
        self._stream.width, self._stream.height = self.size
        self._stream.pix_fmt = "yuv420p"
        self._stream.bit_rate = request.bit_rate
        self._stream.codec_context.time_base = _fraction(1, 1000)
        self._stream.options = (
            {"preset": "ultrafast"} if codec == "libx264" else {"deadline": "realtime", "cpu-used": "8"}
        )
        self._av = av
        self._last_pts = -1
        self._last_image: Any = None
        self.frames = 0
        self.seconds = 0.0

    @classmethod
    def open(cls, request: Request, display_size: tuple[int, int]) -> _Encoder | None:
        try:
            import av
        except ImportError:
            return None
        return cls(av, request, display_size)

    def add(self, image: Any, at: float) -> None:
        pts = max(self._last_pts + 1, int(at * 1000))
        if image.size != self.size:
            image = _letterboxed(image, self.size)
        frame = self._av.VideoFrame.from_image(image)
        frame.pts = pts
        frame.time_base = _fraction(1, 1000)
        for packet in self._stream.encode(frame):
            self._container.mux(packet)
        self._last_pts = pts
        self._last_image = image
        self.frames += 1

    def close(self) -> bytes:
        if self._last_image is not None and self.seconds * 1000 > self._last_pts + 1:
            self.add(self._last_image, self.seconds)  # the last picture lasts until the recording's end
        for packet in self._stream.encode(None):
            self._container.mux(packet)
        self._container.close()
        return self._buffer.getvalue()

    def partial(self) -> bytes:
        return self._buffer.getvalue()


def _letterboxed(image: Any, size: tuple[int, int]) -> Any:
    """The display scaled into `size` keeping its aspect, centred on black (setDisplayProjection)."""
    from PIL import Image

    width, height = size
    scale = min(width / image.width, height / image.height)
    content = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))))
    canvas = Image.new("RGB", size)
    canvas.paste(content, ((width - content.width) // 2, (height - content.height) // 2))
    return canvas


def _fraction(numerator: int, denominator: int) -> Any:
    from fractions import Fraction

    return Fraction(numerator, denominator)
