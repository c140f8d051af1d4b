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


# --- benches/micro_instructions.py: the same benchmarks counted in instructions -------------------

import micro_instructions  # noqa: E402


def test_instructions_per_call_are_the_difference_between_two_runs_and_past_the_limit_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    base, head = tmp_path / "base", tmp_path / "head"
    per_call = {("base", "apply_573"): 1000, ("head", "apply_573"): 1200, ("base", "parse_573"): 500,
                ("head", "parse_573"): 450}
    monkeypatch.setattr(micro_instructions, "instructions",
                        lambda tree, name, times, python: 9_000_000 + per_call[tree.name, name] * times)
    monkeypatch.setattr(micro_instructions.shutil, "which", lambda name: "/usr/bin/valgrind")
    monkeypatch.setattr(sys, "argv", ["micro_instructions.py", "--base", str(base), "--head", str(head),
                                      "--only", "apply_573", "parse_573"])
    assert micro_instructions.main() == 1
    out = capsys.readouterr().out
    assert "apply_573                         1,000            1,200   1.20x  PAST THE LIMIT" in out
    assert "parse_573                           500              450   0.90x\n" in out


def test_a_run_that_valgrind_did_not_count_is_an_error_naming_the_benchmark(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    class Done:
        returncode, stderr = 1, "ModuleNotFoundError: No module named 'micro'"

    monkeypatch.setattr(micro_instructions.subprocess, "run", lambda *args, **kwargs: Done())
    with pytest.raises(SystemExit, match="apply_573 in .* did not run under valgrind .exit 1.:\nModuleNotFound"):
        micro_instructions.instructions(tmp_path, "apply_573", 3, sys.executable)


# --- benches/micro_pairs.py: the two trees timed pair after pair -------------------------------------

import micro_pairs  # noqa: E402


def test_a_pairs_ratios_are_head_over_base_for_the_benchmarks_both_ran() -> None:
    base, head = suite(frame_hash=2e-5, parse_573=1e-3), suite(frame_hash=3e-5, parse_573=5e-4, new_one=1.0)
    assert micro_pairs.ratios(base, head) == pytest.approx({"frame_hash": 1.5, "parse_573": 0.5})
