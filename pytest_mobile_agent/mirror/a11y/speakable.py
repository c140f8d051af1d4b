"""What a screen reader speaks for a node, as ATF works it out (ViewHierarchyElementUtils:
getSpeakableTextForElement, getSpeakableTextFromElementSubtree, shouldFocusView).

A node's speakable text is its state description, then its content description (which ends it) or
its text, then the speakable text of its children that a screen reader does not focus on their
own, then its hint; and, when another node labels it, that label too.
"""

from __future__ import annotations

from pytest_mobile_agent.mirror.a11y.context import AuditContext, acts
from pytest_mobile_agent.mirror.replica import Entry
from pytest_mobile_agent.session.backends import Node

SWITCH_CLASSES = ("android.widget.Switch", "android.widget.ToggleButton")


def speakable_text(context: AuditContext, entry: Entry) -> str:
    """The words a screen reader says for `entry` (empty when it says nothing)."""
    known = context.spoken.get(entry.ref)
    if known is None:
        known = context.spoken[entry.ref] = _speakable_text(context, entry)
    return known


def _speakable_text(context: AuditContext, entry: Entry) -> str:
    text = _subtree_text(context, entry)
    label = context.label_of(entry)
    if entry.node.important and label is not None:
        spoken = label.node.desc or label.node.text or ""
        if spoken.strip():
            return f"{text} for {spoken}" if text else spoken  # ATF's template_labeled_item
    return text


def _subtree_text(context: AuditContext, entry: Entry) -> str:
    node = entry.node
    parts: list[str] = []
    if node.important:
        if node.state:
            parts.append(node.state)
        if node.desc:
            parts.append(node.desc)
            return ", ".join(parts)
        if node.text and node.text.strip():
            parts.append(node.text)
        if node.class_name in SWITCH_CLASSES and not node.text:
            parts.append("on" if node.checked else "off")
    for child in context.kids(entry):
        if not acts(child.node):
            spoken = _subtree_text(context, child)
            if spoken:
                parts.append(spoken)
    if node.important and node.hint and node.hint.strip():
        parts.append(node.hint)
    return ", ".join(parts)


def has_text(node: Node) -> bool:
    return bool(node.text or node.desc or node.hint)


def should_focus(context: AuditContext, entry: Entry) -> bool:
    """Whether a screen reader stops on `entry` (ATF's shouldFocusView): an actionable, important
    node that has no important descendant or speaks itself, or an important node with text and no
    focusable ancestor."""
    known = context.focused.get(entry.ref)
    if known is None:
        known = context.focused[entry.ref] = _should_focus(context, entry)
    return known


def _should_focus(context: AuditContext, entry: Entry) -> bool:
    node = entry.node
    if not node.visible:
        return False
    if node.important and (acts(node) or (_in_scrollable(context, entry) and _speaks(context, entry))):
        return not _important_descendant(context, entry) or _speaks(context, entry)
    return (has_text(node) or bool(node.state)) and node.important and not _focusable_ancestor(context, entry)


def _speaks(context: AuditContext, entry: Entry) -> bool:
    """ATF's isSpeakingView."""
    node = entry.node
    if node.important and (has_text(node) or node.checkable):
        return True
    return any(not acts(child.node) and (_speaks(context, child)) for child in context.kids(entry))


def _important_descendant(context: AuditContext, entry: Entry) -> bool:
    return any(child.node.important or _important_descendant(context, child) for child in context.kids(entry))


def _focusable_ancestor(context: AuditContext, entry: Entry) -> bool:
    parent = context.parent(entry)
    while parent is not None:
        if parent.node.important and acts(parent.node):
            return True
        parent = context.parent(parent)
    return False


def _in_scrollable(context: AuditContext, entry: Entry) -> bool:
    parent = context.parent(entry)
    return parent is not None and parent.node.scrollable
