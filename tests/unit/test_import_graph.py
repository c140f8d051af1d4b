"""No import circle: the import graph of the package (grimp's, the engine under import-linter,
imports under TYPE_CHECKING included) has no strongly connected component of more than one module.

`CHECKED` names the packages held to it; the whole package is `pytest_mobile_agent`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import grimp
import pytest

PACKAGE = "pytest_mobile_agent"
#: the packages whose modules must import no circle among them
CHECKED = ("pytest_mobile_agent",)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(PACKAGE, include_external_packages=False)


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def circles(graph: grimp.ImportGraph, prefix: str) -> list[list[str]]:
    """The strongly connected components of more than one module among `prefix`'s modules
    (Tarjan's algorithm over grimp's direct imports)."""
    modules = sorted(m for m in graph.modules if within(m, prefix))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def successors(module: str) -> Iterator[str]:
        return (m for m in graph.find_modules_directly_imported_by(module) if within(m, prefix))

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in successors(module):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(modules) + 100))
    try:
        for module in modules:
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return found


@pytest.mark.parametrize("prefix", CHECKED)
def test_no_module_imports_itself_through_others(graph: grimp.ImportGraph, prefix: str) -> None:
    assert circles(graph, prefix) == []


def test_a_circle_is_found() -> None:
    """The check itself: a planted circle (a -> b -> c -> a) is reported, a chain is not."""
    planted = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d"):
        planted.add_module(name)
    planted.add_import(importer="pkg.a", imported="pkg.b")
    planted.add_import(importer="pkg.b", imported="pkg.c")
    planted.add_import(importer="pkg.c", imported="pkg.a")
    planted.add_import(importer="pkg.d", imported="pkg.a")
    assert circles(planted, "pkg") == [["pkg.a", "pkg.b", "pkg.c"]]
