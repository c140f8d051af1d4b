"""The package's version is written once (issue 23, item 8): pyproject.toml reads it from
`pytest_mobile_agent/_version.py`, and the host's `welcome` names the host with it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import pytest_mobile_agent
from pytest_mobile_agent.agent import protocol
from tests.support.scripted_agent import TOKEN, AgentIdentity

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "pytest_mobile_agent"

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10 has no tomllib; pip vendors tomli
    tomllib = pytest.importorskip("tomli")


def test_pyproject_reads_the_version_from_the_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "pytest_mobile_agent._version.__version__"}


def test_the_hosts_welcome_names_the_package_version() -> None:
    session = protocol.HostSession(token=TOKEN)
    session.start(0.0)
    session.take_outgoing()
    session.receive(protocol.encode(AgentIdentity().hello()), 0.1)
    (welcome,) = protocol.FrameDecoder().feed(session.take_outgoing())
    assert welcome["host"] == "pytest-mobile-agent " + pytest_mobile_agent.__version__


def test_no_module_but_the_version_module_assigns_the_version() -> None:
    """Docstrings may quote a version; a value that holds it is assigned in `_version.py` only."""
    version = pytest_mobile_agent.__version__
    writers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str) and version in value.value:
                writers.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno}")
    assert writers == ["pytest_mobile_agent/_version.py:6"]
