"""What an audit finds: one `Finding` per rule and element, with what to change.

The severities are ATF's result types (AccessibilityCheckResultType: ERROR, WARNING, INFO), less
NOT_RUN, which an audit leaves out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pytest_mobile_agent.mirror.replica import Entry
from pytest_mobile_agent.mirror.selectors import describe_entry
from pytest_mobile_agent.session.backends import Bounds

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


@dataclass(slots=True)
class Finding:
    """One rule's verdict on one element.

    `ref` is the element's ref in the replica (`screen.element(finding.ref)`; the mirror fills
    `element` in); `where` names the element as the screen's errors do; `message` says what is
    wrong and what to change; `check` is the ATF class the rule follows; `figures` the measures
    behind the verdict (a contrast ratio, a size in dp)."""

    rule: str
    severity: Severity
    ref: int
    bounds: Bounds
    message: str
    check: str
    figures: dict[str, Any] = field(default_factory=dict, compare=False)
    entry: Entry | None = field(default=None, compare=False, repr=False)
    """The replica's entry the finding is on (what `where` describes)."""
    element: Any = field(default=None, compare=False, repr=False)
    """The `Element` of `ref`, when the audit ran on a screen."""

    @property
    def where(self) -> str:
        """The element as the screen's errors name it (`@12 Button "OK" id=ok [..]`)."""
        return describe_entry(self.entry) if self.entry is not None else f"@{self.ref}"

    @property
    def key(self) -> tuple[str, int]:
        """What makes a finding the same one at the next step: its rule and its element."""
        return (self.rule, self.ref)

    def to_dict(self) -> dict[str, Any]:
        """The finding as the trace and the report carry it (JSON values)."""
        return {"rule": self.rule, "severity": self.severity, "ref": self.ref, "bounds": list(self.bounds),
                "element": self.where, "message": self.message, "check": self.check,
                "figures": dict(self.figures)}

    def line(self) -> str:
        """One line for a report: severity, rule, element, message."""
        return f"{self.severity}: {self.rule} on {self.where}: {self.message}"
