"""A page's accessibility tree as a WebView exposes it to Android's accessibility: virtual nodes
under the `android.webkit.WebView` node, built by Chromium's accessibility bridge from the page's
own tree (content/browser/accessibility/browser_accessibility_android.cc and
web_contents_accessibility_android.cc; the tree here is `Accessibility.getFullAXTree`'s, virtual/web/
page.py):

* ignored nodes are not exposed, their children are (the bridge walks the platform tree, which
  leaves ignored nodes out); neither are the unnamed generic containers a page's layout adds, nor
  the inline text boxes under a text;
* a node whose children are only its own text (a heading, a button, a link) is a leaf that carries
  the text (BrowserAccessibilityAndroid::IsLeaf);
* the class names follow BrowserAccessibilityAndroid::GetClassName: `android.widget.EditText`
  for a text field (its value as the text, its label as the hint), `android.widget.Button`,
  `android.widget.CheckBox`, `android.widget.Image`, `android.widget.TextView` for static text,
  `android.view.View` for the rest;
* a text field takes ACTION_SET_TEXT and the IME's keys (the page's value is set), and a tap on it
  brings the keyboard up, as a focused editable WebView node does; a button or link takes a tap;
* bounds are the node's box in the page's CSS pixels, times the device's pixel ratio, moved to the
  WebView's place on the screen and clipped to it (getBoundsInScreen);
* a node keeps its id while its DOM node lives, whatever else the page changes: the bridge's
  virtual view id is the BrowserAccessibility node's unique id, made once for the node
  (WebContentsAccessibilityAndroid, BrowserAccessibility::GetUniqueId), so a node found before the
  page moved still takes an action after (`Ids`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from pytest_mobile_agent.virtual.ui.node import Bounds, Node, next_node_id
from pytest_mobile_agent.virtual.web.page import AxNode

TEXT_FIELDS = ("textbox", "searchbox", "textField", "TextField")
CLASS_BY_ROLE = {
    "button": "android.widget.Button",
    "checkbox": "android.widget.CheckBox",
    "radio": "android.widget.RadioButton",
    "img": "android.widget.Image",
    "image": "android.widget.Image",
    "StaticText": "android.widget.TextView",
    "combobox": "android.widget.Spinner",
    "slider": "android.widget.SeekBar",
    "progressbar": "android.widget.ProgressBar",
    "list": "android.widget.ListView",
}
FLATTENED_ROLES = ("generic", "none", "presentation", "group", "LineBreak", "paragraph", "LabelText", "form",
                   "section", "main", "RootWebArea")
CLICKABLE_ROLES = ("button", "link", "checkbox", "radio", "combobox", *TEXT_FIELDS)
TEXT_ONLY_CHILDREN = ("StaticText", "InlineTextBox")



@dataclass
class Ids:
    """The ids given to a document's DOM nodes (`backendDOMNodeId`), kept from one read of its tree
    to the next; a new document (another root) starts afresh."""

    document: int = -1
    by_dom_node: dict[int, int] = field(default_factory=dict)
    _given: dict[int, int] = field(default_factory=dict)

    def start(self, document: int) -> None:
        """A read of the tree begins: ids of the DOM nodes it leaves out are let go."""
        if document != self.document:
            self.document, self.by_dom_node = document, {}
        else:
            self.by_dom_node = self._given
        self._given = {}

    def of(self, ax: AxNode) -> int | None:
        """The id this DOM node had, None for a node not seen before (or with no DOM node)."""
        return self.by_dom_node.get(ax.backend_id) if ax.backend_id >= 0 and ax.backend_id not in self._given else None

    def given(self, ax: AxNode, uid: int) -> None:
        if ax.backend_id >= 0:
            self._given.setdefault(ax.backend_id, uid)


class WebActions(Protocol):
    """What the WebView does with an action on one of its nodes (ui/webview.py)."""

    def tap(self, ax: AxNode, node: Node) -> None:
        """A tap at the node's centre, dispatched to the page (`node`: its replica)."""
        ...

    def set_text(self, ax: AxNode, text: str) -> None:
        """ACTION_SET_TEXT on a text field: the page's value."""
        ...


def replica_nodes(tree: Mapping[str, AxNode], root_id: str, webview: Bounds, scale: float, package: str,
                  actions: WebActions, ids: Ids | None = None) -> list[Node]:
    """The nodes to put under the WebView's node, from the page's tree rooted at `root_id`; with
    `ids`, each DOM node keeps the id it had in the last read of the same document."""
    ids = ids if ids is not None else Ids()
    out: list[Node] = []
    root = tree.get(root_id)
    ids.start(root.backend_id if root is not None else -1)
    if root is not None:
        for child in root.children:
            _expose(tree, child, webview, scale, package, actions, out, ids)
    return out


def _expose(tree: Mapping[str, AxNode], node_id: str, webview: Bounds, scale: float, package: str,
            actions: WebActions, out: list[Node], ids: Ids) -> None:
    ax = tree.get(node_id)
    if ax is None or ax.role == "InlineTextBox":
        return
    flattened = ax.ignored or (ax.role in FLATTENED_ROLES and not ax.name)
    bounds = _screen_bounds(ax.box, webview, scale)
    if flattened or bounds is None:
        for child in ax.children:
            _expose(tree, child, webview, scale, package, actions, out, ids)
        return
    node = _node(ax, bounds, package, actions, ids)
    out.append(node)
    if _is_leaf(tree, ax):
        return
    below: list[Node] = []
    for child in ax.children:
        _expose(tree, child, webview, scale, package, actions, below, ids)
    for exposed in below:
        node.add(exposed)


def _is_leaf(tree: Mapping[str, AxNode], ax: AxNode) -> bool:
    if ax.role in TEXT_FIELDS or ax.role == "StaticText":
        return True
    children = [tree[c] for c in ax.children if c in tree and not tree[c].ignored]
    return bool(ax.name) and all(child.role in TEXT_ONLY_CHILDREN for child in children)


def _node(ax: AxNode, bounds: Bounds, package: str, actions: WebActions, ids: Ids) -> Node:
    field = ax.role in TEXT_FIELDS
    cls = "android.widget.EditText" if field else CLASS_BY_ROLE.get(ax.role, "android.view.View")
    clickable = ax.role in CLICKABLE_ROLES
    kept = ids.of(ax)
    node = Node(cls, bounds, text=(ax.value if field else ax.name) or None, hint=ax.name if field else None,
                package=package, clickable=clickable, focusable=clickable, focused=ax.focused, editable=field,
                accepts_set_text=field, uid=kept if kept is not None else next_node_id())
    ids.given(ax, node.uid)
    if clickable:
        node.on_click = (lambda: actions.tap(ax, node))
    if field:
        node.on_text_set = (lambda text: actions.set_text(ax, text))
    return node


def _screen_bounds(box: tuple[float, float, float, float] | None, webview: Bounds, scale: float) -> Bounds | None:
    """The box on the screen, clipped to the WebView; None when it has no box or is scrolled out."""
    if box is None:
        return None
    left, top, right, bottom = webview
    x0, y0 = max(left, left + round(box[0] * scale)), max(top, top + round(box[1] * scale))
    x1, y1 = min(right, left + round(box[2] * scale)), min(bottom, top + round(box[3] * scale))
    if x1 <= x0 or y1 <= y0:
        return None
    return (x0, y0, x1, y1)
