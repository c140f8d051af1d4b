"""The driver's layers import one way: no import circle inside or between adb/, agent/, emulator/,
session/ and mirror/ (issue 23, items 4 and "smaller things"). Checked with grimp on the package's
import graph, imports under `if TYPE_CHECKING:` and inside functions included: a circle an IDE or
a lazy import hides is still a circle to whoever changes the code."""

from __future__ import annotations

import grimp
import pytest

DRIVER = ("adb", "agent", "emulator", "session", "mirror")
GENERATED = "pytest_mobile_agent.emulator._proto"


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("pytest_mobile_agent", cache_dir=None)


def driver_modules(graph: grimp.ImportGraph) -> set[str]:
    return {
        module for layer in DRIVER for module in graph.find_descendants(f"pytest_mobile_agent.{layer}")
        if not module.startswith(GENERATED)
    } | {f"pytest_mobile_agent.{layer}" for layer in DRIVER}


def circles(graph: grimp.ImportGraph, modules: set[str]) -> list[tuple[str, ...]]:
    """Each direct import a -> b among `modules` that b imports back (a chain from b to a), with it."""
    found = []
    for importer in sorted(modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & modules):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                found.append((importer, *back))
    return found


def test_the_driver_has_no_import_circle(graph: grimp.ImportGraph) -> None:
    found = circles(graph, driver_modules(graph))
    assert found == [], "import circles in the driver:\n" + "\n".join(" -> ".join(c) for c in found)


def test_the_check_finds_a_planted_circle() -> None:
    graph = grimp.build_graph("pytest_mobile_agent", cache_dir=None)
    graph.add_import(importer="pytest_mobile_agent.adb.wire", imported="pytest_mobile_agent.adb.device",
                     line_number=1, line_contents="from pytest_mobile_agent.adb.device import Device")
    found = circles(graph, driver_modules(graph))
    assert any(c[:2] == ("pytest_mobile_agent.adb.wire", "pytest_mobile_agent.adb.device") and
               c[-1] == "pytest_mobile_agent.adb.wire" for c in found), found
