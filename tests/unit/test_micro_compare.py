"""benches/micro.py --compare: each figure as a ratio to the baseline, failing past 1.5x unless
report-only."""

from __future__ import annotations

import sys
from pathlib import Path

import pyperf
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benches"))

import micro  # noqa: E402


def suite(**medians: float) -> pyperf.BenchmarkSuite:
    return pyperf.BenchmarkSuite([
        pyperf.Benchmark([pyperf.Run([value, value], metadata={"name": name, "loops": 1, "hostname": "here"},
                                     collect_metadata=False)])
        for name, value in medians.items()
    ])


@pytest.mark.parametrize(("now", "report_only", "code"), [
    (1.4, False, 0), (1.6, False, 1), (1.6, True, 0),
])
def test_a_figure_past_the_limit_fails_unless_report_only(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          now: float, report_only: bool, code: int) -> None:
    baseline = tmp_path / "baseline.json"
    suite(frame_hash=1e-5, parse_573=1e-3).dump(str(baseline))
    assert micro.compare(suite(frame_hash=now * 1e-5, parse_573=1e-3), baseline, report_only) == code
    out = capsys.readouterr().out
    assert "frame_hash" in out and f"{now:.2f}x" in out and "parse_573" in out and " 1.00x" in out
    assert ("PAST THE LIMIT" in out) is (now > micro.LIMIT)


def test_a_benchmark_missing_from_the_baseline_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = tmp_path / "baseline.json"
    suite(frame_hash=1e-5).dump(str(baseline))
    assert micro.compare(suite(frame_hash=1e-5, shell_decode=1e-4), baseline, False) == 0
    assert "shell_decode           not in the baseline" in capsys.readouterr().out
