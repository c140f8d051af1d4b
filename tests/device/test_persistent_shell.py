"""Device.persistent_shell: one `sh` for many commands, each result as Device.shell gives it."""

from __future__ import annotations

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import Device

pytestmark = pytest.mark.device

COMMANDS = [
    "echo ok",
    "echo to-stdout; echo to-stderr >&2; false",
    "printf 'no newline at the end'",
    "printf '%s\\n' 'a } brace' \"double \\\"quoted\\\"\" '$HOME stays'",
    "echo first\necho second line of the same command",
    "cat; echo cat-ended",  # stdin is /dev/null: cat ends at once
    "i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done",
    "echo ünïcode ✓",
    "(exit 7)",
    "ls /no/such/path",
]


def test_each_command_gives_what_a_shell_of_its_own_gives(device: Device) -> None:
    with device.persistent_shell() as shell:
        for command in COMMANDS:
            assert shell.run(command) == device.shell(command), command
        assert shell.opened == 1


def test_commands_written_at_once_come_back_in_order(device: Device) -> None:
    with device.persistent_shell() as shell:
        assert shell.run_many(COMMANDS) == [device.shell(command) for command in COMMANDS]
        assert shell.run_many([]) == []


def test_the_shell_keeps_its_state_between_commands(device: Device) -> None:
    with device.persistent_shell() as shell:
        shell.run("cd /data/local/tmp && greeting=hello")
        assert shell.run('pwd; echo "$greeting"').stdout == b"/data/local/tmp\nhello\n"


def test_a_command_that_ends_the_shell_gives_its_status_and_the_next_opens_another(device: Device) -> None:
    with device.persistent_shell() as shell:
        assert shell.run("echo bye; exit 3") == device.shell("echo bye; exit 3")
        assert shell.run("echo again").stdout == b"again\n"
        assert shell.opened == 2
        with pytest.raises(errors.Closed, match=r"exit status 4.*1 commands after it did not run"):
            shell.run_many(["echo one", "exit 4", "echo never"])
        assert shell.run("echo after").stdout == b"after\n"


def test_a_command_past_its_deadline_times_out_and_the_shell_starts_afresh(device: Device) -> None:
    with device.persistent_shell() as shell:
        shell.run("true")
        with pytest.raises(errors.Timeout):
            shell.run("sleep 5", timeout=0.3)
        assert shell.run("echo fresh").stdout == b"fresh\n"
        assert shell.opened == 2


def test_a_nul_in_a_command_is_refused_before_anything_is_sent(device: Device) -> None:
    with device.persistent_shell() as shell:
        with pytest.raises(errors.InvalidArgument):
            shell.run("echo a\x00b")
        assert shell.opened == 0
