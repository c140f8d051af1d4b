"""An import-linter contract type of the project's own: an allow-list of what a part may load.

import-linter's own types say what a module may *not* import (`forbidden`), who may import it
(`protected`) or how layers stack (`layers`); none says "these modules, and nothing else", and none
counts what Python runs besides the imported module: `from pytest_mobile_agent.adb import wire`
runs `adb/__init__.py` first. The contract `double-imports-formats` (pyproject.toml) is one of
these, so a new driver module is refused until someone allows it, and a package face that loads
its client is caught:

    [[tool.importlinter.contracts]]
    type = "imports_only"
    source_modules = ["pytest_mobile_agent.virtual"]
    allowed_modules = ["pytest_mobile_agent.adb.wire", "pytest_mobile_agent.errors", ...]

What a source module loads, followed as far as it goes: every module it imports (imports under
`TYPE_CHECKING` included: a type the double names is a dependency too), and every package above a
module it loads, whose `__init__` Python runs, with the imports that `__init__` runs (those under
`TYPE_CHECKING` excluded: a lazy face names its client's types for mypy and loads none of them).
Every module reached must be a source module or an allowed one (each with its descendants); a
package reached only as the parent of one passes, but what its `__init__` runs is followed.
Modules outside the root packages are not checked.

pyproject.toml names this module under `contract_types`; lint-imports finds it because it puts the
working directory on `sys.path` (run it from the project's root, as tox's lint env does).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import grimp
from grimp import ImportGraph
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck
from importlinter.domain.helpers import module_expressions_to_modules


@dataclass(frozen=True)
class Step:
    """How a module came to be loaded: imported by `importer` on `lines`, or run as its package."""

    importer: str
    module: str
    lines: tuple[int | None, ...] = ()
    as_package: bool = False

    def describe(self) -> str:
        if self.as_package:
            return f"{self.module} runs first, the package of {self.importer}"
        lines = ", ".join(f"l.{line}" for line in self.lines if line is not None)
        return f"{self.importer} -> {self.module}" + (f" ({lines})" if lines else "")


def within(module: str, packages: frozenset[str]) -> bool:
    parts = module.split(".")
    return any(".".join(parts[:end]) in packages for end in range(1, len(parts) + 1))


def ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(len(parts) - 1, 0, -1)]


class ImportsOnlyContract(Contract):
    """`source_modules` load only themselves and `allowed_modules` (each a package with its
    descendants), directly or through what they load; see the module's docstring."""

    type_name = "imports_only"

    source_modules = fields.SetField(subfield=fields.ModuleExpressionField())
    allowed_modules = fields.SetField(subfield=fields.ModuleExpressionField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        sources = self._names(graph, self.source_modules)
        allowed = self._names(graph, self.allowed_modules)
        run_time = grimp.build_graph(*self.session_options["root_packages"],
                                     exclude_type_checking_imports=True, cache_dir=None)
        refused = Loads(graph, run_time, sources, sources | allowed).refused()
        output.verbose_print(verbose, f"{len(refused)} module(s) loaded outside the allow-list.")
        metadata = {"refused": [(chain[-1].module, [step.describe() for step in chain]) for chain in refused]}
        return ContractCheck(kept=not refused, warnings=[], metadata=metadata)

    def render_broken_contract(self, check: ContractCheck) -> None:
        for module, chain in check.metadata["refused"]:
            output.print_error(f"{module} is not allowed; it is loaded this way:")
            output.new_line()
            for index, step in enumerate(chain):
                output.print_error(("-   " if index == 0 else "    ") + step, bold=False)
            output.new_line()

    @staticmethod
    def _names(graph: ImportGraph, expressions: object) -> frozenset[str]:
        modules = module_expressions_to_modules(graph, expressions)  # type: ignore[arg-type]
        missing = sorted(m.name for m in modules if m.name not in graph.modules)
        if missing:
            raise ValueError(f"Module(s) {', '.join(missing)} do not exist.")
        return frozenset(m.name for m in modules)


class Loads:
    """What the sources load, breadth first, each module with the shortest way it was reached."""

    def __init__(self, graph: ImportGraph, run_time: ImportGraph, sources: frozenset[str],
                 permitted: frozenset[str]) -> None:
        self.graph = graph
        self.run_time = run_time
        self.permitted = permitted
        self.imported: dict[str, Step | None] = {m: None for m in sorted(graph.modules) if within(m, sources)}
        self.run_as_package: dict[str, Step] = {}
        self.queue: deque[Step | str] = deque(self.imported)

    def refused(self) -> list[list[Step]]:
        """The way to each module loaded outside the permitted ones; what a refused module loads
        in turn is not followed."""
        refused: list[list[Step]] = []
        while self.queue:
            item = self.queue.popleft()
            if isinstance(item, str):
                self._follow(item, self.graph)
            elif not item.as_package and not within(item.module, self.permitted):
                refused.append(self._chain(item))
            elif item.as_package and not within(item.module, self.permitted):
                self._follow(item.module, self.run_time)
            else:
                self._follow(item.module, self.graph)
        return refused

    def _follow(self, module: str, graph: ImportGraph) -> None:
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in self.imported:
                details = self.graph.get_import_details(importer=module, imported=imported)
                step = Step(module, imported, tuple(d["line_number"] for d in details))
                self.imported[imported] = step
                self.queue.append(step)
        for package in ancestors(module):
            if package not in self.imported and package not in self.run_as_package:
                step = Step(module, package, as_package=True)
                self.run_as_package[package] = step
                self.queue.append(step)

    def _chain(self, last: Step) -> list[Step]:
        chain = [last]
        while True:
            before = self.imported.get(chain[-1].importer) or self.run_as_package.get(chain[-1].importer)
            if before is None:
                return chain[::-1]
            chain.append(before)
