"""session::paths::tests: which path each kind of input takes, and the status report."""

from __future__ import annotations

import errno
import os
import socket

from pytest_mobile_agent.agent.protocol import Disconnection
from pytest_mobile_agent.emulator import Endpoint
from pytest_mobile_agent.errors import Unavailable
from pytest_mobile_agent.session import (
    ControllerChoice,
    PathOptions,
    Selection,
    Session,
    select_paths,
)
from tests.support.polling import until
from tests.support.session_fakes import (
    FakeAttached,
    FakeConnection,
    FakeController,
    reused,
    rgb_frame,
)

SOCKET = "mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae"
FIRST = f"emulator-5554: mobile-agent-android 0.1.0 over protocol 1, pid 2973, socket {SOCKET}, launched"
CLOSED_PORT_REASON = (
    "connecting to http://127.0.0.1:51770: transport error: tcp connect error: Connection refused (os error 61)"
)
#: the seed's status report "On the API 36 emulator started with -grpc 8554 -grpc-use-token", word for word
SEED_FAST_PATH_REPORT = [
    "emulator-5554: mobile-agent-android 0.1.0 over protocol 1, pid 2973, socket "
    "mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae, launched",
    "input: emulator controller at http://127.0.0.1:8554 (taps, long presses and swipes)",
    "frames: emulator controller, 14 received",
    "screenshots: agent",
    "keys and text: agent; the AVD declares no keyboard, so the controller would drop keys",
]
SEED_CLOSED_PORT_LINE = (  # the seed's status report "With the controller's port closed", its last line
    "warning: emulator control endpoint unavailable for emulator-5554 (connecting to http://127.0.0.1:51770: "
    "transport error: tcp connect error: Connection refused (os error 61)): taps and frames fall back to the "
    "agent. Start the emulator with `-grpc 8554 -grpc-use-token` to use the fast path, or enable it without a "
    "restart through the emulator console command `grpc 8554`, for example `adb -s emulator-5554 emu grpc 8554`."
)


def options(controller: FakeController | None = None, error: Exception | None = None) -> PathOptions:
    def connect(endpoint: Endpoint, timeout: float) -> FakeController:
        if error is not None:
            raise error
        assert controller is not None
        return controller

    return PathOptions(resolve=lambda serial: Endpoint.at(8554, serial=serial), connect=connect)


def session_on(selection: Selection, attached: FakeAttached | None = None) -> Session:
    return Session.start_selected(attached or FakeAttached(), selection, scale=2.625)


def test_the_status_names_the_fast_path_and_the_keyboard() -> None:
    controller = FakeController(keyboard=False, streams=[[]])
    selection = select_paths("emulator-5554", True, ControllerChoice.Auto(), options(controller))
    assert selection.controller is controller and selection.warning is None
    session = session_on(selection)
    try:
        for seq in range(14):
            session.frames.accept(rgb_frame(seq=seq))
        assert session.status() == SEED_FAST_PATH_REPORT
        controller.hardware.keyboard = True
        assert session.status()[4] == (
            "keys and text: agent; the AVD declares a keyboard, but the controller cannot say "
            "whether the platform accepted a key"
        )
    finally:
        session.stop()


def test_an_emulator_whose_controller_does_not_answer_falls_back_with_the_launch_flag() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    choice = ControllerChoice.Endpoint(Endpoint.at(port, serial="emulator-5554"))
    selection = select_paths("emulator-5554", True, choice, PathOptions(connect_timeout=1.0))
    assert selection.controller is None
    assert selection.warning is not None
    assert f"connecting to http://127.0.0.1:{port}" in selection.warning
    assert "Start the emulator with `-grpc 8554 -grpc-use-token`" in selection.warning
    assert "`adb -s emulator-5554 emu grpc 8554`" in selection.warning


def test_a_closed_controller_port_writes_the_seeds_warning_line_word_for_word() -> None:
    """Issue 16 item 11: the seed's line says `transport error: tcp connect error: ...`; only the
    port and the OS's errno (61 on macOS, 111 on Linux) may differ."""
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    choice = ControllerChoice.Endpoint(Endpoint.at(port, serial="emulator-5554"))
    session = session_on(select_paths("emulator-5554", True, choice, PathOptions(connect_timeout=1.0)))
    seed_line = (
        session.status()[-1]
        .replace(f":{port}:", ":51770:")
        .replace(f"(os error {errno.ECONNREFUSED})", "(os error 61)")
        .replace(os.strerror(errno.ECONNREFUSED), "Connection refused")
    )
    assert seed_line == SEED_CLOSED_PORT_LINE


def test_the_status_names_the_agent_path_and_carries_the_warning() -> None:
    selection = select_paths("emulator-5554", True, ControllerChoice.Auto(),
                             options(error=Unavailable("emulator-5554", CLOSED_PORT_REASON)))
    session = session_on(selection)
    assert session.status() == [
        FIRST,
        "input: agent (taps, long presses and swipes)",
        "frames: none; screenshots come from the agent on demand",
        "screenshots: agent",
        "keys and text: agent",
        "warning: emulator control endpoint unavailable for emulator-5554 (connecting to "
        "http://127.0.0.1:51770: transport error: tcp connect error: Connection refused (os error 61)): "
        "taps and frames fall back to the agent. Start the emulator with `-grpc 8554 -grpc-use-token` "
        "to use the fast path, or enable it without a restart through the emulator console command "
        "`grpc 8554`, for example `adb -s emulator-5554 emu grpc 8554`.",
    ]


def test_the_agent_paths_send_everything_to_the_agent() -> None:
    for selection in (
        select_paths("emulator-5554", True, ControllerChoice.Auto(), options(error=Unavailable("emulator-5554", "x"))),
        select_paths("emulator-5554", True, ControllerChoice.Off(), options(FakeController())),
        select_paths("R58M", False, ControllerChoice.Auto(), options(FakeController())),
    ):
        conn = FakeConnection()
        session = session_on(selection, FakeAttached(connection=conn))
        backend = session.backend()
        backend.input.tap(10, 10)
        backend.input.swipe(0, 0, 10, 10, 0.1)
        backend.input.key(4)
        backend.input.text("a")
        assert not backend.frames.live
        assert [m for m, _, _ in conn.requests] == ["tap", "swipe", "key", "text"]
        assert session.inputs.agent == 4 and session.inputs.controller == 0


def test_the_status_names_the_agent_its_version_and_whether_it_was_reused() -> None:
    attached = FakeAttached(outcome=reused())
    session = Session.start(attached, scale=2.625, serial="emulator-5554")
    assert session.status()[0] == (
        f"emulator-5554: mobile-agent-android 0.1.0 over protocol 1, pid 2973, socket {SOCKET}, reused"
    )
    launched = Session.start(FakeAttached(), scale=2.625)
    assert launched.status()[0] == FIRST  # the serial from the agent's record


def test_a_controller_failure_and_a_lost_agent_are_reported() -> None:
    controller = FakeController(fail_at_touch=0, streams=[[RuntimeError("stream reset")], []])
    conn = FakeConnection()
    session = session_on(Selection("emulator-5554", True, ControllerChoice.Auto(), controller=controller),
                         FakeAttached(connection=conn))
    try:
        session.backend().input.long_press(10, 10, 0.6)
        until(lambda: session.frames.failures == 1 and len(controller.subscriptions) == 2,
              what="the stream's failure counted and a new subscription")
        conn.emit(Disconnection("the agent closed the connection"))
        status = session.status()
        assert status[1] == (
            "input: agent (taps, long presses and swipes); the emulator controller at http://127.0.0.1:8554 "
            "failed: sendTouch failed: UNAVAILABLE: connection reset"
        )
        assert status[2] == (
            "frames: emulator controller, 0 received; the stream failed once and was subscribed to again "
            "(last: stream reset)"
        )
        assert status[-1] == (
            "agent: disconnected (the agent closed the connection); attach again to relaunch or reuse the agent"
        )
        assert session.inputs.agent == 1
    finally:
        session.stop()


def test_a_device_uses_the_agent_without_a_warning() -> None:
    selection = select_paths("R58M123", False, ControllerChoice.Auto(), options(FakeController()))
    assert selection.controller is None and selection.warning is None
    assert not any(line.startswith("warning") for line in session_on(selection).status())


def test_an_emulator_whose_controller_is_turned_off_uses_the_agent_without_a_warning() -> None:
    resolved: list[str] = []
    opts = PathOptions(resolve=lambda s: resolved.append(s) or Endpoint.at(8554), connect=lambda e, t: None)
    selection = select_paths("emulator-5554", True, ControllerChoice.Off(), opts)
    assert selection.controller is None and selection.warning is None and resolved == []
    assert session_on(selection).status()[1] == "input: agent (taps, long presses and swipes)"


def test_a_timeout_while_connecting_is_a_fallback_with_the_warning() -> None:
    from pytest_mobile_agent.errors import Timeout

    selection = select_paths("emulator-5556", True, ControllerChoice.Auto(),
                             options(error=Timeout("getStatus on http://127.0.0.1:8556", 2.0)))
    assert selection.warning is not None and "`-grpc 8556 -grpc-use-token`" in selection.warning
    assert "getStatus on http://127.0.0.1:8556 timed out" in selection.warning
