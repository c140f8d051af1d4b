"""Hostile argument values through the public entry points (issue 13, item 10): each raises
errors.InvalidArgument naming the argument, never ValueError, OverflowError or UnicodeEncodeError."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent import errors
from tests.fuzz.bounds import lighter
from tests.support.lab import Bench, bench

BAD_TIMEOUTS = st.one_of(st.sampled_from([math.nan, math.inf, -math.inf, -1.0]),
                         st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not math.isfinite(x) or x < 0),
                         st.sampled_from(["1", None, True]))
SURROGATE_TEXT = st.builds(
    lambda a, s, b: a + s + b,
    st.text(st.characters(exclude_characters="\x00"), max_size=10),
    st.sampled_from(["\ud800", "\udfff", "\udc80"]),
    st.text(st.characters(exclude_characters="\x00"), max_size=10),
)


@pytest.fixture(scope="module")
def vd():
    with bench() as one:
        yield one


@given(timeout=BAD_TIMEOUTS)
@lighter(40)
def test_a_bad_timeout_on_an_agent_request_is_invalid_argument(vd: Bench, timeout: object) -> None:
    conn = vd.attached[0].connection if vd.attached else vd.attach().connection
    with pytest.raises(errors.InvalidArgument, match="timeout"):
        conn.request("ping", {}, timeout=timeout)  # type: ignore[arg-type]


@given(deadline=st.sampled_from([math.nan, math.inf, -math.inf]))
@lighter(10)
def test_a_bad_deadline_on_shell_until_is_invalid_argument(vd: Bench, deadline: float) -> None:
    with pytest.raises(errors.InvalidArgument, match="deadline"):
        vd.device.shell_until("true", deadline)


@given(text=SURROGATE_TEXT)
@lighter(60)
def test_a_surrogate_in_a_shell_argument_or_a_push_path_is_invalid_argument(vd: Bench, text: str) -> None:
    with pytest.raises(errors.InvalidArgument, match="surrogate"):
        vd.device.shell(["echo", text])
    with pytest.raises(errors.InvalidArgument, match="surrogate"):
        vd.device.shell(f"echo {text}")
    with pytest.raises(errors.InvalidArgument, match="surrogate"):
        vd.device.push_bytes(b"x", f"/data/local/tmp/{text}")


@given(extra=st.integers(min_value=1, max_value=4096))
@lighter(10)
def test_a_command_over_64_kib_is_invalid_argument(vd: Bench, extra: int) -> None:
    with pytest.raises(errors.InvalidArgument, match="command"):
        vd.device.shell("echo " + "a" * (0xFFFF + extra))


BAD_NUMBERS = st.sampled_from([math.nan, math.inf, -math.inf, "1", True])  # None: a wait's default, allowed


@pytest.fixture(scope="module")
def screen(vd: Bench):
    from pytest_mobile_agent.mirror import Mirror
    from pytest_mobile_agent.session import ControllerChoice, Session, select_paths

    vd.open("Login")
    attached = vd.attached[0] if vd.attached else vd.attach()
    session = Session.start_selected(attached, select_paths(vd.serial, True, ControllerChoice.Off(), None),
                                     device=vd.device)
    try:
        yield Mirror(session.backend(), timeout=5.0)
    finally:
        session.detach()


def mirror_calls(screen, bad):  # noqa: ANN001, ANN201 - (argument named, the call) over every public wait and input
    return [
        ("timeout", lambda: screen.wait_for(timeout=bad, id="username")),
        ("timeout", lambda: screen.wait_gone(timeout=bad, id="nothing-here")),
        ("timeout", lambda: screen.wait_until(lambda view: True, timeout=bad)),
        ("timeout", lambda: screen.settle(timeout=bad)),
        ("quiet", lambda: screen.settle(timeout=1.0, quiet=bad)),
        ("x", lambda: screen.tap_at(bad, 10)),
        ("y", lambda: screen.tap_at(10, bad)),
        ("x2", lambda: screen.swipe(10, 10, bad, 10)),
        ("duration", lambda: screen.swipe(10, 10, 20, 20, duration=bad)),
        ("hold", lambda: screen.long_press(hold=bad, id="username")),
    ]


@given(bad=BAD_NUMBERS)
@lighter(20)
def test_every_wait_and_input_of_the_screen_refuses_a_bad_number_naming_it(screen, bad: object) -> None:  # noqa: ANN001
    for name, call in mirror_calls(screen, bad):
        with pytest.raises(errors.InvalidArgument, match=name):
            call()


@given(text=SURROGATE_TEXT)
@lighter(20)
def test_typed_text_and_socket_specs_with_a_surrogate_are_invalid_arguments(
    vd: Bench, screen, text: str,  # noqa: ANN001
) -> None:
    with pytest.raises(errors.InvalidArgument, match="surrogate"):
        screen.type_text(text, id="username")
    lone = next(c for c in text if "\ud800" <= c <= "\udfff")
    with pytest.raises(errors.InvalidArgument, match="surrogate"):
        vd.device.forward("tcp:0", f"localabstract:x{lone}")
    with pytest.raises(errors.InvalidArgument, match="surrogate"):
        vd.device.reverse(f"localabstract:x{lone}", "tcp:1")
