"""The rules by name: what `rules=`, `@pytest.mark.a11y(ignore=[...])` and the per-step audit take.

An unknown name is `InvalidArgument` naming it, with the nearest known names (did you mean).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from pytest_mobile_agent.errors import InvalidArgument
from pytest_mobile_agent.mirror.a11y import rules as r
from pytest_mobile_agent.mirror.a11y.rules import Rule

RULES: dict[str, Rule] = {rule.name: rule for rule in (
    Rule("touch_target_size", "TouchTargetSizeCheck", r.touch_target_size),
    Rule("speakable_text_present", "SpeakableTextPresentCheck", r.speakable_text_present),
    Rule("duplicate_speakable_text", "DuplicateSpeakableTextCheck", r.duplicate_speakable_text),
    Rule("editable_content_desc", "EditableContentDescCheck", r.editable_content_desc),
    Rule("redundant_description", "RedundantDescriptionCheck", r.redundant_description),
    Rule("text_contrast", "TextContrastCheck", r.text_contrast, needs_pixels=True),
    Rule("image_contrast", "ImageContrastCheck", r.image_contrast, needs_pixels=True),
    Rule("duplicate_clickable_bounds", "DuplicateClickableBoundsCheck", r.duplicate_clickable_bounds),
    Rule("traversal_order", "TraversalOrderCheck", r.traversal_order),
    Rule("text_clipped", None, r.text_clipped, needs_pixels=True),
)}


def rule_names() -> list[str]:
    return list(RULES)


def select_rules(names: Iterable[str] | None) -> list[Rule]:
    """The rules named (every rule for None), in the catalogue's order; an unknown name is
    InvalidArgument with its did-you-mean."""
    if names is None:
        return list(RULES.values())
    if isinstance(names, str):
        names = [names]
    wanted = list(names)
    for name in wanted:
        check_rule_name(name)
    return [rule for rule in RULES.values() if rule.name in wanted]


def check_rule_name(name: object) -> str:
    """`name` when it is a rule's; InvalidArgument naming it and the nearest rules otherwise."""
    if isinstance(name, str) and name in RULES:
        return name
    close = difflib.get_close_matches(str(name), RULES, n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise InvalidArgument(f"unknown accessibility rule {name!r}{hint} The rules are: {', '.join(RULES)}")
