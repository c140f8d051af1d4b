"""What measuring the app costs per step (issue 39): the `perf` fixture's per-step reading
(`Perf.sample()`: `dumpsys gfxinfo`, `dumpsys meminfo` and the app's /proc/PID/stat in one shell
command, then parsed) after each action, on the virtual device through its built-in adb endpoint,
with the fixture app on the smooth List and on the janky Feed; and each of frames(), memory(), cpu()
on its own. Budget (docs/performance.md): a perf sample at most 50 ms per step.

    python3 benches/bench_perf_sample.py [--runs 40]
"""

from __future__ import annotations

import argparse

from timing import stamp, summary, timed

from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.control.app_under_test import AppUnderTest
from pytest_mobile_agent.control.perf.sampler import Perf
from pytest_mobile_agent.control.perf.step_sampling import StepPerf
from pytest_mobile_agent.mirror.steps import Step
from pytest_mobile_agent.virtual import VirtualLab

PACKAGE = "dev.mobileagent.fixture"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    runs = parser.parse_args().runs
    print(stamp())
    lab = VirtualLab.start(1)
    try:
        device = AdbServer(host="127.0.0.1", port=lab.adb_port).device(lab.serials[0])
        perf = Perf(device, PACKAGE)
        for tab in ("List", "Feed"):
            AppUnderTest(device, PACKAGE, ".MainActivity").start(extras={"tab": tab})
            sampler = StepPerf(perf)

            def one_step(sampler: StepPerf = sampler) -> None:
                sampler.step_ended(Step("swipe", {}, 0, 0.0, 0.0))

            print(f"{tab}: a step's reading (sample, parse, deltas): {summary(timed(one_step, runs))}")
        print(f"frames() with framestats: {summary(timed(perf.frames, runs))}")
        print(f"memory(): {summary(timed(perf.memory, runs))}")
        print(f"cpu(): {summary(timed(perf.cpu, runs))}")
    finally:
        lab.stop()


if __name__ == "__main__":
    main()
