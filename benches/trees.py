"""Snapshots shaped like the Compose fixture's Big tab at any size, as the agent sends them.

The Big tab is a status bar (6 nodes), a navigation bar (4) and the app's window: a root, a header,
a grid, rows of ten clickable `Cell n` TextViews. `big_tab(n)` keeps that shape and grows the grid
until the three windows hold `n` nodes (573 is the fixture's own count).
"""

from __future__ import annotations

from typing import Any

PACKAGE = "dev.mobileagent.fixture"


def agent_node(id: int, parent: int | None, depth: int, cls: str, *, text: str | None = None,
               desc: str | None = None, res: str | None = None, bounds: tuple[int, int, int, int] = (0, 0, 1080, 2400),
               clickable: bool = False, package: str = PACKAGE) -> dict[str, Any]:
    """A NODE as docs/protocol.md gives it."""
    return {
        "id": id, "parent": parent, "depth": depth, "class": cls, "text": text, "desc": desc, "res": res,
        "hint": None, "package": package, "bounds": list(bounds), "clickable": clickable,
        "long_clickable": False, "focusable": clickable, "focused": False, "editable": False,
        "checkable": False, "checked": False, "enabled": True, "selected": False, "scrollable": False,
        "visible": True, "password": False, "scroll": None, "children": [],
    }


def _window(id: int, type: str, nodes: list[dict[str, Any]], *, events: bool, package: str) -> dict[str, Any]:
    by_id = {n["id"]: n for n in nodes}
    for n in nodes:
        if n["parent"] is not None:
            by_id[n["parent"]]["children"].append(n["id"])
    return {"id": id, "type": type, "title": None, "package": package, "layer": 1, "focused": type == "application",
            "active": type == "application", "bounds": [0, 0, 1080, 2400], "sends_change_events": events,
            "owner": None if type == "application" else "com.android.systemui", "modal": False,
            "node_count": len(nodes), "nodes": nodes}


def big_tab(total: int) -> dict[str, Any]:
    """A snapshot result of `total` nodes (at least 20) in the Big tab's shape."""
    ui = "com.android.systemui"
    status = [agent_node(1, None, 0, "android.widget.FrameLayout", package=ui)]
    status += [agent_node(i, 1, 1, "android.widget.TextView", text=f"12:0{i}", package=ui) for i in range(2, 7)]
    nav = [agent_node(10, None, 0, "android.widget.FrameLayout", package=ui)]
    nav += [agent_node(10 + k, 10, 1, "android.widget.ImageView", desc=d, clickable=True, package=ui)
            for k, d in enumerate(("Back", "Home", "Overview"), start=1)]
    budget = total - len(status) - len(nav)
    app = [agent_node(100, None, 0, "android.widget.FrameLayout"),
           agent_node(101, 100, 1, "android.widget.TextView", text="cells", res=f"{PACKAGE}:id/big_header"),
           agent_node(102, 100, 1, "android.view.View", res=f"{PACKAGE}:id/big_grid")]
    next_id, cell, row = 103, 0, None
    while len(app) < budget:
        if cell % 10 == 0:
            row = next_id
            app.append(agent_node(row, 102, 2, "android.view.View", bounds=(0, 300 + cell * 10, 1080, 400 + cell * 10)))
        else:
            cell_no = cell - cell // 10  # cells are numbered from 1, rows take every tenth slot
            left = (cell % 10 - 1) * 120
            app.append(agent_node(next_id, row, 3, "android.widget.TextView", text=f"Cell {cell_no}",
                                  res=f"{PACKAGE}:id/cell_{cell_no}", clickable=True,
                                  bounds=(left, 300 + cell * 10, left + 120, 400 + cell * 10)))
        next_id += 1
        cell += 1
    windows = [
        _window(5, "system", status, events=True, package=ui),
        _window(7, "system", nav, events=True, package=ui),
        _window(12, "application", app, events=False, package=PACKAGE),
    ]
    return {"windows": windows, "node_count": sum(len(w["nodes"]) for w in windows), "truncated": False,
            "idle": {"waited_ms": 0, "idle": True}, "seq": 0,
            "display": {"width": 1080, "height": 2400, "density": 420, "rotation": 0}}


def evicted(result: dict[str, Any], shift: int = 1_000_000) -> dict[str, Any]:
    """The same screen after the agent evicted its cache: every node id new, nothing else changed."""
    def moved(n: dict[str, Any]) -> dict[str, Any]:
        return {**n, "id": n["id"] + shift, "parent": None if n["parent"] is None else n["parent"] + shift,
                "children": [c + shift for c in n["children"]]}
    return {**result, "windows": [{**w, "nodes": [moved(n) for n in w["nodes"]]} for w in result["windows"]]}
