"""Hostile argument values through the public entry points (issue 13, item 10): each raises
errors.InvalidArgument naming the argument, never ValueError, OverflowError or UnicodeEncodeError."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from security.lab import Bench, bench

from pytest_mobile_agent import errors

from .bounds import lighter

BAD_TIMEOUTS = st.one_of(st.sampled_from([math.nan, math.inf, -math.inf, -1.0]),
                         st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not math.isfinite(x) or x < 0),
                         st.sampled_from(["1", None, True]))
SURROGATE_TEXT = st.builds(lambda a, s, b: a + s + b, st.text(st.characters(exclude_characters="\x00"), max_size=10),
                           st.sampled_from(["\ud800", "\udfff", "\udc80"]), st.text(st.characters(exclude_characters="\x00"), max_size=10))


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
