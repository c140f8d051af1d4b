"""The emulator controller gone mid-stream and back, on the virtual device's controller double.

Gone: the frame stream stops and its failures are counted and reported, the next tap goes to the
agent and the status names the agent for input and the controller's failure. Back (the same
endpoint serving again): the frame stream is subscribed to again and frames flow; input stays with
the agent (a controller that failed once is not trusted with a touch again).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from security.lab import Bench

from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.session import ControllerChoice, PathOptions, Session, select_paths
from pytest_mobile_agent.virtual.controller import ControllerDouble


def _wait(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {timeout} s"
        time.sleep(0.02)


def test_the_controller_gone_mid_stream_moves_input_to_the_agent_and_back_frames_are_subscribed_again(
    vd: Bench, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DISCOVERY_DIR_ENV, str(tmp_path))
    double = ControllerDouble(vd.model.display, serial=vd.serial, discovery_dir=tmp_path).start()
    port, token = double.port, double.token
    session = Session.start_selected(vd.attach(), select_paths(vd.serial, True, ControllerChoice.Auto(),
                                                               PathOptions(connect_timeout=2.0)), device=vd.device)
    back: ControllerDouble | None = None
    try:
        assert session.controller is not None, session.warning
        screen = Mirror(session.backend(), timeout=5.0)
        assert screen.find(id="tab_list").tap().path == "controller"
        _wait(lambda: session.frames_received > 0, 5.0, "frames arrive")

        double.stop()  # the emulator's gRPC endpoint goes away mid-stream
        _wait(lambda: session.frames.failures >= 1, 5.0, "the stream's failure is counted")
        received = session.frames_received
        time.sleep(0.5)
        assert session.frames_received == received, "frames stopped"
        ack = screen.find(id="tab_login").tap()
        assert ack.accepted and ack.path == "agent"
        status = session.status()
        assert status[1].startswith("input: agent (taps, long presses and swipes); the emulator controller at "
                                    f"http://127.0.0.1:{port} failed: "), status
        assert "and was subscribed to again (last: " in status[2], status
        screen.wait_for(id="login_button")

        back = ControllerDouble(vd.model.display, serial=vd.serial, discovery_dir=tmp_path, port=port)
        back.token = token  # the same endpoint serving again (the emulator console's `grpc <port>`)
        back.start()
        assert back.port == port
        _wait(lambda: session.frames_received > received, 10.0, "frames flow again on a new subscription")
        assert screen.find(id="tab_big").tap().path == "agent"  # input stays with the agent
        screen.wait_for(text="Cell 1")
        assert session.inputs.controller == 1 and session.inputs.agent == 2
    finally:
        session.stop()
        if back is not None:
            back.stop()
        double.stop()
