"""The step trace's recorder on a scripted `Steps` (no device): before and after screens of the test's
own actions, nested steps without, the screenshot budget, the password mask, the controller frame
that settles a capture, logcat on the host's clock, and the video encoder that never holds a frame."""

from __future__ import annotations

import datetime
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_mobile_agent.evidence import logtimes
from pytest_mobile_agent.evidence.trace import (
    BudgetedScreenshots,
    EncodedCapture,
    LiveFrames,
    TraceRecorder,
)
from pytest_mobile_agent.mirror.steps import Steps


class Shots:
    """A screen source whose captures are numbered."""

    def __init__(self) -> None:
        self.taken = 0

    def grab(self, *, forced: bool = False, settle: bool = True) -> EncodedCapture:
        self.taken += 1
        return EncodedCapture("jpg", f"shot {self.taken}".encode())

    def close(self) -> None:
        pass


def recorded(steps: Steps) -> tuple[TraceRecorder, Shots]:
    shots = Shots()
    recorder = TraceRecorder(screen=shots)
    steps.add_listener(recorder)
    return recorder, shots


def test_actions_get_the_screen_before_and_the_one_at_the_next_call() -> None:
    steps = Steps()
    recorder, shots = recorded(steps)
    with steps.step("tap", {"id": "login"}), steps.step("find", {"id": "login"}):
        pass
    with steps.step("wait_for", {"id": "welcome"}):
        pass
    recorder.body_ended(failed=False)
    document, files = recorder.build({"nodeid": "t", "outcome": "passed"}, {})
    tap, find, wait = document["steps"]
    assert files[tap["before"]] == b"shot 1" and files[tap["after"]] == b"shot 2"
    assert find["before"] is None and find["after"] is None and find["parent"] == 0
    assert wait["before"] is None, "a query has no screens of its own"
    assert shots.taken == 2


def test_a_failing_tests_last_step_gets_its_screen_at_the_end() -> None:
    steps = Steps()
    recorder, shots = recorded(steps)
    with pytest.raises(LookupError), steps.step("wait_for", {"id": "welcome"}):
        raise LookupError("not there")
    recorder.body_ended(failed=True)
    document, files = recorder.build({"nodeid": "t", "outcome": "failed"}, {})
    assert files[document["steps"][0]["after"]] == b"shot 1"
    assert document["steps"][0]["error"] == {"type": "LookupError", "message": "not there"}
    assert document["steps"][0]["outcome"] == "LookupError: not there"


def test_teardowns_steps_are_marked_and_take_no_screens() -> None:
    steps = Steps()
    recorder, shots = recorded(steps)
    recorder.body_ended(failed=False)
    with steps.step("app.stop"):
        pass
    document, _ = recorder.build({"nodeid": "t", "outcome": "passed"}, {})
    assert document["steps"][0]["teardown"] is True and shots.taken == 0


def test_text_typed_without_a_known_field_is_masked_to_be_safe() -> None:
    steps = Steps()
    recorder, _ = recorded(steps)
    with steps.step("type_text", {"text": "hunter2", "method": "auto"}):
        pass
    assert recorder.recorded[0].arguments["text"] == "\u2022" * 7
    with steps.step("tap", {"text": "hunter2"}):
        pass
    assert recorder.recorded[1].arguments["text"] == "hunter2", "only typed text is masked"


def test_screenshots_stay_within_their_share_of_the_tests_time() -> None:
    now = [0.0]
    costs = iter([0.05] * 100)

    def take() -> bytes:
        now[0] += next(costs)
        return b"jpeg"

    budget = BudgetedScreenshots(take, clock=lambda: now[0], share=0.04)
    assert budget.grab() is None, "nothing is spent before the test has run long enough to afford it"
    now[0] += 2.0
    assert budget.grab() is not None
    assert budget.grab() is None, "the budget is spent"
    assert budget.grab(forced=True) is not None, "a failure's screen is taken whatever it costs"
    assert (budget.taken, budget.skipped) == (2, 2)


class Frame:
    def __init__(self, name: str, received_at: float) -> None:
        self.name, self.received_at = name, received_at
        self.width, self.height, self.rotation = 2, 2, 0
        self.data = bytes(12)


def test_a_capture_settles_on_the_frame_in_effect_just_after_its_moment() -> None:
    now = [10.0]
    observers: list[Any] = []
    frames = LiveFrames(lambda observer: observers.append(observer) or (lambda: None), clock=lambda: now[0])
    observers[0](Frame("old", 9.0))
    capture = frames.grab()
    assert capture is not None and capture.frame.name == "old"  # type: ignore[attr-defined]
    observers[0](Frame("typed text shown", 10.06))  # arrived within FRAME_LAG: the screen at 10.0
    observers[0](Frame("after the next tap", 10.5))
    assert capture.frame.name == "typed text shown"  # type: ignore[attr-defined]


def test_an_actions_before_is_the_frame_already_here_when_it_began_never_one_showing_its_effect() -> None:
    """Issue 41 item 3: the before of `type_text` showed the keyboard its own tap brought up, because the
    before was settled by the frames arriving in the 0.1 s after the call began."""
    now = [10.0]
    observers: list[Any] = []
    frames = LiveFrames(lambda observer: observers.append(observer) or (lambda: None), clock=lambda: now[0])
    recorder = TraceRecorder(screen=frames)
    steps = Steps(clock=lambda: now[0])
    steps.add_listener(recorder)
    observers[0](Frame("the empty form", 9.0))
    with steps.step("tap", {"id": "login"}):
        observers[0](Frame("the tapped button", 10.02))
    now[0] = 11.0
    observers[0](Frame("the form typed into", 10.9))
    with steps.step("type_text", {"text": "ada", "id": "username"}):
        observers[0](Frame("the keyboard up", 11.03))  # the action's own effect, arriving within FRAME_LAG
    recorder.body_ended(failed=False)
    tap, typed = recorder.recorded
    assert tap.before is not None and tap.before.frame.name == "the empty form"  # type: ignore[attr-defined]
    assert typed.before is not None and typed.before.frame.name == "the form typed into"  # type: ignore[attr-defined]


def test_logcat_lines_are_put_on_the_hosts_clock() -> None:
    zone = datetime.timezone(datetime.timedelta(hours=2))
    now = datetime.datetime(2026, 12, 3, 20, 0, 5, tzinfo=zone).timestamp()
    line = "12-03 20:00:01.250  412  412 I Tag: hello"
    assert logtimes.line_time(line, zone, now) == pytest.approx(now - 3.75)
    assert logtimes.line_time("--------- beginning of main", zone, now) is None
    new_year = datetime.datetime(2027, 1, 1, 0, 0, 1, tzinfo=zone).timestamp()
    assert logtimes.line_time("12-31 23:59:59.000  1  1 I T: x", zone, new_year) == pytest.approx(new_year - 2)


def test_a_slow_encoder_drops_video_frames_and_never_holds_the_frame_source(tmp_path: Path) -> None:
    pytest.importorskip("av")
    from pytest_mobile_agent.evidence import video

    observers: list[Any] = []
    recording = video.ControllerVideo(lambda observer: observers.append(observer) or (lambda: None), "mp4")
    gate = threading.Event()
    encode = recording._encode

    def slow(*args: Any) -> None:
        gate.wait(5)
        encode(*args)

    recording._encode = slow  # type: ignore[method-assign]
    added: list[int] = []
    add = recording._add

    def counted(track: Any, frame: Any, arrived: float) -> None:
        added.append(frame.seq)
        add(track, frame, arrived)

    recording._add = counted  # type: ignore[method-assign]
    started = time.perf_counter()
    for index in range(40):
        observers[0](_frame(index))
    handed = time.perf_counter() - started
    gate.set()
    result = recording.finish(tmp_path / "video.mp4")
    assert handed < 0.5, f"handing 40 frames over took {handed:.2f} s: the frame source waited"
    assert recording.dropped >= 40 - video.QUEUE_FRAMES - 1 and result.facts["dropped"] == recording.dropped
    assert added[-1] == 39, f"the video ends on the newest frame, not on one from before the drops: {added}"
    assert len(added) + recording.dropped + recording.merged == 40, "every frame encoded, dropped or merged"
    assert result.facts["merged"] == recording.merged
    assert result.written and (tmp_path / "video.mp4").stat().st_size > 0


def test_a_failed_encoder_costs_the_video_and_says_why(tmp_path: Path) -> None:
    pytest.importorskip("av")
    from pytest_mobile_agent.evidence import video

    observers: list[Any] = []
    recording = video.ControllerVideo(lambda observer: observers.append(observer) or (lambda: None), "mp4")

    def broken(*args: Any) -> None:
        raise RuntimeError("encoder killed")

    recording._encode = broken  # type: ignore[method-assign]
    for index in range(3):
        observers[0](_frame(index))
    result = recording.finish(tmp_path / "video.mp4")
    assert not result.written and not (tmp_path / "video.mp4").exists()
    assert any("the encoder failed: encoder killed" in note for note in result.notes)


def _frame(index: int) -> Any:
    from pytest_mobile_agent.emulator.frame import Frame as ControllerFrame

    return ControllerFrame(16, 16, bytes([index * 5 % 256]) * (16 * 16 * 3), seq=index,
                           received_at=time.monotonic())


def test_a_long_tests_older_trees_are_serialized_so_memory_stays_bounded() -> None:
    from types import SimpleNamespace

    from pytest_mobile_agent.evidence import trace

    display = SimpleNamespace(width=1080, height=2400)
    views = [SimpleNamespace(generation=g, snapshot=SimpleNamespace(display=display), windows=(), by_window={})
             for g in range(1, trace.MAX_LIVE_VIEWS + 8)]
    current = iter(views)
    steps = Steps()
    recorder = TraceRecorder(view=lambda: next(current))
    steps.add_listener(recorder)
    for _ in views:
        with steps.step("find", {"id": "x"}):
            pass
    assert len(recorder._views) == trace.MAX_LIVE_VIEWS and len(recorder._trees) == 7
    document, files = recorder.build({"nodeid": "t", "outcome": "passed"}, {})
    assert len([name for name in files if name.startswith("trees/")]) == len(views)
    assert document["screen"] == {"width": 1080, "height": 2400}
