"""Loopback ports for tests: one nothing listens on, one that refuses connections for as long as it
is held, and one below the ephemeral range."""

from __future__ import annotations

import random
import socket
from collections.abc import Iterator
from contextlib import contextmanager


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released): a closed port to connect to, or one
    to listen on soon after (another port-0 bind in this run may take it meanwhile)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def closed_port() -> Iterator[int]:
    """A loopback port that refuses every connection while the block runs: bound and never listened
    on, so no other bind in the run (a lab's endpoint, a server's port 0) can take it meanwhile, as
    one released by `free_port` can (CI once saw a port so released accept TCP and never answer)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


def free_port_below_ephemeral() -> int:
    """A free port between 20000 and 30000, below the kernel's ephemeral range, so that no port-0 bind
    elsewhere in the run (a virtual lab's endpoint, say) can take it before a server binds it."""
    for _ in range(100):
        port = random.randrange(20000, 30000)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port between 20000 and 30000 in 100 tries")
