"""logcat's -t: the last N lines, or the lines since a time (how failure artifacts cut out a test's run)."""

from __future__ import annotations

import time

from pytest_mobile_agent.virtual.device import VirtualDevice


def logged(shell, command: str) -> list[str]:  # noqa: ANN001 - the conftest's bound ShellClient
    client = shell(command)
    assert client.wait() == 0
    return [line for line in client.stdout.decode().splitlines() if not line.startswith("---")]


def test_logcat_t_n_prints_the_last_n_lines(vdev: VirtualDevice, shell) -> None:  # noqa: ANN001
    for n in range(5):
        vdev.log("Test", f"line {n}")
    lines = logged(shell, "logcat -d -v threadtime -t 2")
    assert [line.split(": ", 1)[1] for line in lines] == ["line 3", "line 4"]


def test_logcat_t_time_prints_the_lines_since_then_and_implies_d(vdev: VirtualDevice, shell) -> None:  # noqa: ANN001
    vdev.log("Test", "before")
    time.sleep(1.05)  # the stamp below is whole seconds, as the artifacts take it
    stamp = shell("date +'%m-%d %H:%M:%S.000'")
    assert stamp.wait() == 0
    since = stamp.stdout.decode().strip()
    vdev.log("Test", "after")
    lines = logged(shell, f"logcat -v threadtime -t '{since}'")
    assert [line.split(": ", 1)[1] for line in lines] == ["after"]
