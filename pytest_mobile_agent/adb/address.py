"""Where the adb server listens: 127.0.0.1:5037, or the port in ANDROID_ADB_SERVER_PORT, or the
`tcp:HOST:PORT` in ADB_SERVER_SOCKET, as adb's own client reads them (AOSP packages/modules/adb,
client/main.cpp and socket_spec.cpp). Explicit arguments win over both variables."""

from __future__ import annotations

import os
from collections.abc import Mapping

from pytest_mobile_agent.errors import AdbError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 5037


def address_from_env(env: Mapping[str, str] | None = None) -> tuple[str, int]:
    """(host, port) from ADB_SERVER_SOCKET, else ANDROID_ADB_SERVER_PORT, else the default."""
    env = os.environ if env is None else env
    socket_spec = env.get("ADB_SERVER_SOCKET", "").strip()
    if socket_spec:
        return parse_server_socket(socket_spec)
    port_text = env.get("ANDROID_ADB_SERVER_PORT", "").strip()
    if port_text:
        return DEFAULT_HOST, _parse_port(port_text, "ANDROID_ADB_SERVER_PORT")
    return DEFAULT_HOST, DEFAULT_PORT


def parse_server_socket(spec: str, source: str = "ADB_SERVER_SOCKET") -> tuple[str, int]:
    """`tcp:HOST:PORT` or `tcp:PORT` (HOST 127.0.0.1; `localhost` and `*` as 127.0.0.1) as (host, port)."""
    if not spec.startswith("tcp:"):
        raise AdbError(f"{source}={spec!r} is not supported: use tcp:HOST:PORT or tcp:PORT")
    rest = spec[4:]
    host, sep, port_text = rest.rpartition(":")
    if not sep:
        host, port_text = DEFAULT_HOST, rest
    host = host.strip("[]") or DEFAULT_HOST
    if host in ("localhost", "*"):
        host = DEFAULT_HOST
    return host, _parse_port(port_text, source)


def _parse_port(text: str, source: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) < 65536:
        raise AdbError(f"{source} names no valid port: {text!r}")
    return int(text)
