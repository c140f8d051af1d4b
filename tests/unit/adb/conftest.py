"""Fixtures of the adb client's unit tests: a scripted adb server and a client pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.support.adb_scripted import Handler, ScriptedAdbServer


@pytest.fixture
def scripted() -> Iterator[Callable[..., ScriptedAdbServer]]:
    """scripted(handler, ...) starts a scripted server; its handlers' failures fail the test."""
    servers: list[ScriptedAdbServer] = []

    def start(*handlers: Handler) -> ScriptedAdbServer:
        server = ScriptedAdbServer(list(handlers))
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
