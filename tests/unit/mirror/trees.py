"""Random snapshots for the equivalence tests: windows of nodes in pre-order, as the agent sends
them, with texts, ids, classes and states drawn from small pools so that selectors match some."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tests.support.session_fakes import node, snapshot, window

TEXTS = (None, "", "Login", "login", "Big", "Cell 1", "Cell 12", "Cell 500", "Sign in", "Ünïcode ✓")
RES = (None, "tab_login", "dev.mobileagent.fixture:id/tab_login", "dev.mobileagent.fixture:id/cell_1",
       "android:id/title", "title")
DESCS = (None, "Close", "close the dialog", "Sign in")
CLASSES = ("android.view.View", "android.widget.TextView", "TextView", "android.widget.Button",
           "android.widget.EditText")
PACKAGES = (None, "dev.mobileagent.fixture", "com.android.systemui")
BELOW = 2400
"""How far a node drawn off the screen lies down: past the bottom of session_fakes' 1080x2400 display."""
FLAGS = ("clickable", "long_clickable", "focusable", "focused", "editable", "checked", "enabled",
         "selected", "scrollable", "visible")


def _pick(pool: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    return st.sampled_from(pool)


_NODE = st.tuples(st.integers(min_value=0, max_value=1 << 16), _pick(TEXTS), _pick(CLASSES), _pick(RES),
                  _pick(DESCS), _pick(PACKAGES), st.integers(min_value=0, max_value=(1 << len(FLAGS)) - 1))


@st.composite
def window_nodes(draw: Any, first_id: int, max_nodes: int = 20, offscreen: bool = False) -> list[dict[str, Any]]:
    """A valid pre-order tree: each node one level below some ancestor on the path to it; with
    `offscreen`, some nodes lie below the display (a list's rows scrolled past its end)."""
    drawn = draw(st.lists(_NODE, min_size=1, max_size=max_nodes))
    below = draw(st.sets(st.integers(0, max_nodes - 1))) if offscreen else set()
    nodes: list[dict[str, Any]] = []
    path: list[int] = []  # ids from the root to the latest node
    for i, (level, text, cls, res, desc, package, bits) in enumerate(drawn):
        depth = 0 if i == 0 else 1 + level % len(path)
        del path[depth:]
        parent = path[-1] if path else None
        node_id = first_id + i
        flags = {name: bool(bits >> k & 1) for k, name in enumerate(FLAGS)}
        nodes.append(node(node_id, parent, depth, text=text, cls=cls, res=res, desc=desc, package=package,
                          bounds=(0, i + BELOW * (i in below), 100, i + 10 + BELOW * (i in below)), **flags))
        path.append(node_id)
    by_id = {n["id"]: n for n in nodes}
    for n in nodes:
        if n["parent"] is not None:
            by_id[n["parent"]]["children"].append(n["id"])
    return nodes


@st.composite
def snapshots(draw: Any, max_windows: int = 3, max_nodes: int = 20, offscreen: bool = False) -> dict[str, Any]:
    window_ids = draw(st.lists(st.sampled_from((5, 7, 12, 31)), min_size=1, max_size=max_windows, unique=True))
    windows = []
    first = 1
    for wid in window_ids:
        nodes = draw(window_nodes(first, max_nodes, offscreen))
        first += len(nodes) + 100
        windows.append(window(wid, nodes, events=draw(st.booleans())))
    return snapshot(*windows)
