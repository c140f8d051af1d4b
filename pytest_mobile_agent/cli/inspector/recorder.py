"""Record mode: the actions done on the page, as the lines of a pytest function that does them again.

Each step finds its element by the locator the page offered, waiting for it (`screen.wait_for`)
where the locator is criteria alone, since the element may appear only after the step before;
a locator within an anchor or by index first lets the screen settle. The test starts the app the
recording started: the fixture app on its tab (`compose_fixture`), or the app under test (`app`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pytest_mobile_agent.mirror.unique import Locator, literal

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass
class Recording:
    """The recorded test: how it starts the app, and one line per step."""

    start: str
    fixture: str
    steps: list[str] = field(default_factory=list)

    @classmethod
    def of_fixture(cls, tab: str) -> Recording:
        return cls(start=f"compose_fixture(tab={literal(tab)})", fixture="compose_fixture")

    @classmethod
    def of_app(cls) -> Recording:
        return cls(start="app.start()", fixture="app")

    def tap(self, locator: Locator) -> None:
        self._on(locator, "", ".tap()")

    def type_text(self, locator: Locator, text: str) -> None:
        self._on(locator, "", f".type_text({literal(text)})")

    def press_key(self, key: str) -> None:
        self.steps.append(f"screen.press_key({literal(key)})")

    def swipe(self, x1: int, y1: int, x2: int, y2: int) -> None:
        self.steps.append(f"screen.swipe({x1}, {y1}, {x2}, {y2}, resting=True)")
        self.steps.append("screen.settle()")

    def assert_text(self, locator: Locator, text: str | None) -> None:
        self._on(locator, "assert ", f".text == {literal(text)}")

    def _on(self, locator: Locator, before: str, after: str) -> None:
        """A step on the element the locator finds: waited for by its criteria, or found once the
        screen has settled when it needs an anchor or an index."""
        if locator.within is None and locator.index is None:
            found = locator.python().replace("screen.find(", "screen.wait_for(", 1)
        else:
            self.steps.append("screen.settle()")
            found = locator.python()
        self.steps.append(f"{before}{found}{after}")

    def source(self, name: str = "test_recorded") -> str:
        """The whole test module: it runs as it is, with the plugin and a target."""
        if not NAME.match(name):
            raise ValueError(f"a test's name is a Python identifier, not {name!r}")
        body = "\n".join(f"    {line}" for line in (self.start, *self.steps))
        return (f'"""Recorded by `python -m pytest_mobile_agent inspect`."""\n\n\n'
                f"def {name}({self.fixture}, screen):\n{body}\n")

