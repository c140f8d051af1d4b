"""The one way a package's face loads its names on first use (PEP 562).

A package's `__init__` names each public name and where it lives; importing the package loads
none of those modules, the first use of a name imports its module and keeps the value in the
package, and `dir()` lists every name. The same names are imported under `if TYPE_CHECKING:` for
mypy and IDEs (tests/unit/test_lazy_faces.py holds the two to each other in every package that uses
this). A face that loads nothing is what lets the virtual device import `adb.wire` without running
the adb client (docs/architecture.md, "The layer rules").

    __getattr__, __dir__ = lazy_exports(globals(), {
        "AdbServer": "pytest_mobile_agent.adb.server",               # the same name in that module
        "Screen": "pytest_mobile_agent.mirror.mirror:Mirror",         # another name in it
        "PROTO_SOURCE": "pytest_mobile_agent.emulator.proto_source:proto_source()",  # a call's result
    })

A name that has left a face stays importable for a while, with a DeprecationWarning saying where it
went, through `deprecated`: it is not in `dir()` or `__all__`, and it warns on every use.

    __getattr__, __dir__ = lazy_exports(globals(), {...}, deprecated={
        "HostGate": Deprecated("pytest_mobile_agent.plugin.gates", "annotate the fixture with ..."),
    })

A module of its own at the bottom, importing nothing of the package, so any face can use it.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class Export:
    """Where one public name comes from: `module`'s `attribute`, or what calling it returns."""

    module: str
    attribute: str
    called: bool = False

    @classmethod
    def parse(cls, name: str, spec: str) -> Export:
        """`"pkg.module"` (the attribute named `name`), `"pkg.module:attr"`, or `"pkg.module:fn()"`."""
        module, colon, attribute = spec.partition(":")
        called = attribute.endswith("()")
        attribute = attribute.removesuffix("()") if colon else name
        if not module or not attribute.isidentifier():
            raise ValueError(f"export {name!r}: {spec!r} is not 'package.module[:attribute[()]]'")
        return cls(module, attribute, called)

    def load(self) -> object:
        value: object = getattr(importlib.import_module(self.module), self.attribute)
        if self.called:
            if not callable(value):
                raise TypeError(f"{self.module}.{self.attribute} is not callable")
            value = value()
        return value


@dataclass(frozen=True)
class Deprecated:
    """A name that has left a package's face: where it lives now ("module[:attribute[()]]", as an
    export), and what to do instead, for the warning."""

    spec: str
    advice: str


class LazyFace:
    """A package's lazy names: `attribute` is its `__getattr__`, `names` its `__dir__`."""

    def __init__(self, namespace: MutableMapping[str, object], exports: Mapping[str, str],
                 deprecated: Mapping[str, Deprecated] | None = None) -> None:
        self.package = str(namespace["__name__"])
        self.namespace = namespace
        self.exports: dict[str, Export] = {name: Export.parse(name, spec) for name, spec in exports.items()}
        self.deprecated: dict[str, tuple[Export, str]] = {
            name: (Export.parse(name, old.spec), old.advice) for name, old in (deprecated or {}).items()}
        overlap = set(self.exports) & set(self.deprecated)
        if overlap:
            raise ValueError(f"{self.package}: {sorted(overlap)} both exported and deprecated")

    def attribute(self, name: str) -> object:
        """The public `name`, imported from its module on first use and kept in the package; a
        deprecated name, loaded with a DeprecationWarning each time (never kept, so every use
        warns); an AttributeError for any other name, so `from package import submodule` still
        imports it."""
        if name in self.deprecated:
            return self.deprecated_attribute(name)
        export = self.exports.get(name)
        if export is None:
            raise AttributeError(f"module {self.package!r} has no attribute {name!r}")
        value = export.load()
        self.namespace[name] = value
        return value

    def deprecated_attribute(self, name: str) -> object:
        export, advice = self.deprecated[name]
        # stacklevel 3: past this method and attribute(), to the import or attribute use in user code
        warnings.warn(f"{self.package}.{name} is deprecated and leaves the package's face: {advice}",
                      DeprecationWarning, stacklevel=3)
        return export.load()

    def names(self) -> list[str]:
        return sorted({*self.namespace, *self.exports})


def lazy_exports(namespace: MutableMapping[str, object], exports: Mapping[str, str],
                 deprecated: Mapping[str, Deprecated] | None = None,
                 ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """A package's `__getattr__` and `__dir__` for `exports` (name -> where it lives) and the
    `deprecated` names still importable with a warning (see above)."""
    face = LazyFace(namespace, exports, deprecated)
    return face.attribute, face.names


def face_of(package: ModuleType) -> LazyFace | None:
    """The lazy face `package` was given by `lazy_exports`, or None when it has none."""
    loader = vars(package).get("__getattr__")
    owner = getattr(loader, "__self__", None)
    return owner if isinstance(owner, LazyFace) else None
