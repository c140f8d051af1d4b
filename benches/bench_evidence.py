"""What the evidence of issue 24 costs (docs/performance.md, "Evidence"):

- trace: a tap on the virtual device with the step trace recording it against the same tap with
  no recorder, the two taking turns (`timing.interleaved`); with the controller (its frames are the
  screens) and without (budgeted agent screenshots). Bound: at most 5 ms more at p50.
- build: turning a 50-step test's recording into the trace's files (only for a kept trace).
- video: the encoder's CPU per 540-pixel-wide frame of the fixture app's List (H.264 and VP8; the
  process's CPU time, since x264 encodes on threads of its own), as the share of one core it takes at
  the video's 30 frames a second at most. Bound: at most 25 % of a core at the controller's rate.
- examples: `pytest examples --android-serial virtual`, --android-trace off against the default
  retain-on-failure, taking turns. Bound: under 5 % more.

    python3 benches/bench_evidence.py --part trace --rounds 15
    python3 benches/bench_evidence.py --part video --frames 240
    python3 benches/bench_evidence.py --part examples --rounds 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import interleaved, median, summary, timed  # noqa: E402

from pytest_mobile_agent.evidence.trace import BudgetedScreenshots, LiveFrames, TraceRecorder  # noqa: E402
from pytest_mobile_agent.evidence.video import MAX_FRAME_RATE, _open_stream  # noqa: E402
from pytest_mobile_agent.stack import Settings, open_stack  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = "dev.mobileagent.fixture/dev.mobileagent.fixture.MainActivity"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def trace_cost(rounds: int, number: int) -> None:
    for controller in ("auto", "off"):
        with open_stack(Settings.for_target("virtual", emulator_controller=controller), holder="bench") as stack:
            stack.device.shell(f"am start -W -n {FIXTURE} --es tab Login")
            stack.screen.wait_for(id="tab_list")
            trace_cost_on(stack, controller, rounds, number)


def trace_cost_on(stack: Any, controller: str, rounds: int, number: int) -> None:
    screen, session = stack.screen, stack.session
    recorder = TraceRecorder(view=lambda: screen.current_view)
    recorder.screen = (LiveFrames(session.frames.observe) if session.controller is not None
                       else BudgetedScreenshots(lambda: session.screenshot("jpeg").data))
    tabs = iter(["tab_list", "tab_login"] * 100_000)

    def tap() -> None:
        screen.tap(id=next(tabs))

    def traced() -> None:
        remove = screen.steps.add_listener(recorder)
        try:
            tap()
        finally:
            remove()

    samples = interleaved({"off": tap, "on": traced}, rounds=rounds, number=number)
    off, on = median(samples["off"]) * 1000, median(samples["on"]) * 1000
    print(f"trace, controller {controller}: tap p50 of round medians {off:.2f} ms off, {on:.2f} ms on, "
          f"+{on - off:.2f} ms per action ({len(recorder.recorded)} steps recorded); load {load()}")
    started = time.perf_counter()
    document, files = recorder.build({"nodeid": "bench", "outcome": "failed"}, {})
    print(f"  build of the kept trace: {(time.perf_counter() - started) * 1000:.0f} ms for "
          f"{len(document['steps'])} steps, {len(files)} files")
    if isinstance(recorder.screen, BudgetedScreenshots):
        print(f"  agent screenshots: {recorder.screen.taken} taken, {recorder.screen.skipped} skipped by the budget")
    recorder.close()


def build_cost(runs: int) -> None:
    with open_stack(Settings.for_target("virtual"), holder="bench") as stack:
        stack.device.shell(f"am start -W -n {FIXTURE} --es tab Login")
        screen = stack.screen
        screen.wait_for(id="tab_list")
        times = []
        for _ in range(runs):
            recorder = TraceRecorder(view=lambda: screen.current_view)
            recorder.screen = LiveFrames(stack.session.frames.observe)
            remove = screen.steps.add_listener(recorder)
            for index in range(25):
                screen.tap(id=("tab_list", "tab_login")[index % 2])
            remove()
            recorder.body_ended(True)
            started = time.perf_counter()
            recorder.build({"nodeid": "bench", "outcome": "failed"}, {})
            times.append((time.perf_counter() - started) * 1000)
            recorder.close()
        print(f"build of a 50-step trace (25 taps, their finds): {summary(times, 1)}; load {load()}")


def video_cost(frames: int) -> None:
    pictures = list_pictures()
    video_stages(pictures, frames)
    for extension in ("mp4", "webm"):
        per_frame = controller_video_cpu(pictures, extension, frames)
        print(f"video {extension}: the plugin's ControllerVideo fed {frames} controller frames (540x1200 RGB888, "
              f"every frame a change): {per_frame:.2f} ms CPU a frame (the process's, encoder threads "
              f"included); {per_frame * MAX_FRAME_RATE / 10:.1f} % of a core at {MAX_FRAME_RATE} frames/s, the "
              f"most the video takes; load {load()}")


def list_pictures() -> list[Any]:
    """The fixture app's List at 540x1200, the controller's frame width (rows of text, the kind of screen a
    failing test shows), and the same scrolled by 100 pixels, so every frame is a change."""
    from PIL import Image

    from pytest_mobile_agent.virtual.device import VirtualDevice

    device = VirtualDevice("emulator-5590")
    try:
        status, _, err = device.shell("am start -W -S -n dev.mobileagent.fixture/.MainActivity --es tab List")
        if status != 0:
            raise SystemExit(f"am start failed: {err.decode(errors='replace')}")
        time.sleep(1)  # the tab's content drawn
        first = device.display.render().resize((540, 1200)).convert("RGB")
    finally:
        device.close()
    shifted = Image.new("RGB", (540, 1200), (250, 250, 250))
    shifted.paste(first.crop((0, 0, 540, 1100)), (0, 100))
    return [first, shifted]


def video_stages(pictures: list[Any], frames: int) -> None:
    """Where a frame's CPU goes: each stage alone, on the same two pictures, as the controller sends them."""
    import av
    from av.video.reformatter import VideoReformatter
    from PIL import Image

    from pytest_mobile_agent.emulator.frame import Frame
    from pytest_mobile_agent.evidence.video import PictureConverter

    raw = [Frame(540, 1200, picture.tobytes()) for picture in pictures]
    images = [Image.frombytes("RGB", (540, 1200), frame.data) for frame in raw]
    rgb = [av.VideoFrame.from_image(image) for image in images]
    kept = VideoReformatter()
    converter = PictureConverter(av, 540, 1200)
    stages: dict[str, Any] = {
        "bytes to a PIL image (the old upright)": lambda i: Image.frombytes("RGB", (540, 1200), bytes(raw[i].data)),
        "PIL image to an rgb24 frame (from_image)": lambda i: av.VideoFrame.from_image(images[i]),
        "rgb24 to yuv420p, a new swscale context a frame (VideoFrame.reformat)":
            lambda i: av.VideoFrame.from_image(images[i]).reformat(format="yuv420p"),
        "rgb24 to yuv420p, one swscale context kept, one thread":
            lambda i: kept.reformat(rgb[i], format="yuv420p", **converter.reformat_options),
        "the new path whole (PictureConverter: bytes in place, one context)": lambda i: converter.picture(raw[i]),
    }
    for name, stage in stages.items():
        cpu = []
        for index in range(frames):
            started = time.process_time()
            stage(index % 2)
            cpu.append((time.process_time() - started) * 1000)
        print(f"  stage: {name}: {statistics.mean(cpu[5:]):.2f} ms CPU (mean)")
    for codec in ("libx264", "libvpx"):
        yuv = [converter.picture(frame) for frame in raw]
        with av.open(os.devnull, mode="w", format="mp4" if codec == "libx264" else "webm") as container:
            stream = _open_stream(container, codec, (540, 1200))
            cpu = []
            for index in range(frames):
                picture = yuv[index % 2]
                picture.pts, picture.time_base = index * 33, Fraction(1, 1000)
                started = time.process_time()
                for packet in stream.encode(picture):
                    container.mux(packet)
                cpu.append((time.process_time() - started) * 1000)
            for packet in stream.encode(None):
                container.mux(packet)
        print(f"  stage: {codec} encoding a yuv420p picture: {statistics.mean(cpu[5:]):.2f} ms CPU (mean)")


def controller_video_cpu(pictures: list[Any], extension: str, frames: int) -> float:
    """The process's CPU a frame while the plugin's ControllerVideo encodes frames handed over as the session's
    frame source hands them, each taken (one every 40 ms of a fake clock: past the 30-a-second pacer's slot)."""
    from pytest_mobile_agent.emulator.frame import Frame
    from pytest_mobile_agent.evidence.video import ControllerVideo

    now = [0.0]
    observers: list[Any] = []
    recording = ControllerVideo(lambda observer: observers.append(observer) or (lambda: None), extension,
                                clock=lambda: now[0])
    data = [picture.tobytes() for picture in pictures]
    encoded = threading.Semaphore(0)
    encode = recording._encode

    def counted(*args: Any) -> None:  # the bench waits for each frame without spending CPU on polling
        encode(*args)
        encoded.release()

    recording._encode = counted  # type: ignore[method-assign]
    warm, started = 5, 0.0
    try:
        for index in range(frames):
            if index == warm:
                started = time.process_time()
            now[0] += 0.04
            observers[0](Frame(540, 1200, data[index % 2], seq=index, received_at=now[0]))
            if not encoded.acquire(timeout=10):
                raise SystemExit(f"frame {index} was not encoded within 10 s: {recording.failure}")
        spent = time.process_time() - started
    finally:
        recording.finish(None)
    if recording.failure is not None or recording.dropped:
        raise SystemExit(f"the encoder failed or dropped frames: {recording.failure}, {recording.dropped} dropped")
    return spent * 1000 / (frames - warm)


def examples_cost(rounds: int) -> None:
    base = [sys.executable, "-m", "pytest", "examples", "-q", "-p", "no:randomly", "--android-serial", "virtual"]
    environment = dict(os.environ)
    samples: dict[str, list[float]] = {"off": [], "retain-on-failure": []}
    for _ in range(rounds):
        for mode in samples:
            started = time.perf_counter()
            subprocess.run([*base, "--android-trace", mode], cwd=ROOT, env=environment, check=True,
                           capture_output=True)
            samples[mode].append(time.perf_counter() - started)
    off, kept = median(samples["off"]), median(samples["retain-on-failure"])
    print(f"examples: {off:.2f} s with the trace off, {kept:.2f} s under retain-on-failure "
          f"({(kept / off - 1) * 100:+.1f} %), medians of {rounds} turns each; load {load()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("trace", "build", "video", "examples"), required=True)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--number", type=int, default=4)
    parser.add_argument("--frames", type=int, default=120)
    args = parser.parse_args(argv)
    parts: dict[str, Any] = {"trace": lambda: trace_cost(args.rounds, args.number), "build": lambda: build_cost(5),
                             "video": lambda: video_cost(args.frames), "examples": lambda: examples_cost(args.rounds)}
    parts[args.part]()
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["timed"]
