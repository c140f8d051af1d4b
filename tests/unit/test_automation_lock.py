"""The automation lock serialises holders across processes and says whom a waiter waits for."""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from pathlib import Path

import pytest

from pytest_mobile_agent.automation_lock import AutomationLock
from pytest_mobile_agent.errors import Timeout


def _hold(directory: str, serial: str, test_id: str, seconds: float, out: str) -> None:
    lock = AutomationLock(serial, Path(directory))
    with lock.held(test_id, timeout=30):
        entered = time.monotonic()
        time.sleep(seconds)
        left = time.monotonic()
    Path(out).write_text(json.dumps([entered, left]))


def test_holders_in_separate_processes_never_overlap(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    outs = [tmp_path / f"out{i}.json" for i in range(3)]
    procs = [
        ctx.Process(target=_hold, args=(str(tmp_path), "emulator-5554", f"t{i}", 0.2, str(out)))
        for i, out in enumerate(outs)
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(30)
        assert proc.exitcode == 0
    spans = sorted(json.loads(out.read_text()) for out in outs)
    for (_, first_left), (second_entered, _) in zip(spans, spans[1:], strict=False):
        assert second_entered >= first_left


def test_a_waiter_names_the_holder_and_gives_up_at_its_timeout(tmp_path: Path) -> None:
    holder = AutomationLock("emulator-5554", tmp_path)
    waiter = AutomationLock("emulator-5554", tmp_path)
    messages: list[str] = []
    ctx = multiprocessing.get_context("spawn")
    out = tmp_path / "holder.json"
    proc = ctx.Process(target=_hold, args=(str(tmp_path), "emulator-5554", "tests/test_a.py::test_x", 2.5, str(out)))
    proc.start()
    try:
        deadline = time.monotonic() + 10
        while holder.holder() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert holder.holder() is not None
        with (
            pytest.raises(Timeout) as caught,
            waiter.held("tests/test_b.py::test_y", timeout=1.2, on_wait=messages.append),
        ):
            pass
        assert "tests/test_a.py::test_x" in str(caught.value)
        assert caught.value.is_timeout()
        assert messages and "tests/test_a.py::test_x" in messages[0] and "emulator-5554" in messages[0]
    finally:
        proc.join(30)


def test_serials_do_not_share_a_lock(tmp_path: Path) -> None:
    first = AutomationLock("emulator-5554", tmp_path)
    second = AutomationLock("emulator-5556", tmp_path)
    with first.held("a", timeout=1), second.held("b", timeout=1) as waited:
        assert waited < 1


def test_a_hostile_serial_stays_inside_the_lock_directory(tmp_path: Path) -> None:
    lock = AutomationLock("../../etc/passwd\n$(id)", tmp_path)
    assert lock.lock_path.parent == tmp_path
    with lock.held("t", timeout=1):
        holder = lock.holder()
        assert holder is not None and holder["test"] == "t" and holder["pid"] == os.getpid()
    assert lock.holder() is None


@pytest.mark.parametrize(("one", "other"), [("a:b", "a_b"), ("x y", "x_y"), ("é", "_")])
def test_two_serials_that_differ_in_an_escaped_character_never_share_a_lock(
    tmp_path: Path, one: str, other: str
) -> None:
    first, second = AutomationLock(one, tmp_path), AutomationLock(other, tmp_path)
    assert first.lock_path != second.lock_path and first.holder_path != second.holder_path


def _hold_until_told(directory: str, serial: str, ready: str, release: str) -> None:
    lock = AutomationLock(serial, Path(directory))
    with lock.held("tests/test_other.py::test_holds", timeout=30):
        Path(ready).touch()
        deadline = time.monotonic() + 30
        while not Path(release).exists() and time.monotonic() < deadline:
            time.sleep(0.02)


def test_a_free_lock_file_is_removed_and_a_held_one_is_kept(tmp_path: Path) -> None:
    free = AutomationLock("emulator-5554", tmp_path, server="127.0.0.1:40001")
    with free.held("tests/test_a.py::test_x", timeout=5):
        pass
    assert free.lock_path.exists()  # filelock leaves the file on release: this is what piled up
    assert free.remove_if_free() and not free.lock_path.exists()

    ready, release = tmp_path / "ready", tmp_path / "release"
    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(target=_hold_until_told, args=(str(tmp_path), "emulator-5556", str(ready), str(release)))
    proc.start()
    try:
        deadline = time.monotonic() + 20
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        held = AutomationLock("emulator-5556", tmp_path)
        assert not held.remove_if_free()  # another process holds it: the file stays
        assert held.lock_path.exists()
    finally:
        release.touch()
        proc.join(30)
    assert proc.exitcode == 0

