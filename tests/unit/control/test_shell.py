"""The device path's commands: a platform shell command's three ways of failing (a status, an
`Error:` line, ShellCommand.exec's exception report with status 0) are each a refusal carrying the
device's words; a read never raises."""

from __future__ import annotations

from typing import Any, cast

import pytest

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.adb.shell import ShellOutput
from pytest_mobile_agent.control import shell
from pytest_mobile_agent.errors import StateRefused


class Answers:
    """A device whose shell answers each command with a given output."""

    def __init__(self, **answers: ShellOutput) -> None:
        self.answers = answers
        self.serial = "emulator-5554"

    def shell(self, command: Any) -> ShellOutput:
        key = command if isinstance(command, str) else " ".join(command)
        return self.answers[key.split()[0]]


def device(output: ShellOutput) -> Device:
    return cast(Device, Answers(cmd=output))


@pytest.mark.parametrize(
    ("output", "words"),
    [
        (ShellOutput(255, b"", b"Error: mode must be 'yes', 'no', or 'auto', or 'custom'\n"), "Error: mode must be"),
        (
            ShellOutput(
                0,
                b"\nException occurred while executing 'providers':\njava.lang.SecurityException: com.android.shell "
                b"from uid 2000 not allowed to perform MOCK_LOCATION\n",
                b"",
            ),
            "not allowed to perform MOCK_LOCATION",
        ),
        (ShellOutput(1, b"", b""), "(exit status 1)"),
    ],
)
def test_a_refusal_keeps_the_devices_words_and_the_advice(output: ShellOutput, words: str) -> None:
    with pytest.raises(StateRefused) as refused:
        shell.run(device(output), ["cmd", "thing"], what="doing it", advice="Do this instead")
    text = str(refused.value)
    assert text.startswith("doing it: the device refused `cmd thing`")
    assert words in text and text.endswith("Do this instead")


def test_a_command_that_worked_gives_its_output_and_a_read_never_raises() -> None:
    assert (
        shell.run(device(ShellOutput(0, b"Night mode: yes\n", b"")), "cmd uimode night yes", what="x")
        == "Night mode: yes"
    )
    assert shell.text(device(ShellOutput(255, b"partial\n", b"Error: x")), "cmd x") == "partial\n"


def test_settle_reads_until_the_value_is_wanted_or_the_time_is_up() -> None:
    values = iter([1, 2, 3, 4])
    assert shell.settle(lambda: next(values), lambda v: v == 3, timeout=5) == 3
    assert shell.settle(lambda: 7, lambda v: v == 3, timeout=0.05) == 7


def test_a_read_back_gives_the_screens_watchers_their_look_between_its_reads() -> None:
    """A state read back (and an activity waited for) used to sleep between its reads, so a watcher
    could not answer the dialog that kept the state from showing; the watchers look between reads."""
    from types import SimpleNamespace

    from pytest_mobile_agent.control.means import Paths
    from pytest_mobile_agent.mirror.steps import Steps

    steps = Steps()
    readings = iter(["prompt", "prompt", "shown"])
    looks: list[str] = []

    def watcher_look() -> bool:
        looks.append("look")
        return True  # it acted: the next read comes at once

    steps.add_poll_hook(watcher_look)
    paths = Paths(cast(Device, Answers()), emulator=False, screen=cast(Any, SimpleNamespace(steps=steps)))
    shown = shell.settle(lambda: next(readings), lambda value: value == "shown", between=paths.between_checks)
    assert shown == "shown" and looks == ["look", "look"]
    assert Paths(cast(Device, Answers()), emulator=False).between_checks() is False  # no screen: nothing to look
