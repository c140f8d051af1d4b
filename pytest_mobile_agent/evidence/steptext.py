"""A step as text: its arguments, its outcome, and the one line `-v` shows per step of a failing test
("tap id=login_button → accepted via agent in 12 ms"). Nothing here reads the device: an element
is described from the replica as the latest read left it.

The text typed into a password field is masked as Android masks it on screen and in the tree the
artifacts keep (PasswordTransformationMethod's dot, one per character: frameworks/base
core/java/android/text/method/PasswordTransformationMethod.java, Android 16), in the trace and in
these lines alike.
"""

from __future__ import annotations

import re
from typing import Any

from pytest_mobile_agent.mirror.replica import View
from pytest_mobile_agent.mirror.selectors import describe_entry
from pytest_mobile_agent.mirror.steps import Step

MASK = "\u2022"
TYPING_STEPS = frozenset({"type_text", "element.type_text"})
VALUE_LIMIT = 120
PLAIN = re.compile(r"[\w.:/@-]+")


def describe_value(value: Any, view: View | None = None, *, whole: bool = False) -> str:
    """An argument or a result, short: an element as `@ref` and its class and id (`whole`: its
    node's every fact, when the replica has it)."""
    ref = getattr(value, "ref", None)
    if isinstance(ref, int) and type(value).__name__ == "Element":
        entry = view.entry(ref) if view is not None else None
        if entry is None:
            return f"@{ref}"
        return _cut(describe_entry(entry)) if whole else _short(entry)
    if isinstance(value, list) and value and all(type(item).__name__ == "Element" for item in value):
        return f"{len(value)} elements"
    if type(value).__name__ == "Ack":
        verdict = "accepted" if value.accepted else "refused"
        method = f" ({value.method})" if getattr(value, "method", None) else ""
        return f"{verdict} via {value.path}{method}"
    if isinstance(value, str):
        return value if PLAIN.fullmatch(value) and len(value) <= VALUE_LIMIT else _cut(repr(value))
    if isinstance(value, re.Pattern):
        return f"re.compile({value.pattern!r})"
    if callable(value):
        return getattr(value, "__name__", "a function")
    return _cut(repr(value))


def describe_arguments(arguments: dict[str, Any], view: View | None = None) -> dict[str, str]:
    return {name: describe_value(value, view) for name, value in arguments.items() if value is not None}


def mask_typed_text(step: Step, arguments: dict[str, str], view: View | None) -> dict[str, str]:
    """The arguments with the typed text masked when it went into a password field: the field the
    step acted on (its target), else the focused node."""
    if step.name not in TYPING_STEPS or "text" not in arguments:
        return arguments
    if not _into_password(step, view):
        return arguments
    typed = step.arguments.get("text")
    length = len(typed) if isinstance(typed, str) else 8
    return {**arguments, "text": MASK * length}


def _into_password(step: Step, view: View | None) -> bool:
    if view is None:
        return True  # nothing says which field it was: masked, to be safe
    for entry in view.entries:
        node = entry.node
        if step.target is not None and node.bounds == step.target and node.editable:
            return node.password
    return any(entry.node.focused and entry.node.password for entry in view.entries)


def _short(entry: Any) -> str:
    node = entry.node
    name = f"id={node.res.split(':id/', 1)[-1]}" if node.res else (repr(node.text) if node.text else "")
    return f"@{entry.ref} {node.class_name.rsplit('.', 1)[-1]} {name}".rstrip()


def describe_outcome(step: Step, view: View | None = None) -> str:
    if step.error is not None:
        message = str(step.error).strip().splitlines()
        return f"{type(step.error).__name__}: {_cut(message[0]) if message else ''}".rstrip(": ")
    if step.polls:
        return f"{step.ended_by or 'returned'} after {len(step.polls)} look{'s' if len(step.polls) != 1 else ''}"
    if step.result is None:
        return "done"
    return describe_value(step.result, view, whole=True)


def step_line(step: Step, arguments: dict[str, str], view: View | None = None) -> str:
    """`tap id=login_button → accepted via agent in 12 ms`, indented by the step's depth."""
    shown = " ".join(f"{name}={value}" for name, value in arguments.items())
    took = f" in {step.seconds * 1000:.0f} ms" if step.seconds is not None else ""
    call = f"{step.name} {shown}".rstrip()
    return f"{'  ' * step.depth}{call} \u2192 {describe_outcome(step, view)}{took}"


def _cut(text: str, limit: int = VALUE_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"
