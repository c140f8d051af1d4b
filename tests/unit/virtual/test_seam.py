"""The double's seam at run time (issue 38, item 2): importing the virtual device, or starting a lab,
loads no module of the driver's clients, only the shared formats pyproject.toml's allow-list
(`double-imports-formats`) names and the packages above them.

`lint-imports` checks the same on the import graph; this checks what Python really loads, in a fresh
interpreter, so a package face that imports its client (as `adb/__init__.py` once did, loading the
whole adb client with `adb.wire`) is seen here too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10 has no tomllib; pip vendors tomli
    tomllib = pytest.importorskip("tomli")

#: the driver's clients and everything above them: none may be loaded by the double
CLIENTS = (
    "pytest_mobile_agent.adb.server", "pytest_mobile_agent.adb.device", "pytest_mobile_agent.adb.connection",
    "pytest_mobile_agent.adb.shell", "pytest_mobile_agent.adb.sync", "pytest_mobile_agent.adb.packages",
    "pytest_mobile_agent.adb.targets", "pytest_mobile_agent.adb.address",
    "pytest_mobile_agent.agent.connection", "pytest_mobile_agent.agent.deploy", "pytest_mobile_agent.agent.jar",
    "pytest_mobile_agent.agent.launch", "pytest_mobile_agent.agent.records", "pytest_mobile_agent.agent.builder",
    "pytest_mobile_agent.emulator.controller", "pytest_mobile_agent.emulator.endpoint",
    "pytest_mobile_agent.emulator.frame", "pytest_mobile_agent.emulator.hardware",
    "pytest_mobile_agent.emulator.proto_source",
    "pytest_mobile_agent.session", "pytest_mobile_agent.mirror", "pytest_mobile_agent.stack",
    "pytest_mobile_agent.plugin", "pytest_mobile_agent.control", "pytest_mobile_agent.cli",
)

IMPORT_THE_LAB = "import pytest_mobile_agent.virtual.lab"
IMPORT_EVERY_MODULE = """
import importlib, pkgutil
import pytest_mobile_agent.virtual as double
for found in pkgutil.walk_packages(double.__path__, double.__name__ + "."):
    if not found.name.endswith("__main__"):
        importlib.import_module(found.name)
"""
START_A_LAB = """
from pytest_mobile_agent.virtual.lab import VirtualLab
lab = VirtualLab.start(count=1)
try:
    assert lab.device(lab.serials[0]).ui is not None
finally:
    lab.stop()
"""


def loaded_by(code: str) -> list[str]:
    """The package's modules outside the double that a fresh interpreter has loaded after `code`."""
    report = ("\nimport json, sys\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith("
              "'pytest_mobile_agent') and not m.startswith('pytest_mobile_agent.virtual'))))")
    result = subprocess.run([sys.executable, "-c", code + report], cwd=ROOT, capture_output=True,
                            text=True, timeout=120, check=True)
    loaded: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return loaded


def allow_list() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in project["tool"]["importlinter"]["contracts"] if c["id"] == "double-imports-formats")
    allowed: list[str] = contract["allowed_modules"]
    return allowed


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def outside_the_allow_list(loaded: list[str]) -> list[str]:
    """The loaded modules neither on the allow-list (or below one) nor a package above one."""
    allowed = allow_list()
    return [m for m in loaded if not any(within(m, a) or within(a, m) for a in allowed)]


@pytest.mark.parametrize("code", [IMPORT_THE_LAB, IMPORT_EVERY_MODULE, START_A_LAB],
                         ids=["import-the-lab", "import-every-module", "start-a-lab"])
def test_the_double_loads_no_client_module(code: str) -> None:
    loaded = loaded_by(code)
    assert [m for m in loaded if any(within(m, client) for client in CLIENTS)] == []
    assert outside_the_allow_list(loaded) == []
    assert "pytest_mobile_agent.adb.wire" in loaded  # the check sees the formats the double does load


def test_the_allow_list_check_sees_a_client() -> None:
    """The check itself: a client module is outside the allow-list, a format and its package are not."""
    assert outside_the_allow_list(["pytest_mobile_agent.adb", "pytest_mobile_agent.adb.wire",
                                   "pytest_mobile_agent.emulator._proto.emulator_controller_pb2",
                                   "pytest_mobile_agent.adb.server"]) == ["pytest_mobile_agent.adb.server"]
