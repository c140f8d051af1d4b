"""Tree reading, the per-window node cache and serialisation (the Java agent's `tree/`).

The node cache behaves as the Java agent's does: a window whose toolkit sends change events is
read again after its events say it changed; a Compose window (no events) is served from the cache
until the host evicts it, the agent's own input empties it, or a resync drops everything, so input
the agent did not inject leaves it stale, as on a device.

A read lets go of the UI model's lock every few dozen nodes, as the real reader's binder calls let
the app run: another snapshot is answered meanwhile, and a screen torn down under the read (a tab
switch) makes the read start again from the window's root and report the change (protocol section 6).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_mobile_agent.virtual.agent.idle import IdleTracker
from pytest_mobile_agent.virtual.agent.params import RequestError, int_list, int_param
from pytest_mobile_agent.virtual.agent.platform import Gate
from pytest_mobile_agent.virtual.ui import UiModel
from pytest_mobile_agent.virtual.ui.changes import Change, NodesChanged
from pytest_mobile_agent.virtual.ui.node import Bounds, TornDown, TreeRead

#: after its own input the agent re-reads event-less windows on every snapshot for this long,
#: since nothing tells it when Compose has finished composing what the input started
OWN_INPUT_SETTLE_MS = 1000.0
#: reads of one window before a snapshot gives up on a window that keeps being torn down (busy)
READ_ATTEMPTS = 4

#: packages whose application windows a system process draws (the Java agent's WindowMeta.SYSTEM_OWNERS)
SYSTEM_OWNERS = frozenset({
    "android", "com.android.systemui", "com.android.permissioncontroller",
    "com.google.android.permissioncontroller", "com.android.packageinstaller", "com.google.android.packageinstaller",
})
SYSTEM_UI = "com.android.systemui"

IDLE_MAX_MS = 600_000  # core/Agent.java: idle_timeout_ms and idle_quiet_ms within 0..600,000
SNAPSHOT_INT_DEFAULTS = {"idle_timeout_ms": 0, "idle_quiet_ms": 200, "max_nodes": 5000, "max_depth": 80}
SNAPSHOT_DEFAULTS = {"idle_timeout_ms": 0, "idle_quiet_ms": 200, "evict": [], "evict_event_less": False,
                     "max_nodes": 5000, "max_depth": 80}


class Tree:
    """The windows' reads and their cache. Every method that touches the cache holds the UI
    model's lock (the model's listener calls `on_change` with it held)."""

    def __init__(self, ui: UiModel, gate: Gate, idle: IdleTracker, report: Callable[[Change], None]) -> None:
        self.ui = ui
        self.gate = gate
        self.idle = idle
        #: queues a change notice for the event stream (a window torn down under a read)
        self.report = report
        self._cache: dict[int, TreeRead] = {}
        #: per window, how often its cache was dropped: a read that a drop overtook is not kept
        self._drops: dict[int, int] = {}

    # --- snapshot -------------------------------------------------------------------------------

    @staticmethod
    def snapshot_params(params: dict[str, Any]) -> dict[str, Any]:
        p = {**SNAPSHOT_DEFAULTS, **params}
        for key in ("idle_timeout_ms", "idle_quiet_ms"):
            int_param(p, key, maximum=IDLE_MAX_MS, default=SNAPSHOT_INT_DEFAULTS[key])
        for key in ("max_nodes", "max_depth"):
            int_param(p, key, default=SNAPSHOT_INT_DEFAULTS[key])
        p["evict"] = int_list(p, "evict", "window ids", required=False)
        if p["evict_event_less"] is None:
            p["evict_event_less"] = False  # null is the default, as in core/Params.bool
        if not isinstance(p["evict_event_less"], bool):
            raise RequestError("invalid_params", "evict_event_less must be a boolean")
        return p

    def read_windows(self, p: dict[str, Any]) -> list[tuple[dict[str, Any], TreeRead]]:
        """Every interactive window's metadata and nodes, after the evictions `p` asks for."""
        with self.ui.lock:
            windows = self.ui.accessibility_windows()
            for wid in p["evict"]:
                self.drop(wid)
            if p["evict_event_less"]:
                for w in windows:
                    if not w.sends_change_events:
                        self.drop(w.id)
            reads: list[tuple[dict[str, Any], TreeRead]] = []
            for w in windows:
                read = self._cached_read(w)
                if read is not None:  # None: the window went away during its read
                    reads.append((w.meta(), read))
            width, height = self.ui.geo.width, self.ui.geo.height
        metas = [meta for meta, _ in reads]
        for meta, modal in zip(metas, modal_flags(metas, width, height, self.ui.focused_task_bounds), strict=True):
            meta["owner"] = owner_of(meta)
            meta["modal"] = modal
        return reads

    def _cached_read(self, window: Any) -> TreeRead | None:
        """The window's nodes from the cache where it is current, else read now and cached
        (None when the window went away during the read). The model's lock is held."""
        read = self._cache.get(window.id)
        settling = self.idle.own_input_within(OWN_INPUT_SETTLE_MS)
        if read is None or (settling and not window.sends_change_events):
            drops = self._drops.get(window.id, 0)
            read = self._read_window(window)  # a Compose window still settling after our input: read it again
            if read is not None and not read.skipped and self._drops.get(window.id, 0) == drops:
                self._cache[window.id] = read  # a read that left children out is read again next time
        return read

    def drop(self, window_id: int) -> None:
        """Forget the window's cached nodes (the model's lock is held)."""
        self._cache.pop(window_id, None)
        self._drops[window_id] = self._drops.get(window_id, 0) + 1

    def drop_all(self) -> None:
        with self.ui.lock:
            for wid in list(self._cache):
                self.drop(wid)

    def drop_event_less(self) -> None:
        """After the agent's own input: Compose windows are read anew."""
        with self.ui.lock:
            for w in self.ui.windows():
                if not w.sends_change_events:
                    self.drop(w.id)

    def on_change(self, change: Change) -> None:
        """The model's notice (its lock held): a change an event reports drops its window's cache."""
        if isinstance(change, NodesChanged):
            self.drop(change.window)
            return
        present = set(change.windows)
        for wid in [w for w in self._cache if w not in present]:
            self.drop(wid)
        for wid in [w for w in self._drops if w not in present]:
            del self._drops[wid]  # a window gone for good (ids are never reused)

    def _read_window(self, window: Any) -> TreeRead | None:
        """Read the window, letting the app run between slices; a read that meets a torn-down
        subtree starts again from the root and is reported as `window_changed` `structure`
        whatever the window's toolkit (protocol section 6). Busy when it keeps being torn down;
        None when the window went away during the read."""
        torn = False
        for _ in range(READ_ATTEMPTS):
            try:
                read: TreeRead = window.read(self._yield_model)
            except TornDown:
                torn = True
                if self.ui.window(window.id) is None:
                    return None
                continue
            if self.ui.window(window.id) is None:
                return None  # removed under the read: its nodes are gone with it, as on a device
            if torn:
                self.report(NodesChanged(window.id, (), ("structure",), window.sends_change_events))
            return read
        raise RequestError("busy", f"window {window.id} kept changing while it was read", retryable=True)

    def _yield_model(self) -> None:
        """Between slices of a read: the model's lock is let go, so the app runs on and other
        requests are served meanwhile, as the real reader's binder calls let them."""
        depth = _release_all(self.ui.lock)
        try:
            self.between_slices()
        finally:
            for _ in range(depth):
                self.ui.lock.acquire()

    def between_slices(self) -> None:
        """Where a read stands while the model's lock is let go: a stopped agent stops here."""
        self.gate.pause()

    # --- bounds ---------------------------------------------------------------------------------

    def bounds(self, params: dict[str, Any]) -> dict[str, Any]:
        ids = int_list(params, "ids", "node ids", required=True)
        wanted = set(ids)
        found: dict[int, list[int]] = {}
        with self.ui.lock:
            for w in self.ui.accessibility_windows():
                for node in w.nodes():
                    if node.uid in wanted:
                        found[node.uid] = list(node.bounds)
        return {"nodes": [{"id": i, "bounds": found[i]} for i in ids if i in found]}


# --- window metadata (the Java agent's tree/WindowMeta) ------------------------------------------


def owner_of(meta: dict[str, Any]) -> str | None:
    """The package of a window a system process draws (system UI, the permission controller, the
    keyboard), None for the app's own windows."""
    package = meta["package"]
    if not package:
        return None
    if meta["type"] in ("input_method", "system"):
        return str(package)
    return str(package) if package in SYSTEM_OWNERS else None


def modal_flags(metas: list[dict[str, Any]], width: int, height: int,
                focused_task: Callable[[], Bounds | None]) -> list[bool]:
    """Modality from what getWindows() reports (docs/agent-android.md, "Modal windows"), as the
    Java agent's tree/WindowMeta.modal has it: an application window is modal when it has the focus,
    floats within its task (spans neither the task's width nor its height: a task's own window
    fills its task, full screen, split or freeform) and no application window of its task is
    reported under it overlapping it; the task's bounds (`focused_task`, asked only for a focused
    window floating on the display; None: the display) keep another task's windows out of it. A
    focused system window that is not system UI's is modal too."""
    display: Bounds = (0, 0, width, height)
    out = []
    for i, meta in enumerate(metas):
        if not meta["focused"]:
            out.append(False)
        elif meta["type"] == "application":
            out.append(_floats(meta["bounds"], display) and _modal_in_task(metas, i, focused_task() or display))
        else:
            out.append(meta["type"] == "system" and meta["package"] != SYSTEM_UI)
    return out


def _modal_in_task(metas: list[dict[str, Any]], i: int, task: Bounds) -> bool:
    return _floats(metas[i]["bounds"], task) and not _task_window_below(metas, i, task)


def _floats(bounds: list[int], area: Bounds) -> bool:
    """Spans neither the width nor the height of `area`: a dialog, not its task's own window."""
    left, top, right, bottom = bounds
    full_width = left <= area[0] and right >= area[2]
    full_height = top <= area[1] and bottom >= area[3]
    return not full_width and not full_height


def _task_window_below(metas: list[dict[str, Any]], i: int, task: Bounds) -> bool:
    """An application window of the task (within its bounds) reported under window i, overlapping it."""
    a = metas[i]["bounds"]
    for below in metas[i + 1:]:
        b = below["bounds"]
        if below["type"] != "application" or not _within(b, task):
            continue
        if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
            return True
    return False


def _within(b: list[int], area: Bounds) -> bool:
    return b[0] >= area[0] and b[1] >= area[1] and b[2] <= area[2] and b[3] <= area[3]


# --- serialization --------------------------------------------------------------------------------


def serialize(reads: list[tuple[dict[str, Any], TreeRead]], max_nodes: int,
              max_depth: int) -> tuple[list[dict[str, Any]], int, bool]:
    """The WINDOW dicts with the caps applied; the full node count; whether anything was cut."""
    out: list[dict[str, Any]] = []
    node_count = 0
    budget = max_nodes
    truncated = False
    for meta, read in reads:
        count = len(read.nodes)
        node_count += count
        if count <= budget and (not read.depths or max(read.depths) <= max_depth):
            nodes = read.nodes
        else:
            nodes = _capped(read, budget, max_depth)
            truncated = True
        budget -= len(nodes)
        meta["node_count"] = count
        meta["skipped_children"] = read.skipped
        meta["nodes"] = nodes
        out.append(meta)
    return out, node_count, truncated


def _capped(read: TreeRead, budget: int, max_depth: int) -> list[dict[str, Any]]:
    """Pre-order nodes within the depth cap, at most `budget`; children lists keep only the nodes
    serialized, so every id a node names is in the snapshot."""
    kept: list[dict[str, Any]] = []
    ids: set[int] = set()
    for node, depth in zip(read.nodes, read.depths, strict=True):
        if len(kept) >= budget:
            break
        if depth > max_depth or (node["parent"] is not None and node["parent"] not in ids):
            continue
        kept.append(node)
        ids.add(node["id"])
    return [dict(n, children=[c for c in n["children"] if c in ids]) for n in kept]


def _release_all(lock: Any) -> int:
    """Release an RLock this thread holds, however deep; how many times it was held."""
    depth = 0
    while True:
        try:
            lock.release()
        except RuntimeError:  # not held (any more) by this thread
            return depth
        depth += 1
