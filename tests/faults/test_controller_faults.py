"""The emulator controller gone mid-stream and back, on the virtual device's controller double.

Gone: the frame stream stops and its failures are counted and reported, the next tap goes to the
agent and the status names the agent for input and the controller's failure. Back (the same
endpoint serving again): the frame stream is subscribed to again and frames flow; input stays with
the agent (a controller that failed once is not trusted with a touch again).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.session import ControllerChoice, PathOptions, Session, select_paths
from pytest_mobile_agent.virtual.fronts.controller import ControllerDouble
from tests.support.lab import Bench
from tests.support.polling import until
from tests.support.ports import free_port


def _session_on_a_controller_double(vd: Bench, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> tuple[ControllerDouble, Session]:
    """A controller double for the virtual device, found through its discovery file, and a session on it.
    Its port is a free one of its own, not the emulator's default (console port + 3000): another test
    or process here may take that default once the double lets it go, and a test restarts the double
    on the port it had."""
    monkeypatch.setenv(DISCOVERY_DIR_ENV, str(tmp_path))
    double = ControllerDouble(vd.model.display, serial=vd.serial, discovery_dir=tmp_path, port=free_port()).start()
    session = Session.start_selected(vd.attach(), select_paths(vd.serial, True, ControllerChoice.Auto(),
                                                               PathOptions(connect_timeout=2.0)), device=vd.device)
    return double, session


def test_the_controller_gone_mid_stream_moves_input_to_the_agent_and_back_frames_are_subscribed_again(
    vd: Bench, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    double, session = _session_on_a_controller_double(vd, tmp_path, monkeypatch)
    port, token = double.port, double.token
    back: ControllerDouble | None = None
    try:
        assert session.controller is not None, session.warning
        screen = Mirror(session.backend(), timeout=5.0)
        assert screen.find(id="tab_list").tap().path == "controller"
        assert screen.swipe_within(screen.wait_for(id="list"), "up", resting=True).path == "controller"
        until(lambda: session.frames_received > 0, 5.0, "frames arrive")

        double.stop()  # the emulator's gRPC endpoint goes away mid-stream
        until(lambda: session.frames.failures >= 1, 5.0, "the stream's failure is counted")
        received = session.frames_received
        time.sleep(0.5)
        assert session.frames_received == received, "frames stopped"
        ack = screen.swipe_within(screen.wait_for(id="list"), "down", resting=True)
        assert ack.accepted and ack.path == "agent"  # the controller failed before the touch landed
        assert screen.find(id="tab_login").tap().path == "agent"
        status = session.status()
        assert status[1].startswith("input: agent (taps, long presses and swipes); the emulator controller at "
                                    f"http://127.0.0.1:{port} failed: "), status
        assert "and was subscribed to again (last: " in status[2], status
        screen.wait_for(id="login_button")

        back = ControllerDouble(vd.model.display, serial=vd.serial, discovery_dir=tmp_path, port=port)
        back.token = token  # the same endpoint serving again (the emulator console's `grpc <port>`)
        back.start()
        assert back.port == port
        until(lambda: session.frames_received > received, 10.0, "frames flow again on a new subscription")
        assert screen.find(id="tab_big").tap().path == "agent"
        screen.wait_for(text="Cell 1")
        assert screen.long_press(text="Cell 1").path == "agent"  # input stays with the agent
        assert session.inputs.controller == 2 and session.inputs.agent == 4
    finally:
        session.stop()
        if back is not None:
            back.stop()
        double.stop()


class _Refuser:
    """A TCP listener on the controller's port that takes each connection and drops it at once:
    the emulator's port while its gRPC service is down. Records when each attempt came."""

    def __init__(self, port: int) -> None:
        import socket
        import threading

        self.attempts: list[float] = []
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self._sock.listen(16)
        self._sock.settimeout(0.1)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            self.attempts.append(time.monotonic())
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2.0)
        self._sock.close()


def test_during_an_outage_the_channel_tries_again_often_and_the_mirror_is_told_frames_are_gone(
    vd: Bench, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 19 item 3: gRPC's default reconnect backoff (1 s growing to 120 s) brought frames back
    7.1 s after a 20 s outage ended, and `live` stayed true, so the mirror never probed."""
    double, session = _session_on_a_controller_double(vd, tmp_path, monkeypatch)
    port, token = double.port, double.token
    refuser: _Refuser | None = None
    back: ControllerDouble | None = None
    try:
        assert session.controller is not None, session.warning
        until(lambda: session.frames_received > 0 and session.frames.live, 5.0, "frames arrive")
        double.stop()
        refuser = _Refuser(port)
        until(lambda: not session.frames.live, 5.0, "the frames are reported gone")
        time.sleep(3.0)
        attempts = list(refuser.attempts)
        gaps = [b - a for a, b in zip(attempts, attempts[1:], strict=False)]
        assert len(attempts) >= 4 and max(gaps[1:]) <= 1.0, f"connection attempts {gaps}"
        assert not session.frames.live
        refuser.close()
        refuser = None
        received = session.frames_received
        back = ControllerDouble(vd.model.display, serial=vd.serial, discovery_dir=tmp_path, port=port)
        back.token = token
        back.start()
        until(lambda: session.frames_received > received and session.frames.live, 5.0, "frames flow again")
    finally:
        session.stop()
        if refuser is not None:
            refuser.close()
        if back is not None:
            back.stop()
        double.stop()


def test_a_tap_with_a_controller_whose_host_stalls_between_touches_is_still_a_click(
    vd: Bench, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 19 item 12: under a CPU quota the controller's tap was held 601 to 807 ms between its two
    sendTouch calls, the app took a long press (500 ms) and the click was lost, reported accepted.
    Issue 27: the tap goes through the controller again, its press and lift in one streamInputEvent
    call, so there is no pair of calls for a stall to come between: a host that stalls 700 ms after
    every sendTouch press leaves the tap a click."""
    double, session = _session_on_a_controller_double(vd, tmp_path, monkeypatch)
    try:
        controller = session.controller
        assert controller is not None, session.warning
        send = controller.touch
        stalls: list[float] = []

        def stalled(x: int, y: int, pressed: bool, identifier: int = 0, **kw: object) -> None:
            send(x, y, pressed, identifier)
            if pressed:
                stalls.append(0.7)
                time.sleep(0.7)  # the host is descheduled right after the finger went down

        monkeypatch.setattr(controller, "touch", stalled)
        screen = Mirror(session.backend(), timeout=5.0)
        ack = screen.find(id="tab_list").tap()
        assert ack.accepted and ack.path == "controller"
        assert stalls == [], "no sendTouch press: the press and the lift travelled in one call"
        assert screen.wait_for(id="list", timeout=3.0).exists  # clicked, not long-pressed
        assert [pressed for *_, pressed, _ in double.touches] == [True, False]
    finally:
        session.stop()
        double.stop()
