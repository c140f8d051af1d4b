"""README's test command on a busy 2-core machine: tox's test env runs the device suite even when the
first suite failed (and still fails), and README documents the opt-in for the timing gates beside
the command."""

from __future__ import annotations

import configparser
from pathlib import Path

from pytest_mobile_agent.plugin.gates import TIMING_GATES_ENV

REPO = Path(__file__).resolve().parents[2]


def test_the_test_env_runs_its_second_suite_when_the_first_failed() -> None:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(REPO / "tox.ini")
    test_env = tox["testenv:test"]
    assert test_env.getboolean("ignore_errors") is True, "tox keeps going and still fails the env (tox's ignore_errors)"
    commands = [line for line in test_env["commands"].splitlines() if line.strip()]
    assert len(commands) == 2 and "--virtual-adb real" in commands[1]


def test_readme_names_the_timing_gates_opt_in_beside_its_test_command() -> None:
    readme = (REPO / "README.md").read_text()
    command = readme.index("python3 bootstrap.py -e test")
    opt_in = readme.index(f"{TIMING_GATES_ENV}=on python3 bootstrap.py -e test")
    assert 0 < opt_in - command < 2000, "the opt-in is documented beside the command"
