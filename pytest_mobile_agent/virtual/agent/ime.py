"""`ime_enter`: AccessibilityAction.ACTION_IME_ENTER on a field (the Java agent's Agent.imeEnter).

The platform offers the action on a focused editable field (TextView adds it in
onInitializeAccessibilityNodeInfoInternal while `isTextEditable() && isFocused()`, API 30+,
frameworks/base core/java/android/widget/TextView.java); performing it runs the field's IME action
as the keyboard's action key does (TextView.onEditorAction; virtual/ui/ime.py). A node that does
not offer it answers `offered: false` and nothing is done, so the host presses ENTER instead.
"""

from __future__ import annotations

from typing import Any

from pytest_mobile_agent.virtual.agent.input import Injector
from pytest_mobile_agent.virtual.agent.params import RequestError, int_param
from pytest_mobile_agent.virtual.ui.node import Node


class ImeEnter:
    def __init__(self, injector: Injector) -> None:
        self.injector = injector
        self.ui = injector.ui

    def ime_enter(self, params: dict[str, Any], deadline: float) -> dict[str, Any]:
        node_id = None if params.get("node") is None else int_param(params, "node", minimum=1)
        with self.injector.injecting():
            node = self._target(node_id)
            try:
                offered = self._offers(node)
                accepted = offered and self.ui.perform_editor_action(node)
            finally:
                self.injector.own_input()
        return {"accepted": accepted, "offered": offered}

    def _offers(self, node: Node) -> bool:
        return node.editable and self.ui.focused_now() is node

    def _target(self, node_id: int | None) -> Node:
        if node_id is None:
            node = self.ui.focused_now()
            if node is None:
                raise RequestError("invalid_params", "no node has input focus; name the node")
            return node
        located = self.ui.find(node_id)
        if located is None:
            raise RequestError("not_found", f"node {node_id} is not known to the agent")
        return located[1]
