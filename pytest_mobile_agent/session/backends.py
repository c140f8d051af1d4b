"""The seam between the session and the mirror: four protocol classes and the values they pass.

The mirror reads the device only through these classes, so anything that implements them (the
session on a real agent, a scripted double in a test) can carry a mirror. Coordinates given to
`InputBackend` are physical pixels, as everything a snapshot carries is (as the agent sent it): the
seam speaks pixels end to end, and `Snapshot.scale` (pixels per point) is for reading sizes in dp.

The event stream carries the agent's own event classes (`ProtocolEvent`, `OutOfSync`, `Resynced`,
`Disconnection`, from agent/protocol.py, re-exported here) and the session's `FrameEvent` and
`EventsLost`: one class per concept across the layers.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

import msgspec

# the agent's own event classes, re-exported (the `as` form): one class per concept across the layers
from pytest_mobile_agent.agent.protocol import Disconnection as Disconnection
from pytest_mobile_agent.agent.protocol import OutOfSync as OutOfSync
from pytest_mobile_agent.agent.protocol import ProtocolEvent as ProtocolEvent
from pytest_mobile_agent.agent.protocol import Resynced as Resynced

Bounds = tuple[int, int, int, int]
"""left, top, right, bottom in physical pixels."""
TextMethod = Literal["auto", "direct", "keys", "clipboard"]
"""How the agent enters text (docs/protocol.md `text`): `auto` sets it directly where the node
allows it, else sends key events, else pastes it through the clipboard."""
ImageFormat = Literal["png", "jpeg"]
"""A screenshot's encoding."""


class ReadReason(enum.Enum):
    """Why the mirror reads. The first three take the agent's idle bound; the others do not, since
    the mirror's settle replaces the platform's idle wait (design D8)."""

    ATTACH = "attach"
    ACTION = "action"
    RESYNC = "resync"
    EVENT = "event"
    POLL = "poll"
    FRAME = "frame"
    """The frames went still after changing: the screen settled, and is read afresh."""
    ANIMATION = "animation"
    """The frames keep changing: a read at a bounded rate, from the agent's cache as it stands."""
    MOVED = "moved"

    @property
    def waits_for_idle(self) -> bool:
        return self in (ReadReason.ATTACH, ReadReason.ACTION, ReadReason.RESYNC)


@dataclass(frozen=True, slots=True)
class Scroll:
    """The scroll semantics of a scrollable container; `items`, `first`, `last` may be unknown (a
    key the agent left out is False or unknown)."""

    horizontal: bool = False
    vertical: bool = False
    can_back: bool = False
    can_forward: bool = False
    items: int | None = None
    first: int | None = None
    last: int | None = None


@dataclass(frozen=True, slots=True)
class RangeInfo:
    """A range's semantics (a slider, a progress bar): AccessibilityNodeInfo.RangeInfo's type
    (`int`, `float` or `percent`), bounds and current value (the wire's `range`)."""

    type: Literal["int", "float", "percent"]
    min: float
    max: float
    current: float


class Node(msgspec.Struct, frozen=True, gc=False, rename={"class_name": "class", "range_info": "range"}):
    """One accessibility node as the agent serialized it (depth-first pre-order in its window).

    A msgspec struct, so that a snapshot's frame decodes straight into its nodes with no dict per
    node between the bytes and the replica (session/tree.py), each key checked against its type on
    the way; the field names are the wire's (docs/protocol.md `NODE`) but for `class_name`. Frozen
    (hashable, a value) and untracked by the cyclic collector (`gc=False`: a node holds only
    scalars, tuples of them and a `Scroll`, never a cycle), which otherwise traverses every node of
    a 5,000-node read on its passes (benches/bench_large_trees.py)."""

    id: int
    parent: int | None
    depth: int
    class_name: str
    text: str | None
    desc: str | None
    res: str | None
    hint: str | None
    package: str | None
    bounds: Bounds
    clickable: bool
    long_clickable: bool
    focusable: bool
    focused: bool
    editable: bool
    checkable: bool
    checked: bool
    enabled: bool
    selected: bool
    scrollable: bool
    visible: bool
    password: bool
    children: tuple[int, ...]
    scroll: Scroll | None = None
    """A scrollable container's semantics (the wire's `scroll`, null or left out otherwise)."""
    ime_action: str | None = None
    """The IME action an editor declares (`search`, `go`, `done`, `next`, `send`, `previous`,
    `none`: EditorInfo's IME_ACTION_*), where the agent knows it; None otherwise (docs/protocol.md)."""
    # the accessibility fields (docs/protocol.md, capability `a11y_fields`): optional keys an agent
    # leaves out where they hold these defaults, and an agent before them never sends
    role: str | None = None
    """The role a screen reader speaks (the node's role description: Compose's Role, a View's
    AccessibilityNodeInfo extra `AccessibilityNodeInfo.roleDescription`)."""
    state: str | None = None
    """The state description (AccessibilityNodeInfo.getStateDescription, API 30)."""
    range_info: RangeInfo | None = None
    """A slider's or a progress bar's range (the wire's `range`)."""
    error: str | None = None
    """The error text a field shows (AccessibilityNodeInfo.getError)."""
    actions: tuple[str, ...] = ()
    """The node's accessibility actions beyond those its flags say: standard ones by name
    (`expand`, `collapse`, `dismiss`, `set_progress`, ...) and custom ones by their label."""
    labeled_by: int | None = None
    """The id of the node that labels this one (AccessibilityNodeInfo.getLabeledBy)."""
    important: bool = True
    """Whether the node is important for accessibility (isImportantForAccessibility)."""
    traversal_before: int | None = None
    """The id of the node a screen reader visits after this one (getTraversalBefore: this one
    is read before it)."""
    traversal_after: int | None = None
    """The id of the node a screen reader visits before this one (getTraversalAfter)."""


@dataclass(frozen=True, slots=True)
class WindowMetadata:
    """What the agent says about a window beyond its nodes (task 3.6)."""

    sends_change_events: bool
    """False for Compose content: such a window is read again after an action, never trusted to say."""
    owner: str | None
    """The system process that owns the window (`com.android.systemui`, ...), None for the app's own."""
    modal: bool
    """A dialog that takes the input (an alert, a permission prompt)."""


@dataclass(frozen=True, slots=True)
class Window:
    id: int
    type: str
    title: str | None
    package: str | None
    layer: int
    focused: bool
    active: bool
    bounds: Bounds
    metadata: WindowMetadata
    node_count: int
    nodes: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Display:
    width: int
    height: int
    density: int
    rotation: int


@dataclass(frozen=True, slots=True)
class IdleReport:
    waited_ms: int
    idle: bool


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One read of every interactive window, as the agent sent it (top-most window first)."""

    windows: tuple[Window, ...]
    node_count: int
    """Nodes in all windows' trees, also when the caps truncated what was serialized."""
    truncated: bool
    idle: IdleReport
    seq: int
    """The sequence number of the last event the agent sent before the read."""
    display: Display
    scale: float
    """Physical pixels per point (density / 160)."""
    backend: str
    """Who read it ("agent")."""
    reason: ReadReason
    read_at: float
    """time.monotonic() when the reply arrived."""

    def window(self, window_id: int) -> Window | None:
        for window in self.windows:
            if window.id == window_id:
                return window
        return None


ProbedBounds = Mapping[int, Mapping[int, Bounds]]
"""window id -> node id -> current bounds, for the nodes the agent still knows."""


# --- the event stream ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EventsLost:
    """The stream reached its cap while nobody read it: `count` protocol events were left out from
    `at` on, so the replica can no longer be trusted and is read again (as after OutOfSync)."""

    count: int
    at: float


@dataclass(frozen=True, slots=True)
class FrameEvent:
    """A controller frame on the event stream (time.monotonic() scale; the pixels are the
    emulator's `Frame`, which the frame source keeps): `hash` leaves the status bar out; `received_at`
    is the host's clock when it arrived; `changed_at` when the latest frame so far whose hash
    differed from the one before it arrived (this one's, or an earlier one's: a frame nobody read yet
    is replaced by the next, and the change it carried stays known); `captured_at` estimates when
    the emulator drew it, from its timestamp, corrected by the smallest lag seen (clock skew)."""

    hash: int
    captured_at: float
    received_at: float
    seq: int
    width: int
    height: int
    changed_at: float = 0.0

    @property
    def last_change(self) -> float:
        """When the screen was last seen changing, by the host's clock at arrival."""
        return self.changed_at or self.received_at


SessionEvent = ProtocolEvent | OutOfSync | Resynced | Disconnection | FrameEvent | EventsLost
"""The agent's events as its connection delivered them (agent/protocol.py's classes), and the
session's own: the controller's frames and the stream's note of events left out."""


# --- input ---------------------------------------------------------------------------------------


class Release(enum.Enum):
    """How a swipe lets go: lifting while moving (a fling), or resting first (task 10.16)."""

    MOVING = "moving"
    RESTING = "resting"


@dataclass(frozen=True, slots=True)
class Ack:
    """The platform's verdict on one input, and the path that carried it."""

    accepted: bool
    path: str
    """"agent" or "controller"."""
    method: str | None = None
    """For text: the method the agent used (direct, keys, clipboard)."""
    moves: int | None = None


@dataclass(frozen=True, slots=True)
class Screenshot:
    """An encoded image, upright; `rotation` is the display's in quarter turns."""

    format: str
    width: int
    height: int
    rotation: int
    data: bytes = field(repr=False)


# --- the protocol classes --------------------------------------------------------------------------


@runtime_checkable
class TreeBackend(Protocol):
    def read(self, reason: ReadReason, windows: Sequence[int] = (), timeout: float | None = None) -> Snapshot:
        """Read every interactive window. `windows` names the windows the read is for; a read for
        MOVED asks the agent to evict their cache first. `timeout` caps the backend's own read
        deadline (a wait with less time left passes what it has)."""
        ...

    @property
    def can_probe(self) -> bool:
        """Whether `probe` is served (the agent advertises the bounds capability)."""
        ...

    def probe(self, node_ids: Sequence[int], timeout: float | None = None) -> ProbedBounds:
        """The current bounds of these nodes of the latest read, by window; `timeout` as in read."""
        ...


@runtime_checkable
class EventBackend(Protocol):
    def next_event(self, timeout: float) -> SessionEvent | None:
        """The next event, waiting up to `timeout` seconds; None when none came."""
        ...

    def drain(self) -> list[SessionEvent]:
        """Every event that is already there, without waiting."""
        ...

    @property
    def ended(self) -> bool:
        """True once Disconnected has been put on the stream."""
        ...


@runtime_checkable
class InputBackend(Protocol):
    def tap(self, x: float, y: float) -> Ack: ...

    def long_press(self, x: float, y: float, hold: float) -> Ack: ...

    def swipe(
        self,
        x1: float,
        y1: float,
        x2: float,
        y2: float,
        duration: float,
        release: Release = Release.MOVING,
    ) -> Ack: ...

    def key(self, code: int, meta: int = 0) -> Ack: ...

    def text(self, text: str, node: int | None = None, method: TextMethod = "auto") -> Ack: ...

    def ime_enter(self, node: int | None = None) -> Ack | None:
        """AccessibilityAction.ACTION_IME_ENTER on the field (None: the focused one), its IME action;
        None when the agent cannot (the field does not offer it, or the agent predates `ime_enter`)."""
        ...

    def gesture(self, paths: Sequence[Sequence[tuple[float, float, float]]]) -> Ack:
        """Several fingers, each a path of (x, y, t): physical pixels, seconds from the start
        (session/multitouch.py)."""
        ...


@runtime_checkable
class FrameBackend(Protocol):
    @property
    def live(self) -> bool:
        """Whether frames arrive on the event stream (a controller is attached)."""
        ...

    def frames(self) -> list[FrameEvent]:
        """The kept frames (the last four), oldest first."""
        ...

    def jpeg(self, frame: FrameEvent | None = None, quality: int = 80, width: int | None = None) -> bytes:
        """A kept frame (the latest by default) turned upright, scaled and encoded as JPEG."""
        ...

    def screenshot(self, format: ImageFormat = "png") -> Screenshot:
        """A screenshot from the agent, upright in every display orientation."""
        ...


@dataclass(frozen=True, slots=True)
class Toast:
    """A toast the agent saw: its text, the app's package (None when the event named none), its
    class (`android.widget.Toast`), when it was shown on the host's clock (time.monotonic()), and
    whether the agent caused it (`by_agent`: ClipboardService's "... pasted from your clipboard"
    for the agent's own clipboard reads and the app's read of a pasted clip; docs/protocol.md)."""

    id: int
    text: str
    package: str | None
    class_name: str
    shown_at: float
    by_agent: bool = False


@dataclass(frozen=True, slots=True)
class ToastBatch:
    """The toasts after the one asked from, oldest first, and the id of the newest the agent saw."""

    toasts: tuple[Toast, ...]
    last: int


@runtime_checkable
class ToastBackend(Protocol):
    def since(self, after: int, timeout: float | None = None) -> ToastBatch:
        """The toasts the agent kept whose id is above `after` (docs/protocol.md `toasts`)."""
        ...


@dataclass(frozen=True)
class Backend:
    """The mirror's backends, handed over once by `Session.backend()`; `toasts` is None where the
    path has no agent that buffers them (a scripted double)."""

    tree: TreeBackend
    events: EventBackend
    input: InputBackend
    frames: FrameBackend
    scale: float
    toasts: ToastBackend | None = None
