"""The tree source: snapshot reads and bounds probes against the agent.

Every read is one `snapshot` request with a 10 s deadline. Reads after an attach, an action or a
resync take the agent's idle bound (500 ms, ending 200 ms after the last event or agent action);
reads the target's own changes trigger (events, polls, frames, moved nodes) do not wait, since the
mirror's settle replaces the platform's idle wait. Input the agent did not inject (the
controller's) leaves the agent's cache of event-less (Compose) windows stale and starts no idle
wait, so the next read waits until that input is 200 ms old (unless it is the read once the frames
went still, which are the better evidence) and, when the latest read showed an event-less window,
asks the agent to evict those windows first. Polls and the read after frames
went still evict the event-less windows too: the agent serves those from its cache until told
otherwise, and a poll served from that cache would see nothing new. The reads while frames keep
changing (ANIMATION) do not: a cold Compose read takes 0.5 to 1.5 s on an emulator, and one per
animation frame would load the agent and the app's UI thread for nothing.

A read or a probe takes the caller's `timeout` when it is shorter than the tree's own deadline (a
wait with little time left does not overrun it by the 10 s read deadline).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from pytest_mobile_agent.agent.protocol import JsonBytes
from pytest_mobile_agent.errors import ProtocolError
from pytest_mobile_agent.session.backends import (
    Bounds,
    Display,
    IdleReport,
    Node,
    ProbedBounds,
    ReadReason,
    Snapshot,
    Window,
    WindowMetadata,
)

log = logging.getLogger("pytest_mobile_agent.session")

BOUNDS_CAPABILITY = "bounds"
EVICTING_EVENT_LESS = frozenset({ReadReason.POLL, ReadReason.FRAME})
"""Reads that exist because an event-less window may have changed unannounced (a poll, frames that
changed and went still): the agent serves such a window from its cache until told otherwise, so
they evict it."""
FOREIGN_INPUT_QUIET = 0.2
"""How old input the agent did not inject must be before a read (the agent's idle_quiet_ms)."""


class Requester(Protocol):
    """What the tree source needs of `agent.Connection`."""

    def request(self, method: str, params: Mapping[str, Any], timeout: float) -> dict[str, Any]: ...

    def request_raw(self, method: str, params: Mapping[str, Any], timeout: float) -> JsonBytes:
        """The result as the JSON object's bytes (a snapshot's, decoded by `decode_snapshot`)."""
        ...


@dataclass(frozen=True)
class TreeOptions:
    read_timeout: float = 10.0
    probe_timeout: float = 0.5
    idle_timeout_ms: int = 500
    idle_quiet_ms: int = 200
    max_nodes: int = 5000
    max_depth: int = 80


@dataclass(frozen=True)
class ReadRecord:
    """What the latest read asked for and what it got."""

    reason: ReadReason
    params: Mapping[str, Any]
    started_at: float
    duration: float
    node_count: int
    windows: int


class AgentTree:
    """The TreeBackend on an agent connection."""

    def __init__(
        self,
        connection: Requester,
        scale: Callable[[], float],
        *,
        capabilities: Sequence[str] = (),
        options: TreeOptions | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._connection = connection
        self._scale = scale
        self._capabilities = frozenset(capabilities)
        self._options = options or TreeOptions()
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._foreign_input_at: float | None = None
        self._latest: Snapshot | None = None
        self._window_of: dict[int, int] = {}
        self.reads = 0
        self.reads_by_reason: Counter[ReadReason] = Counter()
        self.last_read: ReadRecord | None = None

    @property
    def latest(self) -> Snapshot | None:
        return self._latest

    @property
    def can_probe(self) -> bool:
        return BOUNDS_CAPABILITY in self._capabilities

    def note_foreign_input(self, at: float | None = None) -> None:
        """Input reached the target past the agent (through the controller)."""
        with self._lock:
            self._foreign_input_at = self._clock() if at is None else at

    def window_of(self, node_id: int) -> int | None:
        return self._window_of.get(node_id)

    def read(self, reason: ReadReason, windows: Sequence[int] = (), timeout: float | None = None) -> Snapshot:
        params = self._params(reason, windows)
        started = self._clock()
        result = self._connection.request_raw("snapshot", params, _capped(self._options.read_timeout, timeout))
        snapshot = decode_snapshot(result, scale=self._scale(), reason=reason, read_at=self._clock())
        self._remember(snapshot, reason, params, started)
        return snapshot

    def probe(self, node_ids: Sequence[int], timeout: float | None = None) -> ProbedBounds:
        """One bounds request for these nodes, mapped back to their windows by id."""
        if not self.can_probe:
            raise ProtocolError("the agent does not advertise bounds probes (agent 0.3.0 on)")
        if not node_ids:
            return {}
        result = self._connection.request("bounds", {"ids": list(node_ids)},
                                          _capped(self._options.probe_timeout, timeout))
        found: dict[int, dict[int, Bounds]] = {}
        for entry in _list(result, "nodes"):
            node_id = _int(entry, "id")
            window = self._window_of.get(node_id)
            if window is None:
                continue  # not a node of the latest read: nothing to map it to
            found.setdefault(window, {})[node_id] = _bounds(entry.get("bounds"))
        return found

    def _params(self, reason: ReadReason, windows: Sequence[int]) -> dict[str, Any]:
        options = self._options
        params: dict[str, Any] = {"max_nodes": options.max_nodes, "max_depth": options.max_depth}
        if reason.waits_for_idle:
            params["idle_timeout_ms"] = options.idle_timeout_ms
            params["idle_quiet_ms"] = options.idle_quiet_ms
        else:
            params["idle_timeout_ms"] = 0
        if reason is ReadReason.MOVED and windows:
            params["evict"] = sorted(set(windows))
        foreign = self._take_foreign_input(reason)
        if foreign or reason in EVICTING_EVENT_LESS:
            params["evict_event_less"] = True
        return params

    def _take_foreign_input(self, reason: ReadReason) -> bool:
        """Wait until foreign input is old enough; True when event-less windows must be evicted.

        A FRAME read needs no wait: the frames went still after the input (the mirror reads for
        FRAME only then), the evidence FOREIGN_INPUT_QUIET stands in for."""
        with self._lock:
            at, self._foreign_input_at = self._foreign_input_at, None
        if at is None:
            return False
        wait = at + FOREIGN_INPUT_QUIET - self._clock()
        if wait > 0 and reason is not ReadReason.FRAME:
            self._sleep(wait)
        latest = self._latest
        return latest is not None and any(not w.metadata.sends_change_events for w in latest.windows)

    def _remember(self, snapshot: Snapshot, reason: ReadReason, params: Mapping[str, Any], started: float) -> None:
        self._window_of = {node.id: window.id for window in snapshot.windows for node in window.nodes}
        self._latest = snapshot
        self.reads += 1
        self.reads_by_reason[reason] += 1
        self.last_read = ReadRecord(
            reason=reason,
            params=dict(params),
            started_at=started,
            duration=snapshot.read_at - started,
            node_count=snapshot.node_count,
            windows=len(snapshot.windows),
        )


def _capped(own: float, given: float | None) -> float:
    return own if given is None else max(0.001, min(own, given))


# --- decoding ------------------------------------------------------------------------------------
#
# A snapshot's result decodes straight into typed records: msgspec reads the frame's bytes into
# `Node`s (session/backends.py) inside the wire's window and snapshot records below, checking each
# key's type on the way, with no dict per node between the bytes and the replica. The windows' and
# the snapshot's records then become the seam's `Window` and `Snapshot` (three windows a read, a
# few objects each). Keys the agent leaves out take the defaults of docs/protocol.md; keys a newer
# agent adds are ignored.


class _WireIdle(msgspec.Struct):
    waited_ms: int = 0
    idle: bool = True


class _WireDisplay(msgspec.Struct):
    width: int = 0
    height: int = 0
    density: int = 0
    rotation: int = 0


class _WireWindow(msgspec.Struct, gc=False):
    """A WINDOW as docs/protocol.md gives it: its metadata flat beside its nodes."""

    id: int
    nodes: tuple[Node, ...]
    bounds: Bounds
    type: str = "application"
    title: str | None = None
    package: str | None = None
    layer: int = 0
    focused: bool = False
    active: bool = False
    # an agent without window metadata says nothing: trust its events as before task 3.6
    sends_change_events: bool = True
    owner: str | None = None
    modal: bool = False
    node_count: int | None = None


class _WireSnapshot(msgspec.Struct, gc=False):
    windows: tuple[_WireWindow, ...]
    node_count: int | None = None
    truncated: bool = False
    idle: _WireIdle | None = None
    seq: int = 0
    display: _WireDisplay | None = None


_SNAPSHOT_DECODER = msgspec.json.Decoder(_WireSnapshot)
_MALFORMED = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)


def decode_snapshot(data: JsonBytes, *, scale: float, reason: ReadReason, read_at: float) -> Snapshot:
    """The agent's snapshot result, the JSON object's bytes as the frame carried them, as values;
    a malformed one is a ProtocolError naming the key and where it is (`$.windows[0].nodes[3]`)."""
    try:
        wire = _SNAPSHOT_DECODER.decode(data)
    except _MALFORMED as exc:
        raise ProtocolError(f"malformed snapshot from the agent: {_why(exc)}") from None
    return _snapshot(wire, scale, reason, read_at)


def parse_snapshot(result: Mapping[str, Any], *, scale: float, reason: ReadReason, read_at: float) -> Snapshot:
    """The agent's snapshot result, already decoded into dicts (a scripted agent's, a test's), as
    values: the same records and the same checks as `decode_snapshot`."""
    try:
        wire = msgspec.convert(result, _WireSnapshot)
    except _MALFORMED as exc:
        raise ProtocolError(f"malformed snapshot from the agent: {_why(exc)}") from None
    return _snapshot(wire, scale, reason, read_at)


def _why(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc)[:300]


def _snapshot(wire: _WireSnapshot, scale: float, reason: ReadReason, read_at: float) -> Snapshot:
    windows = tuple(map(_window, wire.windows))
    idle, display = wire.idle or _NO_IDLE, wire.display or _NO_DISPLAY
    return Snapshot(
        windows=windows,
        node_count=sum(len(w.nodes) for w in windows) if wire.node_count is None else wire.node_count,
        truncated=wire.truncated,
        idle=IdleReport(waited_ms=idle.waited_ms, idle=idle.idle),
        seq=wire.seq,
        display=Display(width=display.width, height=display.height, density=display.density,
                        rotation=display.rotation),
        scale=scale,
        backend="agent",
        reason=reason,
        read_at=read_at,
    )


_NO_IDLE = _WireIdle()
_NO_DISPLAY = _WireDisplay()


def _window(w: _WireWindow) -> Window:
    return Window(
        id=w.id,
        type=w.type,
        title=w.title,
        package=w.package,
        layer=w.layer,
        focused=w.focused,
        active=w.active,
        bounds=w.bounds,
        metadata=WindowMetadata(sends_change_events=w.sends_change_events, owner=w.owner, modal=w.modal),
        node_count=len(w.nodes) if w.node_count is None else w.node_count,
        nodes=w.nodes,
    )


def _bounds(value: Any) -> Bounds:
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        raise ProtocolError(f"malformed bounds from the agent: {value!r}")
    return (int(value[0]), int(value[1]), int(value[2]), int(value[3]))


def _list(result: Mapping[str, Any], key: str) -> list[Any]:
    value = result.get(key) if isinstance(result, Mapping) else None
    if not isinstance(value, list):
        raise ProtocolError(f"malformed reply from the agent: {key!r} is not a list")
    return value


def _int(entry: Any, key: str) -> int:
    value = entry.get(key) if isinstance(entry, Mapping) else None
    if not isinstance(value, int):
        raise ProtocolError(f"malformed reply from the agent: {key!r} is not an integer")
    return value


# --- the display scale ---------------------------------------------------------------------------


def scale_from_wm_density(output: str) -> float:
    """Pixels per point from `wm density`: the override density first, else the physical one, /160.

    `Physical density: 420` gives 2.625; with `Override density: 480` below it, 3.0.
    """
    physical: int | None = None
    override: int | None = None
    for line in output.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        value = value.strip()
        if not (value.isascii() and value.isdigit()):  # "²" is a digit to isdigit, not to int
            continue
        name = key.strip().lower()
        if name == "override density":
            override = int(value)
        elif name == "physical density":
            physical = int(value)
    density = override or physical
    if not density:
        raise ProtocolError(f"`wm density` printed no density: {output.strip()[:200]!r}")
    return density / 160.0
