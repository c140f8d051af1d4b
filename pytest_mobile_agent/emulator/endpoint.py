"""The controller endpoint of one emulator: where its gRPC port is and which token it wants."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pytest_mobile_agent.emulator import discovery
from pytest_mobile_agent.errors import InvalidArgument, Unavailable

_EMULATOR_SERIAL = re.compile(r"emulator-(\d{1,5})")
DEFAULT_HOST = "127.0.0.1"
TOKEN_ENV = "MOBILE_AGENT_EMULATOR_TOKEN"
"""The only place the controller's token is read from: a command line is visible to every local
user (`ps`, /proc/<pid>/cmdline), the environment only to the same uid and root."""
URL_FORM = "http://HOST:PORT"


@dataclass(frozen=True)
class Endpoint:
    """A controller to connect to. The token is left out of repr and str: it is a secret."""

    host: str
    port: int
    token: str | None = field(default=None, repr=False)
    console_port: int | None = None
    discovery_file: Path | None = None
    serial: str = ""
    avd_name: str = ""
    """The discovery file's `avd.name`: the AVD's display name in 37.x (qemu-setup.cpp
    qemu_setup_grpc, get_display_name()), its name in older emulators."""
    avd_id: str = ""
    """The discovery file's `avd.id`: the AVD's name (avdInfo_getId), what the guest's
    `ro.boot.qemu.avd_name` says."""

    @property
    def avd_names(self) -> tuple[str, ...]:
        """The names the discovery file gives the AVD, empty ones left out."""
        return tuple(name for name in (self.avd_id, self.avd_name) if name)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def target(self) -> str:
        """The address in gRPC's target syntax."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def name(self) -> str:
        """Who the endpoint belongs to, for messages: the serial, else the URL."""
        return self.serial or self.url

    @classmethod
    def at(cls, port: int, *, host: str = DEFAULT_HOST, token: str | None = None, serial: str = "") -> Endpoint:
        """A given endpoint (the daemon's Endpoint choice), not read from a discovery file."""
        return cls(host=host, port=port, token=token, console_port=console_port(serial), serial=serial)


def redact_url(url: str) -> str:
    """The URL with whatever may carry a secret (user info, a query, a fragment) cut off, for
    messages: `http://me:TOKEN@host:1?token=T#x` -> `http://host:1?<redacted>`."""
    text = url.strip()
    cut = min((i for i in (text.find("?"), text.find("#")) if i >= 0), default=-1)
    tail = ""
    if cut >= 0:
        text, tail = text[:cut], "?<redacted>"
    scheme, sep, rest = text.rpartition("://")
    if "@" in rest:
        rest, tail = rest.rsplit("@", 1)[1], "?<redacted>"
    return f"{scheme}{sep}{rest}{tail}"


def parse_url(url: str) -> tuple[str, int]:
    """`http://HOST:PORT` (the scheme optional) into its host and port. A URL carrying anything
    more (user info, a path, a query such as `?token=`, a fragment) is refused: the token goes in
    MOBILE_AGENT_EMULATOR_TOKEN, never on a command line. Messages show the URL redacted."""
    from urllib.parse import urlsplit

    text = url.strip()
    if any(mark in text for mark in ("?", "#", "@")):
        raise InvalidArgument(
            f"--emulator-controller {redact_url(text)}: the URL carries more than {URL_FORM} (a token?); a token "
            f"on a command line is shown by `ps` to every local user, so it is never read from there: pass "
            f"{URL_FORM} and set the token in {TOKEN_ENV}")
    try:
        parts = urlsplit(text if "://" in text else f"http://{text}")
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
        parts = None
    if parts is None or parts.scheme not in ("http", "grpc") or not host or port is None or parts.path not in ("", "/"):
        raise InvalidArgument(f"--emulator-controller takes auto, off or {URL_FORM} (the token in {TOKEN_ENV}), "
                              f"not {redact_url(text)!r}")
    return host, port


def console_port(serial: str) -> int | None:
    """The console port an emulator serial names (`emulator-5554` -> 5554), else None."""
    match = _EMULATOR_SERIAL.fullmatch(serial.strip())
    return int(match.group(1)) if match else None


def resolve(serial: str, dirs: Iterable[Path] | None = None) -> Endpoint:
    """The endpoint the emulator `serial` advertises in its discovery file.

    The newest live file whose `port.serial` is the serial's console port wins. Raises
    errors.Unavailable, whose warning() says how to enable the endpoint, when there is none, when it
    has no gRPC port, or when the emulator wants signed JWTs instead of a static token.
    """
    console = console_port(serial)
    if console is None:
        raise Unavailable(serial, f"{serial!r} is not an emulator serial (emulator-<console port>)")
    searched = list(discovery.candidate_dirs() if dirs is None else dirs)
    found = discovery.find(console, searched)
    if found is None:
        where = ", ".join(str(d) for d in searched) or "no directory"
        raise Unavailable(
            serial,
            f"no running emulator advertises port.serial={console} in a discovery file pid_<pid>.ini "
            f"(searched {where})",
            console_port=console,
        )
    return _endpoint_of(serial, console, found)


def resolve_candidates(serial: str, dirs: Iterable[Path] | None = None) -> list[Endpoint]:
    """The endpoints of every live discovery file that claims `serial`'s console port, newest
    first, for a caller that confirms which is the target's (session/ownership.py). A file that
    yields no usable endpoint is left out when another does; errors.Unavailable as `resolve` when
    none does."""
    console = console_port(serial)
    if console is None:
        raise Unavailable(serial, f"{serial!r} is not an emulator serial (emulator-<console port>)")
    searched = list(discovery.candidate_dirs() if dirs is None else dirs)
    found = discovery.find_all(console, searched)
    if len(found) <= 1:
        return [resolve(serial, searched)]
    endpoints: list[Endpoint] = []
    first_error: Unavailable | None = None
    for candidate in found:
        try:
            endpoints.append(_endpoint_of(serial, console, candidate))
        except Unavailable as exc:
            first_error = first_error or exc
    if not endpoints and first_error is not None:
        raise first_error
    return endpoints


def _endpoint_of(serial: str, console: int, found: discovery.DiscoveryFile) -> Endpoint:
    port = found.grpc_port
    if port is None:
        raw = found.props.get("grpc.port")
        detail = "has no grpc.port" if raw is None else f"has an invalid grpc.port {raw!r}"
        raise Unavailable(
            serial,
            f"the discovery file {found.path} {detail}: the emulator runs without its gRPC endpoint",
            console_port=console,
        )
    token = found.grpc_token
    if token is None and found.uses_jwt:
        raise Unavailable(
            serial,
            f"the emulator at http://{DEFAULT_HOST}:{port} wants signed JWT tokens "
            f"(started without -grpc-use-token; {found.path} has no grpc.token)",
            console_port=console,
        )
    return Endpoint(
        host=DEFAULT_HOST,
        port=port,
        token=token,
        console_port=console,
        discovery_file=found.path,
        serial=serial,
        avd_name=found.avd_name.strip(),
        avd_id=found.props.get("avd.id", "").strip(),
    )
