"""Toasts on the host (issue 25, item 3): `screen.toasts` and `wait_for_toast` over the agent's buffer
(docs/protocol.md `toasts`), through the session's request and parse."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mobile_agent.errors import (
    AgentError,
    InvalidArgument,
    MobileAgentError,
    ProtocolError,
    WaitTimeout,
)
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.session import backends as b
from pytest_mobile_agent.session.toasts import AgentToasts, parse_toasts
from tests.support.mirror_fakes import Rig, login_screen


class AgentBuffer:
    """The agent's side: toasts kept with the time they were shown (the rig's clock), asked for by id."""

    def __init__(self, clock: Any) -> None:
        self.clock = clock
        self.kept: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []

    def show(self, text: str, package: str = "dev.mobileagent.fixture", at: float | None = None,
             by_agent: bool | None = None) -> None:
        kept = {"id": len(self.kept) + 1, "text": text, "package": package, "class": "android.widget.Toast",
                "at": self.clock.now if at is None else at}
        if by_agent is not None:
            kept["by_agent"] = by_agent
        self.kept.append(kept)

    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 5.0) -> dict[str, Any]:
        assert method == "toasts"
        self.requests.append(dict(params or {}))
        after = (params or {})["after"]
        toasts = [{k: v for k, v in t.items() if k != "at"} | {"age_ms": round((self.clock.now - t["at"]) * 1000)}
                  for t in self.kept if t["id"] > after]
        return {"toasts": toasts, "last": len(self.kept)}


def rig_with_toasts() -> tuple[Rig, AgentBuffer]:
    rig = Rig(login_screen())
    buffer = AgentBuffer(rig.clock)
    buffer.show("from an earlier test", at=rig.clock.now - 5)
    rig.backend = b.Backend(tree=rig.tree, events=rig.events, input=rig.input, frames=rig.frames,
                            scale=rig.backend.scale, toasts=AgentToasts(buffer, clock=rig.clock))
    rig.mirror = Mirror(rig.backend, clock=rig.clock)
    return rig, buffer


def test_wait_for_toast_waits_for_a_toast_shown_after_it_started_and_each_toast_counts_once() -> None:
    rig, buffer = rig_with_toasts()
    rig.events.at(rig.clock.now + 0.35, b.EventsLost(0, rig.clock.now))  # any news: the wait keeps asking anyway
    original = rig.events.next_event

    def next_event(timeout: float) -> b.SessionEvent | None:
        event = original(timeout)
        if rig.clock.now >= 1000.3 and len(buffer.kept) == 1:
            buffer.show("Saved")
        return event

    rig.events.next_event = next_event  # type: ignore[method-assign]
    start = rig.clock.now
    toast = rig.mirror.wait_for_toast(text="Saved", timeout=2)
    assert (toast.text, toast.package, toast.class_name) == ("Saved", "dev.mobileagent.fixture", "android.widget.Toast")
    assert 0.3 <= rig.clock.now - start <= 0.45  # asked every 0.1 s
    assert toast.shown_at == pytest.approx(1000.3, abs=0.11)
    with pytest.raises(WaitTimeout, match="waiting for a toast with text='Saved' timed out") as caught:
        rig.mirror.wait_for_toast(text="Saved", timeout=0.5)  # the one toast was taken by the first wait
    assert caught.value.candidates == ["toast 'Saved' from dev.mobileagent.fixture"]
    assert buffer.requests[-1] == {"after": 2}  # after the last id seen, not all again
    assert [t.text for t in rig.mirror.toasts] == ["Saved"]  # not the earlier test's


def test_wait_for_toast_matches_a_part_of_the_text_or_the_package_and_refuses_a_bad_argument() -> None:
    rig, buffer = rig_with_toasts()
    buffer.show("Message sent to Ada")
    buffer.show("Copied", package="com.android.systemui")
    assert rig.mirror.wait_for_toast(package="com.android.systemui").text == "Copied"
    assert rig.mirror.wait_for_toast(text_contains="sent to").text == "Message sent to Ada"
    with pytest.raises(InvalidArgument, match="text= takes a str"):
        rig.mirror.wait_for_toast(text=5)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="timeout must be a finite number"):
        rig.mirror.wait_for_toast(text="x", timeout=-1)


def test_an_agent_without_the_toasts_method_is_a_clear_error() -> None:
    class Old:
        def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 5.0) -> dict[str, Any]:
            raise AgentError("unknown_method", "unknown method toasts", method="toasts")

    with pytest.raises(MobileAgentError, match="the agent does not buffer toasts"):
        AgentToasts(Old()).since(0)
    with pytest.raises(MobileAgentError, match="reads no toasts"):
        Rig(login_screen()).mirror.toasts  # noqa: B018


@pytest.mark.parametrize("result", [
    {"toasts": [{"id": 1, "text": "x", "package": None, "class": "android.widget.Toast"}], "last": 1},
    {"toasts": [{"id": 1, "text": "x", "package": None, "class": "android.widget.Toast", "age_ms": -1}], "last": 1},
    {"toasts": [], "last": True},
    {"last": 0},
])
def test_a_malformed_toasts_result_is_a_protocol_error(result: dict[str, Any]) -> None:
    with pytest.raises(ProtocolError):
        parse_toasts(result, received_at=0.0)


def test_the_toasts_the_agent_caused_are_left_out_of_toasts_and_waits_unless_asked_for() -> None:
    """Issue 37, item 2: ClipboardService's access toast for the agent's own clipboard reads
    ("Shell pasted from your clipboard", by_agent) is not the app's toast."""
    rig, buffer = rig_with_toasts()
    buffer.show("Shell pasted from your clipboard", package="android", by_agent=True)
    buffer.show("Invalid email", by_agent=False)
    assert [t.text for t in rig.mirror.toasts] == ["Invalid email"]
    assert [(t.text, t.by_agent) for t in rig.mirror.all_toasts] == [
        ("Shell pasted from your clipboard", True), ("Invalid email", False)]
    with pytest.raises(WaitTimeout) as caught:
        rig.mirror.wait_for_toast(text_contains="pasted from", timeout=0.3)
    assert "caused by the agent's clipboard use, left out" in str(caught.value)
    found = rig.mirror.wait_for_toast(text_contains="pasted from", timeout=0.3, include_agent=True)
    assert found.by_agent and found.package == "android"
    assert rig.mirror.wait_for_toast("Invalid email", timeout=0.3).by_agent is False


def test_a_by_agent_that_is_no_boolean_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="by_agent"):
        parse_toasts({"toasts": [{"id": 1, "text": "x", "package": None, "class": "android.widget.Toast",
                                  "age_ms": 0, "by_agent": "yes"}], "last": 1}, received_at=0.0)
