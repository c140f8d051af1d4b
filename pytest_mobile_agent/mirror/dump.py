"""A readable text dump of the replica: one line per window, one indented line per node."""

from __future__ import annotations

from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.mirror.selectors import describe_entry
from pytest_mobile_agent.session.backends import Window


def dump_view(view: View | None, *, entries: tuple[Entry, ...] | None = None, max_lines: int | None = None) -> str:
    """The tree as text, top-most window first:

        window 12 application "Compose fixture" dev.mobileagent.fixture focused, sends no change events
          @1 View [0,0][1080,2400]
            @2 TextView "Login" id=tab_login clickable [0,210][360,336]
    """
    if view is None:
        return "(nothing read yet)"
    lines: list[str] = []
    total = 0  # lines of the whole dump; past max_lines they are counted, not described
    for window in view.windows:
        window_entries = view.by_window.get(window.id, ())
        if entries is not None:
            wanted = {e.ref for e in entries}
            window_entries = tuple(e for e in window_entries if e.ref in wanted)
            if not window_entries:
                continue
        total += 1 + len(window_entries)
        if max_lines is None or len(lines) < max_lines:
            lines.append(describe_window(window))
        shown = window_entries if max_lines is None else window_entries[: max(0, max_lines - len(lines))]
        base = min((e.node.depth for e in window_entries), default=0)
        lines.extend("  " * (e.node.depth - base + 1) + describe_entry(e) for e in shown)
    if view.snapshot.truncated:
        total += 1
        if max_lines is None or len(lines) < max_lines:
            lines.append(f"(truncated by the node caps: {view.snapshot.node_count} nodes in all)")
    if max_lines is not None and total > max_lines:
        lines.append(f"... {total - max_lines} more lines (screen.dump() shows them all)")
    return "\n".join(lines)


def describe_window(window: Window) -> str:
    parts = [f"window {window.id} {window.type}"]
    if window.title:
        parts.append(f'"{window.title}"')
    if window.package:
        parts.append(window.package)
    traits = []
    if window.focused:
        traits.append("focused")
    if window.metadata.modal:
        traits.append("modal")
    if window.metadata.owner:
        traits.append(f"owned by {window.metadata.owner}")
    if not window.metadata.sends_change_events:
        traits.append("sends no change events")
    if traits:
        parts.append(", ".join(traits))
    return " ".join(parts)
