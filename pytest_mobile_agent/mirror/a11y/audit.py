"""An audit: the rules run on a view of the replica (and its screenshot), findings out.

What is audited by default: the visible nodes of the app's own windows (application windows that
no system process owns), as ATF audits the app's hierarchy; the status bar, the navigation bar, the
keyboard and system dialogs are the platform's to fix. `within` narrows it to an element's subtree.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence

import numpy as np
from PIL import Image

from pytest_mobile_agent.mirror.a11y.catalog import select_rules
from pytest_mobile_agent.mirror.a11y.context import AuditContext
from pytest_mobile_agent.mirror.a11y.contrast import SwatchCache, pixels_of
from pytest_mobile_agent.mirror.a11y.findings import SEVERITIES, Finding
from pytest_mobile_agent.mirror.a11y.rules import Rule
from pytest_mobile_agent.mirror.replica import Entry, View


def app_entries(view: View) -> list[Entry]:
    """The entries of the app's own windows (type application, no system owner)."""
    return [entry for window in view.windows if window.type == "application" and window.metadata.owner is None
            for entry in view.by_window.get(window.id, ())]


def needs_pixels(rules: Sequence[Rule]) -> bool:
    return any(rule.needs_pixels for rule in rules)


def decode_screenshot(data: bytes) -> np.ndarray:
    """A screenshot's PNG as RGB pixels (height x width x 3 bytes). A lossy JPEG's colours are not
    the app's: the contrast rules read a PNG."""
    with Image.open(io.BytesIO(data)) as image:
        return pixels_of(image)


def audit(view: View, *, scope: Iterable[Entry] | None = None, rules: Sequence[Rule] | None = None,
          pixels: np.ndarray | None = None, swatches: SwatchCache | None = None,
          known: frozenset[tuple[str, int]] | set[tuple[str, int]] = frozenset()) -> list[Finding]:
    """Every finding of `rules` (all for None) on `scope` (the app's windows for None), errors first,
    then by place on the screen. Without `pixels` (the screenshot, `decode_screenshot`) the contrast
    rules find nothing; `swatches` keeps what was measured for the next audit of the same screen;
    `known` names findings (rule, ref) already reported, which the rules skip."""
    chosen = list(rules) if rules is not None else select_rules(None)
    context = AuditContext.of(view, app_entries(view) if scope is None else scope, pixels, swatches, known)
    findings = [finding for rule in chosen for finding in rule.run(context)]
    order = {severity: i for i, severity in enumerate(SEVERITIES)}
    findings.sort(key=lambda f: (order[f.severity], f.bounds[1], f.bounds[0], f.rule))
    return findings
