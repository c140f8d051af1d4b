"""A port that accepts TCP on 127.0.0.1 and never answers: some emulator ports do this, and the
driver's deadlines must end a call to one (the controller's tests and fault drills use it)."""

from __future__ import annotations

import socket

from pytest_mobile_agent.virtual.fronts.loopback import AcceptLoop, bind_loopback


class SilentPort:
    """Accepts connections and never reads or writes them; they close with the port."""

    def __init__(self) -> None:
        self._conns: list[socket.socket] = []
        self._loop = AcceptLoop(bind_loopback(0), self._conns.append, name="virtual-silent-port",
                                connection_name="virtual-silent-conn", nodelay=False)
        self.port = self._loop.port
        self._loop.start()

    @property
    def accepted(self) -> int:
        return len(self._conns)

    def close(self) -> None:
        self._loop.close()
        self._loop.join(2.0)
        for conn in self._conns:
            conn.close()

    def __enter__(self) -> SilentPort:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
