"""The seed's agent session and path selection integration tests (tests/agent_session.rs and
tests/emulator_paths.rs), full stack: the adb client, the deployed agent, the session, the mirror.

On `--android-serial virtual` the agent is the double started from AgentJar.stand_in() and the
controller the virtual device's ControllerDouble, advertised in a discovery file of the test's own;
on an emulator they are the real ones (the controller test needs `-grpc <port> -grpc-use-token`).
What the tests do on the device: start the Compose fixture (`am start -S`) on a tab, drive it
through the mirror, stop their agents (the full-stack test kills its agent with SIGKILL) and
force-stop the fixture at the end.
"""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.agent import AgentJar, Attached, Deployer, DeployOptions, Records
from pytest_mobile_agent.emulator import Endpoint
from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.plugin.policy import QuietWait, parse_ps
from pytest_mobile_agent.session import (
    ControllerChoice,
    PathOptions,
    ReadReason,
    Session,
    select_paths,
)
from pytest_mobile_agent.session import backends as b
from tests.support.polling import until

pytestmark = pytest.mark.device

PACKAGE = "dev.mobileagent.fixture"
COMPONENT = f"{PACKAGE}/.MainActivity"
IDLE_EXIT_MS = 10_000
BIG_NODES = 573
BIG_CELLS = 500


@dataclass
class Rig:
    """One test's agents, sessions and mirrors, and the cleanup that stops them all."""

    device: Device
    jar: AgentJar
    serial: str
    emulator: bool
    records: Records = field(default_factory=Records)
    sessions: list[Session] = field(default_factory=list)
    started: list[tuple[int, str]] = field(default_factory=list)

    def open(self, tab: str) -> None:
        """Start the fixture app on `tab` and wait until it is in front."""
        out = self.device.shell_until(f"am start -W -S -n {COMPONENT} --es tab {tab}", time.monotonic() + 30)
        assert out.exit_code == 0 and "Status: ok" in out.text(), out.text()

    def attach(self) -> Attached:
        deployer = Deployer(self.device, self.jar, self.records, DeployOptions(idle_exit_ms=IDLE_EXIT_MS))
        attached = deployer.attach()
        self.started.append((attached.record.pid, attached.record.socket))
        return attached

    def start(
        self, choice: ControllerChoice | None = None, options: PathOptions | None = None
    ) -> tuple[Session, Mirror]:
        choice = choice or ControllerChoice.Off()
        selection = select_paths(self.serial, self.emulator, choice, options)
        session = Session.start_selected(self.attach(), selection, device=self.device)
        self.sessions.append(session)
        return session, Mirror(session.backend(), timeout=10.0)

    def cleanup(self) -> None:
        for session in self.sessions:
            with contextlib.suppress(errors.MobileAgentError):
                session.stop()
        killer = Deployer(self.device, self.jar, self.records)
        for pid, socket in self.started:
            with contextlib.suppress(errors.MobileAgentError):
                killer.kill(pid, socket)
        with contextlib.suppress(errors.MobileAgentError):
            self.device.shell(f"am force-stop {PACKAGE}")


def _virtual_device(android_target: Any) -> Any:
    """The lab's device model: it carries the fixture app's UI and the agent double."""
    return android_target.lab.device(android_target.serial)


@pytest.fixture
def rig(android_target: Any, device: Device, without_this_runs_agent: None) -> Iterator[Rig]:
    if android_target.virtual:
        _virtual_device(android_target)
        jar, emulator = AgentJar.stand_in(), True
    else:
        jar = AgentJar.locate()
        emulator = android_target.serial.startswith("emulator-")
    one = Rig(device, jar, android_target.serial, emulator)
    # the shared-device rule: up to a minute until no other agent runs and nothing holds UI automation
    QuietWait(lambda: parse_ps(device.shell("ps -A -o PID,ARGS").text()), lambda: ()).wait()
    try:
        yield one
    finally:
        one.cleanup()


@pytest.fixture
def controller_choice(
    android_target: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ControllerChoice]:
    """Auto, with a controller to resolve: the virtual device's double, or the emulator's own."""
    if not android_target.virtual:
        if not android_target.serial.startswith("emulator-"):
            pytest.skip("the controller path needs an emulator")
        yield ControllerChoice.Auto()
        return
    from pytest_mobile_agent.virtual.fronts.controller import ControllerDouble

    monkeypatch.setenv(DISCOVERY_DIR_ENV, str(tmp_path))
    double = ControllerDouble(_virtual_device(android_target).display, serial=android_target.serial,
                              discovery_dir=tmp_path).start()
    try:
        yield ControllerChoice.Auto()
    finally:
        double.stop()


def _frames(screen_events: list[b.SessionEvent]) -> list[b.FrameEvent]:
    return [e for e in screen_events if isinstance(e, b.FrameEvent)]


# --- the tests -------------------------------------------------------------------------------------


def test_the_mirror_serves_compose_big_follows_a_tap_and_reports_a_killed_agent(rig: Rig) -> None:
    rig.open("Big")
    session, screen = rig.start()
    screen.wait_for(text=f"Cell {BIG_CELLS}")
    view = screen.snapshot()
    assert view.snapshot.node_count == BIG_NODES and view.node_count == BIG_NODES
    cells = screen.find_all(text_matches=r"^Cell \d+$")
    assert len(cells) == BIG_CELLS and len({c.ref for c in cells}) == BIG_CELLS  # every cell has a ref
    assert not view.snapshot.window(cells[0].window.id).metadata.sends_change_events  # type: ignore[union-attr]

    started = time.perf_counter()
    ack = screen.find(id="tab_login").tap()
    acknowledged = time.perf_counter() - started
    assert ack.accepted and ack.path == "agent"
    screen.wait_for(id="login_button")
    assert session.last_read is not None
    print(f"tap acknowledged through the mirror in {acknowledged * 1000:.1f} ms")

    pid = session.connection.hello.pid
    started = time.perf_counter()
    rig.device.shell(f"kill -9 {pid}")
    gone = screen.wait_disconnected(timeout=5.0)
    print(f"killed agent reported disconnected after {(time.perf_counter() - started) * 1000:.1f} ms")
    assert gone.reconnect_hint
    assert session.status()[-1].startswith("agent: disconnected (")
    with pytest.raises(errors.Disconnected):
        screen.refresh()


def test_the_same_agent_serves_the_mirror_after_the_app_is_force_stopped_and_relaunched(rig: Rig) -> None:
    rig.open("Login")
    session, screen = rig.start()
    screen.wait_for(id="login_button")
    pid = session.connection.hello.pid
    rig.device.shell(f"am force-stop {PACKAGE}")
    screen.wait_gone(id="tab_login")
    rig.open("Big")
    screen.wait_for(text="Cell 1")
    assert screen.connected and session.connection.hello.pid == pid
    assert rig.device.shell(f"cat /proc/{pid}/cmdline").exit_code == 0


def test_a_snapshot_after_a_tap_that_tears_the_big_screen_down_under_the_agents_reread_is_answered_in_time(
    rig: Rig,
) -> None:
    rig.open("Login")
    session, screen = rig.start()
    screen.find(id="tab_big").tap()
    screen.wait_for(text=f"Cell {BIG_CELLS}")
    screen.find(id="tab_login").tap()  # tears the Big screen down while the agent reads it again
    started = time.monotonic()
    view = screen.snapshot()
    took = time.monotonic() - started
    assert session.last_read is not None and session.last_read.reason is ReadReason.ACTION
    assert took < 10.0, f"the read after the tap took {took:.2f} s, past its 10 s deadline"
    assert view.node_count > 0
    screen.wait_gone(text=f"Cell {BIG_CELLS}")
    screen.wait_for(id="login_button")


def test_with_the_controller_taps_and_frames_use_it_and_the_status_names_the_fast_path(
    rig: Rig, controller_choice: ControllerChoice
) -> None:
    """The seed's scenario "Control endpoint enabled": a tap through the mirror counted on the
    controller (its press and lift in one streamInputEvent call since issue 27), a swipe too,
    frames received and encoded, and the status lines word for word."""
    rig.open("Big")
    session, screen = rig.start(controller_choice)
    assert session.controller is not None, session.warning
    screen.wait_for(text=f"Cell {BIG_CELLS}")
    ack = screen.find(id="tab_list").tap()
    assert ack.accepted and ack.path == "controller" and session.inputs.controller == 1 and session.inputs.agent == 0
    container = screen.wait_for(id="list")
    ack = screen.swipe_within(container, "up", resting=True)
    assert ack.accepted and ack.path == "controller" and session.inputs.controller == 2
    screen.wait_until(lambda view: not any(e.node.text == "Item 1" for e in view.entries), what="the list scrolled")
    until(lambda: session.frames_received > 0, 5.0, "controller frames arrive")
    jpeg = session.frames.jpeg(width=270)
    with Image.open(io.BytesIO(jpeg)) as image:
        assert image.format == "JPEG" and image.width == 270
    status = session.status()
    url = session.controller.endpoint.url
    assert status[1] == f"input: emulator controller at {url} (taps, long presses and swipes)"
    assert status[2] == f"frames: emulator controller, {session.frames_received} received"
    assert status[3] == "screenshots: agent"
    assert status[4].startswith("keys and text: agent; the AVD declares")
    assert not any(line.startswith("warning") for line in status)


def test_without_the_controller_taps_and_screenshots_use_the_agent_and_the_status_warns(rig: Rig) -> None:
    import socket

    with socket.socket() as s:  # a closed port
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rig.open("Big")
    choice = ControllerChoice.Endpoint(Endpoint.at(port, serial=rig.serial))
    session, screen = rig.start(choice, PathOptions(connect_timeout=1.0))
    assert session.controller is None
    screen.wait_for(text=f"Cell {BIG_CELLS}")
    assert screen.find(id="tab_login").tap().path == "agent"
    assert session.inputs.agent == 1 and session.inputs.controller == 0
    shot = session.screenshot()
    with Image.open(io.BytesIO(shot.data)) as image:
        assert image.format == "PNG" and image.size == (shot.width, shot.height)
    assert session.frames_received == 0 and not session.frames.live
    status = session.status()
    assert status[1:5] == [
        "input: agent (taps, long presses and swipes)",
        "frames: none; screenshots come from the agent on demand",
        "screenshots: agent",
        "keys and text: agent",
    ]
    assert status[5].startswith(f"warning: emulator control endpoint unavailable for {rig.serial} (connecting to "
                                f"http://127.0.0.1:{port}")
    assert "-grpc-use-token" in status[5] and "emu grpc" in status[5]


def test_controller_frames_arrive_on_the_event_stream_with_status_bar_free_hashes(
    rig: Rig, controller_choice: ControllerChoice
) -> None:
    rig.open("Login")
    session, _ = rig.start(controller_choice)
    assert session.controller is not None, session.warning
    events = session.events  # the stream itself, read here instead of by a mirror
    seen: list[b.SessionEvent] = []
    deadline = time.monotonic() + 2.5  # the status bar's clock changes every second meanwhile
    while time.monotonic() < deadline:
        event = events.next_event(0.1)
        if event is not None:
            seen.append(event)
    still = _frames(seen)
    assert still, "no frame arrived"
    assert len({f.hash for f in still[1:]} | {still[-1].hash}) == 1, "a still screen's hashes changed"
    assert all(f.width == 540 and f.captured_at <= f.received_at for f in still)
    session.input.tap(*_centre(session, "tab_list"))
    changed: list[b.FrameEvent] = []
    until(lambda: bool(changed.extend(_frames(events.drain())) or any(f.hash != still[-1].hash for f in changed)),
          5.0, "a frame with a new hash after the tap")


def _centre(session: Session, res: str) -> tuple[float, float]:
    """The node's centre in pixels, as the input seam takes it."""
    snapshot = session.tree.read(ReadReason.POLL)
    for window in snapshot.windows:
        for node in window.nodes:
            if node.res == res:
                left, top, right, bottom = node.bounds
                return ((left + right) / 2, (top + bottom) / 2)
    raise AssertionError(f"no node {res}")


def test_open_on_the_agent_path_waits_for_the_screen_to_slide_in(rig: Rig) -> None:
    """Content that moves without a change event (the fixture has no slide-in transition; its List
    tab's fling is the motion): on the agent path, without frames, the settle probes the bounds and
    reads the moved window again until it stops, so the settled replica is where the screen came to rest."""
    rig.open("List")
    session, screen = rig.start()
    lst = screen.wait_for(id="list")
    assert screen.backend.tree.can_probe and not screen.backend.frames.live
    screen.swipe_within(lst, "up", distance=0.7, duration=0.1)  # a fling
    assert screen.settle(timeout=8.0, quiet=0.4)
    assert screen.probes > 0 and session.tree.reads_by_reason[ReadReason.MOVED] > 0
    settled = {e.node.text: e.node.bounds for e in screen.snapshot().entries if e.node.text}
    fresh = session.tree.read(ReadReason.MOVED, [w.id for w in screen.snapshot().windows])
    now = {n.text: n.bounds for w in fresh.windows for n in w.nodes if n.text}
    assert now == settled


# --- the mirror's API on the full stack (beyond the seed) ----------------------------------------------


def test_scroll_until_brings_a_list_item_into_view_and_a_tap_selects_it(rig: Rig) -> None:
    rig.open("List")
    _, screen = rig.start()
    screen.wait_for(text="Item 1")
    item = screen.scroll_until(text="Item 30", max_swipes=10)
    assert item.visible and item.bounds[3] > item.bounds[1]
    item.tap()
    screen.wait_for(text="Item 30", selected=True)


def test_type_text_fills_a_field_and_the_keyboard_window_appears(rig: Rig) -> None:
    rig.open("Login")
    _, screen = rig.start()
    ack = screen.wait_for(id="username").type_text("ada")
    assert ack.accepted and ack.method == "direct"
    screen.wait_for(id="username", text="ada")
    assert screen.find(id="username").focused
    screen.wait_for(window="input_method", clickable=True)
    screen.press_key("back")
    screen.wait_gone(window="input_method", clickable=True)
