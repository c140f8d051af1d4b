"""A page's accessibility tree turned into the nodes a WebView exposes (ui/web_accessibility.py),
on trees written out by hand: what is left out, what is a leaf, the class names, the bounds."""

from __future__ import annotations

from pytest_mobile_agent.virtual.ui.node import Node
from pytest_mobile_agent.virtual.ui.web_accessibility import Ids, replica_nodes
from pytest_mobile_agent.virtual.web.page import AxNode

WEBVIEW = (0, 210, 1080, 1758)
SCALE = 2.625


def ax(node_id: str, role: str, name: str = "", *children: str, box: tuple[float, float, float, float] | None = None,
       ignored: bool = False, value: str = "", backend_id: int = -1) -> AxNode:
    return AxNode(node_id, role, name, value, ignored, children, box, False, role == "textbox", backend_id)


class Actions:
    def __init__(self) -> None:
        self.taps: list[str] = []
        self.texts: list[tuple[int, str]] = []

    def tap(self, ax: AxNode, node: Node) -> None:
        self.taps.append(ax.node_id)

    def set_text(self, ax: AxNode, text: str) -> None:
        self.texts.append((ax.backend_id, text))


def tree(*nodes: AxNode) -> dict[str, AxNode]:
    return {node.node_id: node for node in nodes}


def test_ignored_and_unnamed_containers_give_way_to_their_children() -> None:
    page = tree(ax("1", "RootWebArea", "Title", "2", box=(0, 0, 411, 590)),
                ax("2", "none", "", "3", ignored=True, box=(0, 0, 411, 590)),
                ax("3", "generic", "", "4", box=(8, 8, 403, 100)),
                ax("4", "StaticText", "Hello", "5", box=(8, 8, 60, 30)),
                ax("5", "InlineTextBox", "Hello"))
    nodes = replica_nodes(page, "1", WEBVIEW, SCALE, "pkg", Actions())
    assert [(n.cls, n.text, n.children) for n in nodes] == [("android.widget.TextView", "Hello", [])]
    assert nodes[0].bounds == (21, 210 + 21, 158, 210 + 79)  # CSS px times 2.625, moved to the WebView
    assert nodes[0].package == "pkg"


def test_a_heading_or_button_with_only_its_text_is_a_leaf_carrying_it() -> None:
    page = tree(ax("1", "RootWebArea", "", "2", "4", box=(0, 0, 411, 590)),
                ax("2", "heading", "Sign in", "3", box=(8, 8, 403, 40)),
                ax("3", "StaticText", "Sign in", box=(8, 8, 100, 40)),
                ax("4", "button", "Continue", "5", box=(8, 50, 403, 80)),
                ax("5", "StaticText", "Continue", box=(20, 55, 90, 75)))
    actions = Actions()
    nodes = replica_nodes(page, "1", WEBVIEW, SCALE, "pkg", actions)
    assert [(n.cls, n.text, len(n.children)) for n in nodes] == [
        ("android.view.View", "Sign in", 0), ("android.widget.Button", "Continue", 0)]
    assert nodes[1].clickable and nodes[1].on_click is not None and not nodes[0].clickable
    nodes[1].on_click()
    assert actions.taps == ["4"]


def test_a_text_field_is_an_edit_text_with_its_value_its_label_as_hint_and_set_text() -> None:
    page = tree(ax("1", "RootWebArea", "", "2", box=(0, 0, 411, 590)),
                ax("2", "textbox", "Your name", box=(8, 50, 403, 80), value="Ada", backend_id=17))
    actions = Actions()
    (field,) = replica_nodes(page, "1", WEBVIEW, SCALE, "pkg", actions)
    assert (field.cls, field.text, field.hint, field.editable, field.accepts_set_text) == (
        "android.widget.EditText", "Ada", "Your name", True, True)
    assert field.on_text_set is not None
    field.on_text_set("Grace")
    assert actions.texts == [(17, "Grace")]


def test_nodes_are_clipped_to_the_webview_and_those_scrolled_out_are_left_out() -> None:
    page = tree(ax("1", "RootWebArea", "", "2", "3", box=(0, 0, 411, 2000)),
                ax("2", "StaticText", "Half out", box=(8, 580, 100, 620)),
                ax("3", "StaticText", "Far below", box=(8, 1500, 100, 1540)))
    nodes = replica_nodes(page, "1", WEBVIEW, SCALE, "pkg", Actions())
    assert [(n.text, n.bounds) for n in nodes] == [("Half out", (21, 210 + 1522, 262, 1758))]


def sign_in_page(document: int, value: str = "", *, button: bool = True) -> dict[str, AxNode]:
    return tree(ax("1", "RootWebArea", "Sign in", "2", *(("3",) if button else ()), box=(0, 0, 411, 590),
                   backend_id=document),
                ax("2", "textbox", "Your name", box=(8, 8, 403, 40), value=value, backend_id=document + 1),
                ax("3", "button", "Continue", box=(8, 50, 403, 80), backend_id=document + 2))


def uids(nodes: list[Node]) -> dict[str, int]:
    return {n.hint or n.text or "": n.uid for n in nodes}


def test_a_dom_node_keeps_its_id_across_reads_while_its_document_lives() -> None:
    """Chromium's bridge gives a virtual view its BrowserAccessibility node's unique id, once: a
    field found before the page changed still takes ACTION_SET_TEXT after (CI once typed into a node
    the WebView's next read had replaced, and the agent answered not_found)."""
    ids = Ids()
    first = uids(replica_nodes(sign_in_page(10), "1", WEBVIEW, SCALE, "pkg", Actions(), ids))
    typed = replica_nodes(sign_in_page(10, "Ada"), "1", WEBVIEW, SCALE, "pkg", Actions(), ids)
    assert typed[0].text == "Ada"
    assert uids(typed) == first, "the same DOM nodes, the same ids"
    gone = uids(replica_nodes(sign_in_page(10, button=False), "1", WEBVIEW, SCALE, "pkg", Actions(), ids))
    assert gone == {"Your name": first["Your name"]}
    back = uids(replica_nodes(sign_in_page(10), "1", WEBVIEW, SCALE, "pkg", Actions(), ids))
    assert back["Continue"] != first["Continue"], "a node that left the tree is let go: its return is a new node"
    other = uids(replica_nodes(sign_in_page(20), "1", WEBVIEW, SCALE, "pkg", Actions(), ids))
    assert set(other.values()).isdisjoint({*first.values(), *back.values()}), "another document: every id new"


def test_without_ids_kept_every_read_gives_new_nodes() -> None:
    once, again = (uids(replica_nodes(sign_in_page(10), "1", WEBVIEW, SCALE, "pkg", Actions())) for _ in range(2))
    assert set(once.values()).isdisjoint(again.values())

