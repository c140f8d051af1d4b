"""An unwritable records directory leaves no stray agent (issue 13, item 2): a records path that
cannot be written is refused before the launch, naming the path; a write that still fails after it
stops the agent just launched and closes its connection. Five failed attaches leave no thread, no
descriptor and no agent behind, and the next attach launches (no Conflict)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from security.lab import Bench

from pytest_mobile_agent import errors
from pytest_mobile_agent.agent import Launched, Records
from pytest_mobile_agent.agent.records import DirRecords

ATTEMPTS = 5


class FailingWrites(DirRecords):
    """Writable when checked, failing when written: the directory changed in between."""

    def _write(self, record) -> None:  # noqa: ANN001
        raise PermissionError(13, "Permission denied", str(self.path_for(record.serial)))


# As tests/faults/test_soak.py: a fixed bound, well under one leaked thread or descriptor per attempt.
BOUND_THREADS, BOUND_FDS = 1, 2


def _counts() -> tuple[int, int]:
    return threading.active_count(), len(os.listdir("/proc/self/fd"))


def _no_growth(before: tuple[int, int]) -> None:
    threads, fds = _counts()
    assert threads - before[0] <= BOUND_THREADS and fds - before[1] <= BOUND_FDS, (before, (threads, fds))


def _warm_up(vd: Bench) -> None:
    """One attach and stop first: the double's own threads (its endpoint's, the agent double's) start
    with the first use and are no leak."""
    vd.attach().stop()


def _attach_fails_each_time(vd: Bench, records: Records) -> list[errors.RecordsUnwritable]:
    failures = []
    for _ in range(ATTEMPTS):
        with pytest.raises(errors.RecordsUnwritable) as failed:
            vd.deployer(records).attach()
        failures.append(failed.value)
    return failures


def test_a_directory_at_the_record_path_is_refused_before_the_launch(vd: Bench, tmp_path: Path) -> None:
    records = Records.in_dir(tmp_path / "records")
    blocking = records.path_for(vd.serial)
    blocking.mkdir(parents=True)
    _warm_up(vd)
    before = _counts()
    pids = vd.agent_pids()
    failures = _attach_fails_each_time(vd, records)
    assert all(str(blocking) in str(failure) for failure in failures)
    assert vd.agent_pids() == pids  # nothing was launched
    _no_growth(before)
    blocking.rmdir()
    fresh = vd.attach(records)
    assert isinstance(fresh.outcome, Launched)


def test_a_write_failing_after_the_launch_stops_the_agent_and_closes_its_connection(vd: Bench, tmp_path: Path) -> None:
    records = FailingWrites(tmp_path / "records")
    _warm_up(vd)
    before = _counts()
    pids = vd.agent_pids()
    failures = _attach_fails_each_time(vd, records)
    assert all(str(records.path_for(vd.serial)) in str(failure) for failure in failures)
    assert vd.agent_pids() == pids  # each launched agent was stopped
    _no_growth(before)
    fresh = vd.attach(Records.in_dir(tmp_path / "records"))
    assert isinstance(fresh.outcome, Launched)
