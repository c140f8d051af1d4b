"""No public class name is defined twice in two layers of the driver (issue 23, item 4): a reader
meeting `ProtocolEvent`, `Frame` or `Connection` knows which class it is. A layer may re-export
another's class (the session's stream carries the agent's events); it does not define its own."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_mobile_agent"
LAYERS = ("adb", "agent", "emulator", "session", "mirror")


def public_classes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.name for node in tree.body if isinstance(node, ast.ClassDef) and not node.name.startswith("_")]


def defined_in() -> dict[str, set[str]]:
    where: dict[str, set[str]] = defaultdict(set)
    for name in public_classes(PACKAGE / "errors.py"):
        where[name].add("errors")
    for layer in LAYERS:
        for path in (PACKAGE / layer).rglob("*.py"):
            if "_proto" not in path.parts:
                for name in public_classes(path):
                    where[name].add(layer)
    return where


def test_no_public_class_name_is_defined_in_two_layers() -> None:
    twice = {name: sorted(layers) for name, layers in defined_in().items() if len(layers) > 1}
    assert twice == {}


def test_the_concepts_the_issue_named_have_one_class_each() -> None:
    where = defined_in()
    assert {name: sorted(where[name]) for name in ("ProtocolEvent", "OutOfSync", "Resynced", "Disconnection")} == {
        "ProtocolEvent": ["agent"], "OutOfSync": ["agent"], "Resynced": ["agent"], "Disconnection": ["agent"]}
    assert sorted(where["Frame"]) == ["emulator"] and sorted(where["FrameEvent"]) == ["session"]
    assert sorted(where["Disconnected"]) == ["errors"]  # the exception; the event is the Disconnection
