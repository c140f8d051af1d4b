"""Device serials as the adb server reads them in `host-serial:<serial>:<command>`.

The server splits that request with `internal::parse_host_service` (AOSP packages/modules/adb,
sockets.cpp): an optional `usb:`/`product:`/`model:`/`device:` prefix runs to the next colon; else
after an optional `tcp:`/`udp:` (and `vsock:CID:`) the serial is a bracketed IPv6 address or runs to
the first colon, and one more `:<digits>` is taken as its port. So a serial holding a colon the
grammar does not expect ends early, and the rest of it becomes the command: the serial
`emulator-5554:forward:tcp:P;localabstract` makes `list-forward` install `tcp:P` on emulator-5554.

`check_serial` refuses a serial that the server would not read back as itself. `127.0.0.1:5555`
and `[::1]:5555` (what `adb connect` names a network device) read back whole and pass.
"""

from __future__ import annotations

from pytest_mobile_agent.errors import InvalidArgument

_PREFIXES = ("usb:", "product:", "model:", "device:")
PROBE_COMMAND = "list-forward"
"""A command as the library sends them: it starts with a letter, so it is never read as a port."""


def parse_host_service(service: str) -> tuple[str, str] | None:
    """(serial, command) as the adb server splits `host-serial:`'s rest, or None where it fails."""
    for prefix in _PREFIXES:
        if service.startswith(prefix):
            end = service.find(":", len(prefix))
            return _finish(service, end + 1) if end >= 0 else None
    at = 0
    if service.startswith(("tcp:", "udp:")):
        at = 4
        if at == len(service):
            return None
    if service.startswith("vsock:", at):
        colon = service.find(":", at)
        at = colon + 1
    if service.startswith("[", at) and (close := service.find("]", at)) >= 0:
        at = close + 1
        if at == len(service) or service[at] != ":":
            return None
        at += 1
    else:
        colon = service.find(":", at)
        if colon < 0:
            return None
        at = colon + 1
    colon = service.find(":", at)
    port = service[at:colon]
    if colon >= 0 and all("0" <= c <= "9" for c in port):  # an empty port counts, as adb's loop over no digits does
        at = colon + 1
    return _finish(service, at)


def _finish(service: str, at: int) -> tuple[str, str] | None:
    serial, command = service[: at - 1], service[at:]
    return (serial, command) if serial and command else None


def check_serial(serial: str) -> str:
    """The serial, when the adb server reads `host-serial:<serial>:<command>` back as it; else an
    InvalidArgument saying what the server would take it for."""
    if not serial or any(ord(c) < 0x20 or c == "\x7f" for c in serial):
        raise InvalidArgument(f"a device serial is non-empty and has no control characters: {serial!r}")
    parsed = parse_host_service(f"{serial}:{PROBE_COMMAND}")
    if parsed is None or parsed[0] != serial:
        taken = f"the serial {parsed[0]!r} and the command {parsed[1]!r}" if parsed else "no serial at all"
        raise InvalidArgument(f"the serial {serial!r} is ambiguous to the adb server: host-serial: requests would "
                              f"name {taken} (adb's parse_host_service); check it with `adb devices -l`")
    return serial
