"""README's test command on a busy 2-core machine: tox's test env runs the device suite even when the
first suite failed (and still fails), and README documents the opt-in for the timing gates beside
the command."""

from __future__ import annotations

import configparser
import importlib.util
import subprocess
from pathlib import Path
from typing import Any

import pytest

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


def _bootstrap() -> Any:
    spec = importlib.util.spec_from_file_location("bootstrap_under_test", REPO / "bootstrap.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bootstrap_puts_tox_uv_beside_tox_so_the_envs_are_made_with_uv(monkeypatch: pytest.MonkeyPatch) -> None:
    bootstrap = _bootstrap()
    installs: list[list[str]] = []
    monkeypatch.setattr(bootstrap, "_quiet", lambda argv: True)
    monkeypatch.setattr(bootstrap.subprocess, "run",
                        lambda argv, check: installs.append(argv) or subprocess.CompletedProcess(argv, 0))
    bootstrap._install_tox(Path("/venv/bin/python"))
    assert installs == [["/venv/bin/python", "-m", "pip", "install", "--quiet", "tox", "tox-uv"]]


def test_where_tox_uv_cannot_be_installed_bootstrap_installs_tox_alone(monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    bootstrap = _bootstrap()
    installs: list[list[str]] = []

    def run(argv: list[str], check: bool) -> subprocess.CompletedProcess[bytes]:
        installs.append(argv)
        code = 1 if "tox-uv" in argv else 0
        if check and code:
            raise subprocess.CalledProcessError(code, argv)
        return subprocess.CompletedProcess(argv, code)

    monkeypatch.setattr(bootstrap, "_quiet", lambda argv: True)
    monkeypatch.setattr(bootstrap.subprocess, "run", run)
    bootstrap._install_tox(Path("/venv/bin/python"))
    assert installs[-1] == ["/venv/bin/python", "-m", "pip", "install", "--quiet", "tox"]
    assert "tox-uv could not be installed" in capsys.readouterr().err


def test_the_test_env_seeds_pip_for_the_acceptance_tests_that_run_it() -> None:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(REPO / "tox.ini")
    assert tox["testenv:test"].getboolean("uv_seed") is True, "a uv-made env has no pip unless seeded"


def test_the_test_env_lets_python_keep_its_bytecode_for_the_processes_the_suite_starts() -> None:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(REPO / "tox.ini")
    for section in ("testenv", "testenv:test"):
        setenv = tox[section].get("setenv", "") if tox.has_section(section) else ""
        assert "PYTHONDONTWRITEBYTECODE" not in setenv, f"[{section}] makes every inner run compile from source"
