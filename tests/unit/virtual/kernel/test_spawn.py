"""Spawning a host tool from a thread of its own: the child gets the thread's working directory
and identity and only its three pipes; the rest of the process keeps its own."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mobile_agent.virtual.kernel import spawn

pytestmark = pytest.mark.skipif(not spawn.available(), reason="needs Linux (posix_spawn, unshare)")

SH = "/bin/sh"


def _run(script: str, cwd: Path, *, identity: int | None = None,
         prepare: Callable[[], None] | None = None) -> tuple[int, str]:
    child = spawn.spawn(["sh", "-c", script], SH, cwd=str(cwd), env={"PATH": "/usr/bin:/bin"}, identity=identity,
                        prepare=prepare)
    child.stdin.close()
    out = child.stdout.read().decode()
    child.stdout.close()
    child.stderr.close()
    return child.wait(), out


def test_the_child_runs_in_its_directory_and_the_process_stays_in_its_own(tmp_path: Path) -> None:
    before = os.getcwd()
    assert _run("pwd; exit 3", tmp_path) == (3, f"{tmp_path}\n")
    assert os.getcwd() == before


def test_no_inheritable_descriptor_but_the_three_pipes_reaches_the_child(tmp_path: Path) -> None:
    leaked = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(leaked, True)
    try:
        _, out = _run("ls /proc/self/fd", tmp_path)
    finally:
        os.close(leaked)
    assert sorted(int(fd) for fd in out.split()) == [0, 1, 2, 3]  # 3: ls's own directory


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to change identity")
def test_the_identity_is_the_childs_and_the_process_keeps_its_own(tmp_path: Path) -> None:
    os.chown(tmp_path, 65534, 65534)
    assert _run("id -u; id -g; id -G", tmp_path, identity=65534) == (0, "65534\n65534\n65534\n")
    assert os.geteuid() == 0 and os.getegid() == 0


def test_prepare_runs_on_the_spawning_thread_and_its_error_reaches_the_caller(tmp_path: Path) -> None:
    def refuse() -> None:
        raise OSError(1, "refused")

    with pytest.raises(OSError, match="refused"):
        _run("true", tmp_path, prepare=refuse)
