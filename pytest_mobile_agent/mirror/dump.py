"""A readable text dump of the replica: one line per window, one indented line per node."""

from __future__ import annotations

from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.mirror.selectors import describe_entry
from pytest_mobile_agent.session.backends import Window


def dump_view(view: View | None, *, entries: tuple[Entry, ...] | None = None, max_lines: int | None = None,
              fold_keys: bool = False) -> str:
    """The tree as text, top-most window first:

        window 12 application "Compose fixture" dev.mobileagent.fixture focused, sends no change events
          @1 View [0,0][1080,2400]
            @2 TextView "Login" id=tab_login clickable [0,210][360,336]

    `fold_keys` (a failure's message) puts a keyboard's keys on one line, `@30..@72 43 keys: 1 2 3 ...`.
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
        base = min((e.node.depth for e in window_entries), default=0)
        described = ["  " * (depth - base + 1) + text for depth, text in _described(window, window_entries, fold_keys)]
        total += 1 + len(described)
        if max_lines is None or len(lines) < max_lines:
            lines.append(describe_window(window))
        lines.extend(described if max_lines is None else described[: max(0, max_lines - len(lines))])
    if view.snapshot.truncated:
        total += 1
        if max_lines is None or len(lines) < max_lines:
            lines.append(f"(truncated by the node caps: {view.snapshot.node_count} nodes in all)")
    if max_lines is not None and total > max_lines:
        lines.append(f"... {total - max_lines} more lines (screen.dump() shows them all)")
    return "\n".join(lines)


KEYS_TO_FOLD = 3  # a run of at least this many keys becomes one line


def _described(window: Window, entries: tuple[Entry, ...], fold_keys: bool) -> list[tuple[int, str]]:
    """Each entry's depth and line, an input method's runs of sibling keys (clickable leaves) folded
    into one line."""
    if not fold_keys or window.type != "input_method":
        return [(e.node.depth, describe_entry(e)) for e in entries]
    described: list[tuple[int, str]] = []
    run: list[Entry] = []
    for entry in (*entries, None):
        if entry is not None and _is_key(entry) and (not run or entry.node.depth == run[0].node.depth):
            run.append(entry)
            continue
        if len(run) >= KEYS_TO_FOLD:
            labels = " ".join(e.node.text or e.node.desc or (e.node.res or "?").split(":id/")[-1] for e in run)
            described.append((run[0].node.depth, f"@{run[0].ref}..@{run[-1].ref} {len(run)} keys: {labels}"))
        else:
            described.extend((e.node.depth, describe_entry(e)) for e in run)
        run = [entry] if entry is not None and _is_key(entry) else []
        if entry is not None and not run:
            described.append((entry.node.depth, describe_entry(entry)))
    return described


def _is_key(entry: Entry) -> bool:
    return entry.node.clickable and not entry.node.children


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
