"""What every fuzz test asserts: the call ends within a bound and raises nothing but the package's
own errors.

`ends_within(seconds)` arms a real-time interval timer on the main thread for the body; a decoder
that loops forever is interrupted and reported as a hang (a `Hang`, which is no MobileAgentError, so
the property fails). `only_our_errors()` lets errors.MobileAgentError through silently and lets every
other exception fail the example, which is hypothesis's failure.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Iterator

from hypothesis import settings

from pytest_mobile_agent.errors import MobileAgentError

HANG_BOUND_S = 5.0  # far above any example's time (a few ms), far below a CI job's timeout


class Hang(AssertionError):
    """The body did not end within its bound."""


@contextlib.contextmanager
def ends_within(seconds: float = HANG_BOUND_S) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # timers interrupt the main thread only; the socket tests bound themselves
        return

    def interrupt(signum: int, frame: object) -> None:
        raise Hang(f"the call did not end within {seconds} s")

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def only_our_errors() -> Iterator[list[MobileAgentError]]:
    """The body's MobileAgentError is caught and recorded; anything else propagates (a failure)."""
    caught: list[MobileAgentError] = []
    with ends_within():
        try:
            yield caught
        except MobileAgentError as exc:
            assert str(exc), "an error of the package always says something"
            caught.append(exc)


@contextlib.contextmanager
def peer_sent(data: bytes, *, close: bool = True) -> Iterator[socket.socket]:
    """Our end of a socketpair whose other end has sent `data` (and closed, unless told not to)."""
    ours, theirs = socket.socketpair()
    try:
        theirs.sendall(data)
        if close:
            theirs.close()
        yield ours
    finally:
        ours.close()
        theirs.close()


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    """`data` cut at the given offsets (any order, any repeats): every chunking a reader can meet."""
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(points, points[1:], strict=False)]


def lighter(divisor: int) -> settings:
    """A share of the profile's examples for a heavier property (sockets, temp directories, deep
    JSON), so the fuzz directory stays under a minute on 2 cores with `ci`; `deep` still runs
    thousands of each."""
    return settings(max_examples=max(10, settings.default.max_examples // divisor))
