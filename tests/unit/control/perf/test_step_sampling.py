"""A step's perf figures: the frames since the previous reading (the counters' difference, or all of
them when the app's process is new), its PSS and the change, its CPU time, and an app.start's launch."""

from __future__ import annotations

from pytest_mobile_agent.control.perf.budget import Budget
from pytest_mobile_agent.control.perf.gfxinfo import FrameStats, percentiles_of
from pytest_mobile_agent.control.perf.launch import Launch
from pytest_mobile_agent.control.perf.meminfo import Memory
from pytest_mobile_agent.control.perf.sampler import Sample
from pytest_mobile_agent.control.perf.step_sampling import StepPerf, figures_of
from pytest_mobile_agent.mirror.steps import Step, Steps

BUCKETS = (5, 16, 17, 40)


def frames(*counts: int, janky: int = 0) -> FrameStats:
    histogram = tuple(zip(BUCKETS, counts, strict=True))
    return FrameStats(sum(counts), janky, percentiles_of(histogram, sum(counts)), histogram)


def sample(pid: int, counts: tuple[int, ...], janky: int, pss_kb: int, cpu: float) -> Sample:
    return Sample(frames(*counts, janky=janky), Memory(pss_kb), cpu, pid)


def step(name: str, result: object = None) -> Step:
    return Step(name, {}, 0, 0.0, 0.0, result=result)


def test_a_step_gets_what_changed_since_the_previous_reading() -> None:
    earlier = sample(9, (10, 0, 0, 0), 0, 51_200, 300.0)
    later = sample(9, (12, 1, 3, 4), 7, 61_440, 560.0)
    figures = figures_of(step("swipe"), later, earlier)
    assert figures["frames"]["gfxFrameTotalCount"] == 10 and figures["frames"]["jankyFrameCount"] == 7
    assert figures["frames"]["gfxFrameJankPercent"] == 70.0
    assert figures["frames"]["gfxFrameTime50thPercentileMs"] == 17  # of the step's 10 frames, not all 20
    assert figures["memory"] == {"pss_mb": 60.0, "delta_pss_mb": 10.0}
    assert figures["cpu_ms"] == 260.0


def test_a_new_process_counts_from_its_start() -> None:
    earlier = sample(9, (10, 0, 0, 0), 0, 51_200, 300.0)
    restarted = sample(12, (2, 0, 0, 1), 1, 40_960, 120.0)
    figures = figures_of(step("app.start", Launch("ok", "COLD", "a.b/.Main", 412, 430)), restarted, earlier)
    assert figures["launch"] == {"state": "COLD", "startup_ms": 412, "wait_ms": 430, "timed": True}
    assert figures["frames"]["gfxFrameTotalCount"] == 3 and figures["cpu_ms"] == 120.0
    assert "delta_pss_mb" not in figures["memory"]


class Readings:
    def __init__(self, *samples: Sample) -> None:
        self.samples = list(samples)

    def sample(self) -> Sample:
        return self.samples.pop(0)


def test_the_listener_measures_top_level_actions_and_keeps_what_broke_the_budget() -> None:
    readings = Readings(sample(9, (3, 0, 0, 0), 0, 40_960, 100.0), sample(9, (3, 0, 2, 2), 4, 41_984, 180.0))
    sampler = StepPerf(readings, Budget(jank_percent=25))  # type: ignore[arg-type]
    steps = Steps()
    steps.add_listener(sampler)
    with steps.step("app.start"), steps.step("tap"):  # the tap is nested: not measured on its own
        pass
    with steps.step("wait_for"):  # not an action: not measured
        pass
    with steps.step("swipe") as swipe:
        pass
    assert [name for name, _ in sampler.measured] == ["app.start", "swipe"]
    assert swipe.measures["perf"]["frames"]["gfxFrameJankPercent"] == 100.0
    assert len(sampler.violations) == 1 and sampler.violations[0].startswith("swipe (measured step 2")
    assert "jank_percent 100 exceeds the budget of 25" in sampler.violations[0]


class PrintedShell:
    """A device whose shell prints `printed` for any command."""

    def __init__(self, printed: str) -> None:
        self.printed = printed

    def shell(self, command: str) -> object:
        from pytest_mobile_agent.adb.shell import ShellOutput

        return ShellOutput(0, self.printed.encode(), b"")


GFX = ("** Graphics info for pid 7 [a.b] **\nTotal frames rendered: 4\nJanky frames: 1 (25.00%)\n"
       "HISTOGRAM: 5ms=3 17ms=1\n")
MEM = " App Summary\n                       Pss(KB)\n           TOTAL PSS:    20480\n"
STAT = "7 (a.b) S 1 1 1 0 -1 4194560 0 0 0 0 30 12 0 0 20 0 1 0 0 0 0\n"


def test_one_command_gives_all_three_readings_whatever_the_line_ends() -> None:
    from pytest_mobile_agent.control.perf.sampler import SECTION, Perf

    for end in ("\n", "\r\n"):
        printed = f"{GFX}{SECTION}\n{MEM}{SECTION}\n7\n{STAT}".replace("\n", end)
        reading = Perf(PrintedShell(printed), "a.b").sample()  # type: ignore[arg-type]
        assert reading.pid == 7 and reading.frames is not None and reading.frames.janky == 1
        assert reading.memory is not None and reading.memory.pss_mb == 20.0 and reading.cpu_ms == 420.0


def test_no_process_is_no_reading() -> None:
    from pytest_mobile_agent.control.perf.sampler import SECTION, Perf

    printed = f"No process found for: a.b\n{SECTION}\nNo process found for: a.b\n{SECTION}\n"
    assert Perf(PrintedShell(printed), "a.b").sample() == Sample(None, None, None, None)  # type: ignore[arg-type]
