"""The layer rules of pyproject.toml's import-linter contracts hold, and each catches a planted import.

`lint-imports` runs them in tox's lint env; here they run on the package as it is, then on a copy with
one bad import planted, which must break exactly the contract that forbids it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter")

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS = {
    "driver-layers": "the driver's layers run bottom to top",
    "double-behind-one-seam": "the driver reaches the double only through the seam that starts it",
    "double-imports-formats": "the double loads only the shared wire formats and errors",
    "double-layers": "the double's rooms run bottom to top",
}


def lint_imports(where: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
               "sys.exit(lint_imports_command())", "--no-cache"]
    return subprocess.run(command, cwd=where, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(where), "PATH": "/usr/bin:/bin"})


def verdicts(output: str) -> dict[str, str]:
    found = {}
    for contract_id, name in CONTRACTS.items():
        for line in output.splitlines():
            if line.startswith(name + " "):
                found[contract_id] = line.rsplit(" ", 1)[1]
    return found


def test_every_contract_is_kept_by_the_package() -> None:
    result = lint_imports(ROOT)
    assert verdicts(result.stdout) == dict.fromkeys(CONTRACTS, "KEPT"), result.stdout + result.stderr
    assert result.returncode == 0


@pytest.mark.parametrize(("module", "planted", "broken"), [
    ("mirror/selectors.py", "import pytest_mobile_agent.virtual.lab", "double-behind-one-seam"),
    ("virtual/lab.py", "import pytest_mobile_agent.session.session", "double-imports-formats"),
    # the allow-list refuses a driver module it does not name, client or not
    ("virtual/kernel/streams.py", "import pytest_mobile_agent.arguments", "double-imports-formats"),
    # a face that loads its client is loaded with the format below it (issue 38, item 2)
    ("adb/__init__.py", "import pytest_mobile_agent.adb.server", "double-imports-formats"),
    ("agent/__init__.py", "from pytest_mobile_agent.agent.deploy import Deployer", "double-imports-formats"),
    ("emulator/__init__.py", "import pytest_mobile_agent.emulator.controller", "double-imports-formats"),
    ("virtual/kernel/fs.py", "import pytest_mobile_agent.virtual.ui.model", "double-layers"),
    ("virtual/shell/state.py", "import pytest_mobile_agent.virtual.adbd.daemon", "double-layers"),
    ("virtual/ui/model.py", "import pytest_mobile_agent.virtual.programs.input", "double-layers"),
    ("virtual/agent/server.py", "import pytest_mobile_agent.virtual.fronts.console", "double-layers"),
    ("virtual/fronts/console.py", "import pytest_mobile_agent.virtual.device", "double-layers"),
    ("virtual/device.py", "import pytest_mobile_agent.virtual.lab", "double-layers"),
    ("adb/wire.py", "import pytest_mobile_agent.session.session", "driver-layers"),
    ("session/path_selection.py", "import pytest_mobile_agent.control.app_under_test", "driver-layers"),
    # the automation lock is below every room that takes it: it opens none of them (issue 38, item 5)
    ("automation_lock.py", "import pytest_mobile_agent.adb.targets", "driver-layers"),
    ("cli/doctor.py", "import pytest_mobile_agent.plugin.fixtures", "driver-layers"),
])
def test_a_planted_import_breaks_the_contract_that_forbids_it(tmp_path: Path, module: str, planted: str,
                                                              broken: str) -> None:
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "tests" / "support").mkdir(parents=True)  # the project's own contract type
    for init in ("tests/__init__.py", "tests/support/__init__.py", "tests/support/import_contracts.py"):
        shutil.copy(ROOT / init, tmp_path / init)
    shutil.copytree(ROOT / "pytest_mobile_agent", tmp_path / "pytest_mobile_agent",
                    ignore=shutil.ignore_patterns("__pycache__", "static", "agent-android"))
    target = tmp_path / "pytest_mobile_agent" / module
    target.write_text(target.read_text() + f"\n{planted}  # planted by the test\n")
    result = lint_imports(tmp_path)
    found = verdicts(result.stdout)
    assert found[broken] == "BROKEN", result.stdout
    assert result.returncode != 0
