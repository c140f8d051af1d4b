"""Leaks and soak, bounded to a few seconds (the full soak is benches/soak.py: 200 attach/stop cycles
and 1,000 snapshot+tap cycles). Threads, file descriptors and traced memory are measured before and
after, the device checked for agents, processes and sockets left: no growth beyond a small fixed
bound (one leaked thread, descriptor or AgentCore per cycle would exceed it)."""

from __future__ import annotations

import importlib.util
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.lab import Bench

ATTACH_CYCLES = 40
TAP_CYCLES = 150
# bounds for these short runs: fixed, well under what one leak per cycle would add
BOUNDS = {"threads": 1, "fds": 2, "traced_kib": 512, "device_processes": 0, "device_sockets": 0, "agents_left": 0}


@pytest.fixture(scope="module")
def soak() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benches" / "soak.py"
    spec = importlib.util.spec_from_file_location("soak_bench", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def traced() -> Iterator[None]:
    tracemalloc.start()
    try:
        yield
    finally:
        tracemalloc.stop()


def _check(soak: ModuleType, vd: Bench, cycles, count: int) -> None:  # noqa: ANN001
    before, after, times = soak.run_phase(vd, "", cycles, count, warmup=3)
    assert len(times) == count
    growth = after.growth(before)
    over = {name: (growth[name], bound) for name, bound in BOUNDS.items() if growth[name] > bound}
    assert not over, f"grew past the bound: {over}; before {before}, after {after}"
    leaked = soak.leaked_per_cycle(before.instances, after.instances, count)
    assert not leaked, f"classes that gained an instance per cycle: {leaked}"
    assert after.agents_left == 0, "no agent is left on the device"


def test_attach_stop_cycles_leave_no_thread_descriptor_memory_or_agent_behind(soak, vd: Bench, traced) -> None:
    _check(soak, vd, soak.attach_stop_cycles, ATTACH_CYCLES)


def test_snapshot_and_tap_cycles_leave_no_thread_descriptor_memory_or_agent_behind(soak, vd: Bench, traced) -> None:
    _check(soak, vd, soak.snapshot_tap_cycles, TAP_CYCLES)
