"""What `--android-a11y report` costs per step on the 573-node Big tab (issue 39; docs/performance.md,
"Accessibility audits"): the virtual device, the fixture app on its Big tab, a tap on a cell per step
(the cell's selection changes its pixels), then what the per-step audit does after it.

- audit: every rule on the replica's view and the step's screenshot, contrast included, as
  plugin/accessibility.py runs it: the swatches of the crops a step did not change kept from the step
  before (one SwatchCache per screen), and the findings already reported skipped (`known`).
  Budget: at most 10 ms per step (p50), wall and the thread's CPU time both printed (the host is
  shared: the CPU time is the audit's own).
- first audit of a screen: the same with nothing kept (every text and image measured), the cost of
  the step that opens a screen.
- rules without pixels: the view's rules alone.
- screenshot: what the audit reads the pixels from (the device's and the transport's time, beside
  the audit's own): the emulator controller's raw frame (plugin/accessibility.py takes it when it is
  the display's, upright), and the agent's PNG with its decoding (without a controller).

    python3 benches/bench_a11y.py --steps 40
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from timing import summary  # noqa: E402

from pytest_mobile_agent.mirror.a11y.audit import audit, decode_screenshot  # noqa: E402
from pytest_mobile_agent.mirror.a11y.contrast import SwatchCache  # noqa: E402
from pytest_mobile_agent.stack import Settings, open_stack  # noqa: E402

FIXTURE = "dev.mobileagent.fixture/dev.mobileagent.fixture.MainActivity"


def ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def cpu_ms(started: float) -> float:
    """The calling thread's CPU time since `started` (time.thread_time): what the audit itself costs,
    apart from the time the host's other processes take the CPU from it (2 cores shared by a team)."""
    return (time.thread_time() - started) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args(argv)
    with open_stack(Settings.for_target("virtual"), holder="bench") as stack:
        stack.device.shell(f"am start -W -n {FIXTURE} --es tab Big")
        screen = stack.screen
        screen.wait_for(id="cell_500")
        kept = SwatchCache()
        known = {f.key for f in audit(screen.snapshot(), pixels=decode_screenshot(screen.screenshot_png()),
                                      swatches=kept)}
        step_audit, first_audit, no_pixels, shots, step_cpu, first_cpu, raw = [], [], [], [], [], [], []
        controller = stack.session.controller
        nodes = findings = 0
        for step in range(args.steps):
            screen.tap(id=f"cell_{(step * 37) % 500 + 1}")
            started = time.perf_counter()
            pixels = decode_screenshot(screen.screenshot_png())
            view = screen.snapshot()
            shots.append(ms(started))
            if controller is not None:
                started = time.perf_counter()
                frame = controller.screenshot()
                np.frombuffer(frame.data, dtype=np.uint8).reshape(frame.height, frame.width, 3)
                raw.append(ms(started))
            started, cpu = time.perf_counter(), time.thread_time()
            found = audit(view, pixels=pixels, swatches=kept, known=known)
            step_audit.append(ms(started))
            step_cpu.append(cpu_ms(cpu))
            started, cpu = time.perf_counter(), time.thread_time()
            first = audit(view, pixels=pixels, swatches=SwatchCache())
            first_audit.append(ms(started))
            first_cpu.append(cpu_ms(cpu))
            started = time.perf_counter()
            audit(view)
            no_pixels.append(ms(started))
            nodes, findings, new = view.node_count, len(first), len(found)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"Big tab: {nodes} nodes, {findings} findings on it, {new} new at the last step, {args.steps} steps; "
              f"load {load}")
        print(f"  audit, per step                   {summary(step_audit)}")
        print(f"    its CPU time                    {summary(step_cpu)}")
        print(f"  first audit of the screen         {summary(first_audit)}")
        print(f"    its CPU time                    {summary(first_cpu)}")
        print(f"  rules without pixels              {summary(no_pixels)}")
        print(f"  screenshot (agent PNG) + decode   {summary(shots)}")
        if raw:
            print(f"  screenshot (controller raw frame) {summary(raw)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
