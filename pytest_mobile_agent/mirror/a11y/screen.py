"""`screen.audit_accessibility(...)`: the audit on a live screen.

The replica is brought up to date, a screenshot is taken only when a chosen rule reads pixels, and
each finding gets its `Element`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, Protocol

from pytest_mobile_agent.mirror.a11y.audit import audit, decode_screenshot, needs_pixels
from pytest_mobile_agent.mirror.a11y.catalog import select_rules
from pytest_mobile_agent.mirror.a11y.findings import Finding
from pytest_mobile_agent.mirror.replica import Entry, View


class AuditedScreen(Protocol):
    """What the audit needs of the screen (`Mirror` is the one; named here, not imported: the mirror
    imports this module)."""

    def snapshot(self) -> View: ...

    def entry(self, ref: int) -> Entry: ...

    def element(self, ref: int) -> Any: ...

    def screenshot_png(self) -> bytes: ...


class Anchored(Protocol):
    @property
    def ref(self) -> int: ...


def audit_screen(screen: AuditedScreen, within: Anchored | None, rules: Iterable[str] | str | None) -> list[Finding]:
    chosen = select_rules(rules)
    view = screen.snapshot()
    scope = None
    if within is not None:
        entry = screen.entry(within.ref)
        scope = (entry, *view.subtree(entry))
    pixels = decode_screenshot(screen.screenshot_png()) if needs_pixels(chosen) else None
    if pixels is not None and pixels.shape[:2] != (view.snapshot.display.height, view.snapshot.display.width):
        pixels = None  # a screenshot of another size than the display's: no contrast measured
    findings = audit(view, scope=scope, rules=chosen, pixels=pixels)
    return [dataclasses.replace(f, element=screen.element(f.ref)) for f in findings]
