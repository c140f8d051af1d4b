"""README's two commands on a PEP 668-managed system Python (as Debian's and Ubuntu's are), which
refuses `pip install` outside a venv: simulated by a throwaway copy of this interpreter with an
EXTERNALLY-MANAGED file in its stdlib. Costly: the examples env is built and run for real (about
30 s with pip's cache warm, longer cold; it needs the package index)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.acceptance.support import REPO, copy_tree, managed_python, run

pytestmark = pytest.mark.acceptance


def readme_commands() -> list[str]:
    """The command lines of README's first shell block, comments dropped."""
    text = (REPO / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert block, "README.md starts with a ```sh block of its two commands"
    return [line.split("#", 1)[0].strip() for line in block[1].splitlines() if line.strip()]


def test_readme_names_two_commands_and_ci_runs_the_same() -> None:
    commands = readme_commands()
    assert len(commands) == 2 and all(c.startswith("python3 ") for c in commands), commands
    ci = (REPO / ".ci" / "run").read_text()
    for command in commands:
        assert command in ci, f".ci/run runs {command!r} as README says"


def _environment(python: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOX_", "VIRTUAL_ENV", "PYTHONPATH", "PYTEST_"))}
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.mark.parametrize(
    "ensurepip", [False, True], ids=["no ensurepip (Debian without python3-venv)", "with ensurepip"]
)
def test_the_managed_interpreter_refuses_pip_install(tmp_path: Path, ensurepip: bool) -> None:
    python = managed_python(tmp_path / "python", ensurepip=ensurepip)
    refused = run([str(python), "-m", "pip", "install", "tox"], timeout=120)
    assert refused.returncode != 0 and "externally-managed-environment" in refused.stdout + refused.stderr
    tree = copy_tree(tmp_path / "tree")
    done = run(["python3", "bootstrap.py", "--version"], cwd=tree, env=_environment(python), timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^\d+\.\d+", done.stdout), "tox ran from the venv bootstrap.py made"


def test_readmes_commands_work_on_a_pep_668_system_python(tmp_path: Path) -> None:
    python = managed_python(tmp_path / "python", ensurepip=False)
    tree = copy_tree(tmp_path / "tree")
    examples, tests = readme_commands()
    done = run(examples.split(), cwd=tree, env=_environment(python), timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert re.search(r"\d+ passed", done.stdout), done.stdout[-2000:]
    # the second builds its env; its suite is the one running this test, so it is not run again here
    done = run([*tests.split(), "--notest"], cwd=tree, env=_environment(python), timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    listed = run([str(tree / ".venv" / "bin" / "tox"), "-e", "examples", "--showconfig", "-qq"], cwd=tree,
                 env=_environment(python), timeout=300)
    assert re.search(r"^extras\s*=\s*$", listed.stdout, re.M), "the examples env installs no dev extras"
