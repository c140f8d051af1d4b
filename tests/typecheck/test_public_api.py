"""The package's public face (issue 23, item 1): `from pytest_mobile_agent import Screen, ...` for
every name README's "The public API" lists, and no other; each loaded on first use, so importing
the package loads no layer; the names mypy sees (the `if TYPE_CHECKING:` imports) are the ones
loaded at run time."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

import pytest_mobile_agent
from pytest_mobile_agent.lazy import face_of
from pytest_mobile_agent.mirror.selectors import Selector
from pytest_mobile_agent.mirror.vocabulary import Criteria, DescendantCriteria, FieldCriteria

ROOT = Path(__file__).resolve().parents[2]
INIT = ROOT / "pytest_mobile_agent" / "__init__.py"


def documented_names() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## The public API")
    section = text[start:text.index("\n## ", start + 1)]
    names = []
    for line in section.splitlines():
        if line.startswith("| `"):
            names += re.findall(r"`(\w+)`", line.split(" | ")[0])
    return names


def type_checking_imports() -> dict[str, tuple[str, str]]:
    """name -> (module, attribute) of the imports under `if TYPE_CHECKING:` in __init__.py."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If)
                 and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
    return {alias.asname or alias.name: (node.module, alias.name)
            for node in block.body if isinstance(node, ast.ImportFrom) and node.module
            for alias in node.names}


def test_all_is_the_documented_list() -> None:
    documented = documented_names()
    assert len(documented) == len(set(documented)) > 30
    assert sorted(pytest_mobile_agent.__all__) == sorted(documented)


@pytest.mark.parametrize("name", pytest_mobile_agent.__all__)
def test_every_public_name_resolves_and_is_listed_by_dir(name: str) -> None:
    assert getattr(pytest_mobile_agent, name) is not None
    assert name in dir(pytest_mobile_agent)


def test_what_mypy_sees_is_what_is_loaded() -> None:
    seen = type_checking_imports()
    face = face_of(pytest_mobile_agent)
    assert face is not None
    loaded = {name: (export.module, export.attribute) for name, export in face.exports.items()}
    assert seen == loaded
    assert sorted(loaded) == sorted(set(pytest_mobile_agent.__all__) - {"__version__"})


def test_the_names_are_the_layers_classes() -> None:
    from pytest_mobile_agent import App, Controller, Screen
    from pytest_mobile_agent.control.app_under_test import AppUnderTest
    from pytest_mobile_agent.emulator.controller import Controller as EmulatorController
    from pytest_mobile_agent.errors import NoMatch
    from pytest_mobile_agent.mirror.mirror import Mirror

    assert (Screen, App, Controller) == (Mirror, AppUnderTest, EmulatorController)
    assert pytest_mobile_agent.NoMatch is NoMatch


def test_host_gate_left_the_face_and_still_imports_with_a_deprecation_warning() -> None:
    """The suite's own gate is not a user's name (issue 38, item 5); the `host_gate` fixture stays,
    its type importable from the plugin, and the old import warns where it is written."""
    from pytest_mobile_agent.plugin.gates import HostGate

    assert "HostGate" not in pytest_mobile_agent.__all__
    assert "HostGate" not in dir(pytest_mobile_agent)
    with pytest.warns(DeprecationWarning, match="pytest_mobile_agent.plugin.gates.HostGate") as warned:
        from pytest_mobile_agent import HostGate as old  # type: ignore[attr-defined]
    assert old is HostGate
    assert {Path(w.filename).name for w in warned} == {Path(__file__).name}


def test_an_unknown_name_is_an_attribute_error_and_submodules_still_import() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'Mirror'"):
        pytest_mobile_agent.Mirror  # noqa: B018 - the attribute access is the test
    from pytest_mobile_agent import errors

    assert errors.NoMatch is pytest_mobile_agent.NoMatch


def test_importing_the_package_loads_no_layer() -> None:
    code = ("import sys, pytest_mobile_agent; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('grpc', 'numpy', 'PIL', 'rapidfuzz') or m.startswith('pytest_mobile_agent.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "['pytest_mobile_agent._version', 'pytest_mobile_agent.lazy']"


def test_the_criteria_types_name_every_selector_criterion() -> None:
    criteria = {f.name for f in fields(Selector)}
    assert set(Criteria.__optional_keys__) == criteria and not Criteria.__required_keys__
    assert set(DescendantCriteria.__optional_keys__) == criteria - {"within"}
    assert set(FieldCriteria.__optional_keys__) == criteria - {"text"}
