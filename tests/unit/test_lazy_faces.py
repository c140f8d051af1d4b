"""The package faces load their names on first use through one helper, `lazy.lazy_exports` (issue 38,
items 2 and 5): no package writes a loader of its own, every face's lazy names are the ones mypy
sees under `if TYPE_CHECKING:`, and importing a client's face loads none of the client."""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import pytest_mobile_agent
from pytest_mobile_agent.lazy import Deprecated, Export, face_of, lazy_exports

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pytest_mobile_agent"


def packages() -> list[str]:
    found = [pytest_mobile_agent.__name__]
    for info in pkgutil.walk_packages(pytest_mobile_agent.__path__, "pytest_mobile_agent."):
        if info.ispkg and "._proto" not in info.name:
            found.append(info.name)
    return found


def faces() -> list[str]:
    return [name for name in packages() if "__getattr__" in (PACKAGE.parent / source_of(name)).read_text()]


def source_of(package: str) -> str:
    return package.replace(".", "/") + "/__init__.py"


def type_checking_names(package: str) -> dict[str, tuple[str, str] | None]:
    """name -> (module, attribute) of each import under the face's `if TYPE_CHECKING:`, and None for
    each name only annotated there (a value computed on first use)."""
    tree = ast.parse((PACKAGE.parent / source_of(package)).read_text(encoding="utf-8"))
    names: dict[str, tuple[str, str] | None] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module:
                    for alias in statement.names:
                        names[alias.asname or alias.name] = (statement.module, alias.name)
                elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                    names[statement.target.id] = None
    return names


def test_no_package_writes_a_loader_of_its_own() -> None:
    """Every module-level `__getattr__` in the package is the one helper's."""
    hand_written = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.FunctionDef) and node.name in {"__getattr__", "__dir__"} for node in tree.body):
            hand_written.append(str(path.relative_to(ROOT)))
    assert hand_written == []


def test_the_faces_are_found() -> None:
    assert {"pytest_mobile_agent", "pytest_mobile_agent.adb", "pytest_mobile_agent.agent",
            "pytest_mobile_agent.emulator", "pytest_mobile_agent.mirror", "pytest_mobile_agent.control",
            "pytest_mobile_agent.stack", "pytest_mobile_agent.virtual"} <= set(faces())


@pytest.mark.parametrize("package", faces())
def test_a_face_lazily_loads_what_mypy_sees(package: str) -> None:
    module = importlib.import_module(package)
    face = face_of(module)
    assert face is not None, f"{package} defines __getattr__ without lazy.lazy_exports"
    seen = type_checking_names(package)
    loaded = {name: None if export.called else (export.module, export.attribute)
              for name, export in face.exports.items()}
    assert {name: seen.get(name, "missing") for name in loaded} == loaded
    assert set(face.exports) <= set(module.__all__)


@pytest.mark.parametrize("package", faces())
def test_every_name_a_face_lists_resolves_and_is_in_dir(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None
        assert name in dir(module)


@pytest.mark.parametrize("package", ["pytest_mobile_agent.adb", "pytest_mobile_agent.agent",
                                     "pytest_mobile_agent.emulator"])
def test_importing_a_client_face_loads_none_of_the_client(package: str) -> None:
    code = (f"import json, sys, {package}; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('pytest_mobile_agent'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert json.loads(out.stdout) == sorted(["pytest_mobile_agent", "pytest_mobile_agent._version",
                                             "pytest_mobile_agent.lazy", package])


def test_a_submodule_still_imports_through_a_lazy_face() -> None:
    from pytest_mobile_agent.agent import protocol

    assert protocol.__name__ == "pytest_mobile_agent.agent.protocol"


def fake_package(exports: dict[str, str], deprecated: dict[str, Deprecated] | None = None) -> ModuleType:
    package = ModuleType("fake_face")
    package.__getattr__, package.__dir__ = lazy_exports(vars(package), exports,  # type: ignore[method-assign]
                                                        deprecated)
    return package


def test_a_name_loads_on_first_use_and_is_kept() -> None:
    package = fake_package({"dumps": "json", "joined": "os.path:join", "here": "os:getcwd()"})
    assert "dumps" not in vars(package)
    assert package.dumps is json.dumps
    assert vars(package)["dumps"] is json.dumps
    assert package.joined("a", "b") == str(Path("a") / "b")
    assert package.here == str(Path.cwd())
    assert dir(package)[-3:] == ["dumps", "here", "joined"]


def test_a_deprecated_name_loads_with_a_warning_on_every_use_and_is_not_listed() -> None:
    package = fake_package({"dumps": "json"}, {"loads": Deprecated("json", "use json.loads")})
    for _ in range(2):  # never kept in the package, so the second use warns too
        with pytest.warns(DeprecationWarning, match=r"fake_face\.loads is deprecated .*: use json\.loads"):
            assert package.loads is json.loads
    assert "loads" not in vars(package)
    assert "loads" not in dir(package)


def test_a_name_both_exported_and_deprecated_is_refused() -> None:
    with pytest.raises(ValueError, match=r"\['dumps'\] both exported and deprecated"):
        fake_package({"dumps": "json"}, {"dumps": Deprecated("json", "")})


def test_an_unknown_name_is_an_attribute_error_naming_the_package() -> None:
    package = fake_package({"dumps": "json"})
    with pytest.raises(AttributeError, match="module 'fake_face' has no attribute 'loads'"):
        package.loads  # noqa: B018 - the attribute access is the test


@pytest.mark.parametrize(("spec", "expected"), [
    ("pkg.module", Export("pkg.module", "Name")),
    ("pkg.module:Other", Export("pkg.module", "Other")),
    ("pkg.module:make()", Export("pkg.module", "make", called=True)),
])
def test_an_export_is_a_module_an_attribute_or_a_call(spec: str, expected: Export) -> None:
    assert Export.parse("Name", spec) == expected


@pytest.mark.parametrize("spec", ["", ":Name", "pkg.module:not an identifier", "pkg.module:()"])
def test_a_malformed_export_names_the_form_it_should_have(spec: str) -> None:
    with pytest.raises(ValueError, match=r"'package\.module\[:attribute\[\(\)\]\]'"):
        Export.parse("Name", spec)
