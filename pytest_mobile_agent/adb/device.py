"""One target on the adb server: shell, push, forward, reverse and service streams.

Each call opens its own connection to the server. Device services go through
`host:transport:<serial>`; forward rules are host services (`host-serial:<serial>:...`), read with
the server's two statuses; reverse rules are device services, read with adbd's own status.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import socket
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pytest_mobile_agent.adb import packages
from pytest_mobile_agent.adb.connection import AdbConnection
from pytest_mobile_agent.adb.serials import check_serial
from pytest_mobile_agent.adb.shell import (
    PersistentShell,
    ShellOutput,
    ShellStream,
    command_line,
    past_deadline,
)
from pytest_mobile_agent.adb.sync import (
    DirEntry,
    Pusher,
    RemoteStat,
    SyncReader,
    default_mtime,
    send_spec,
)
from pytest_mobile_agent.adb.targets import DeviceEntry
from pytest_mobile_agent.arguments import check_deadline, check_text
from pytest_mobile_agent.errors import (
    Closed,
    DeviceNotListed,
    InvalidArgument,
    PackageManagerError,
    ProtocolError,
)

log = logging.getLogger("pytest_mobile_agent.adb")

MAX_OUTPUT = 256 << 20
"""Bytes of output `shell` buffers at most (stdout and stderr together): far past any listing or
dump a test reads whole, and well short of what a flooding command would grow memory to."""


@dataclass(frozen=True)
class ForwardRule:
    """One line of a forward or reverse listing.

    For a forward, `local` is the host side and `remote` the device side. A reverse listing comes
    from adbd, whose listener is on the device: there `local` is the device-side spec (the one given
    to `reverse` as `remote`) and `remote` the host side, as `adb reverse --list` prints them.
    """

    serial: str
    local: str
    remote: str


def parse_forward_list(text: str) -> list[ForwardRule]:
    """`SERIAL LOCAL REMOTE` lines; a line of any other shape is a ProtocolError."""
    rules = []
    for line in text.splitlines():
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 3:
            raise ProtocolError(f"a forward listing line needs serial, local and remote: {line!r}")
        rules.append(ForwardRule(*parts))
    return rules


def _check_spec(name: str, value: str) -> None:
    if not isinstance(value, str) or not value or "\x00" in value or ";" in value:
        raise InvalidArgument(f"{name} must be a non-empty socket spec without ';' or NUL: {value!r}")
    check_text(name, value)


class AdbStream:
    """A raw byte stream to a service on the device (an abstract socket, a tcp port, ...)."""

    def __init__(self, conn: AdbConnection, service: str) -> None:
        self._conn = conn
        self.service = service

    def sendall(self, data: bytes | bytearray | memoryview) -> None:
        self._conn.sendall(data, self.service)

    def recv(self, n: int, timeout: float | None = None) -> bytes:
        """Up to n bytes; b"" at the end of the stream. timeout None: the stream's own timeout."""
        return self._conn.recv(n, self.service, timeout=timeout)

    def recv_exact(self, n: int, timeout: float | None = None) -> bytes:
        """Exactly n bytes within timeout (the whole read), else Timeout; Closed when the stream ends."""
        deadline = None if timeout is None else time.monotonic() + timeout
        chunks: list[bytes] = []
        got = 0
        while got < n:
            chunk = self._conn.recv(n - got, self.service, deadline=deadline, total=timeout)
            if not chunk:
                raise Closed(f"{self.service}: the stream ended after {got} of {n} bytes")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def settimeout(self, timeout: float) -> None:
        """The deadline of each read and write from now on."""
        self._conn.io_timeout = timeout

    def fileno(self) -> int:
        return self._conn.sock.fileno()

    @property
    def socket(self) -> socket.socket:
        return self._conn.sock

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> AdbStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ServerLink(Protocol):
    """What a Device needs of its adb server (`AdbServer` is one): connections and the listing."""

    @property
    def address(self) -> str: ...

    @property
    def io_timeout(self) -> float: ...

    def connect(self, *, deadline: float | None = None) -> AdbConnection: ...

    def call(self) -> AdbConnection: ...

    def devices(self) -> list[DeviceEntry]: ...


class Device:
    """A target on an adb server, named by its serial."""

    def __init__(self, server: ServerLink, serial: str) -> None:
        self.server = server
        self.serial = check_serial(serial)
        self._listed = False  # confirmed on the server's listing, before the first host-serial: request

    def __repr__(self) -> str:
        return f"Device({self.serial!r} on {self.server.address})"

    # --- connections -----------------------------------------------------------------------------

    def _transport(self, service: str, *, deadline: float | None = None, total: float | None = None) -> AdbConnection:
        """A connection switched to this device with `service` opened on it (its OKAY read)."""
        conn = self.server.connect(deadline=deadline) if deadline is not None else self.server.call()
        try:
            request = f"host:transport:{self.serial}"
            conn.request(request, deadline=deadline, total=total)
            conn.read_status(request, deadline=deadline, total=total)
            conn.request(service, deadline=deadline, total=total)
            conn.read_status(service, deadline=deadline, total=total)
        except BaseException:
            conn.close()
            raise
        return conn.unbound()  # the set-up had its call's total deadline; the stream has its own

    def transport(self, service: str, *, deadline: float | None = None, total: float | None = None) -> AdbConnection:
        """A raw connection to a device service (`exec:CMD`, `sync:`), its OKAY read."""
        return self._transport(service, deadline=deadline, total=total)

    def open_service(self, service: str) -> AdbStream:
        """A stream to a device service with no rule installed; a missing listener is Closed."""
        return AdbStream(self._transport(service), service)

    def open_abstract(self, name: str) -> AdbStream:
        return self.open_service(f"localabstract:{name}")

    # --- shell -----------------------------------------------------------------------------------

    def shell(self, cmd: str | Iterable[str], *, max_output: int = MAX_OUTPUT) -> ShellOutput:
        """Run a command to its end under the read deadline: exit status, stdout, stderr apart.
        More than `max_output` bytes of output is an OutputLimit: stream it with `shell_stream`."""
        stream = self.shell_stream(cmd)
        with stream:
            stream.close_stdin()
            return stream.collect(max_output=max_output)

    def shell_until(self, cmd: str | Iterable[str], deadline: float, *, max_output: int = MAX_OUTPUT) -> ShellOutput:
        """As `shell`, the output read with the time left to `deadline` (absolute, monotonic).

        For a command silent longer than the read deadline (`am start -W` while its app starts). A
        deadline already past runs nothing; a command not ended by then is a Timeout naming it.
        """
        deadline = check_deadline("deadline", deadline)
        line = command_line(cmd)
        operation = f"shell `{line}`"
        started = time.monotonic()
        if deadline <= started:
            raise past_deadline(operation, deadline, started)
        total = deadline - started
        conn = self._transport(f"shell,v2,raw:{line}", deadline=deadline, total=total)
        stream = ShellStream(conn, line)
        with stream:
            stream.close_stdin(deadline=deadline, total=total)
            return stream.collect(deadline=deadline, total=total, max_output=max_output)

    def shell_stream(self, cmd: str | Iterable[str]) -> ShellStream:
        """A running command over `shell,v2,raw:` (pipes: stdout and stderr apart)."""
        return self.shell_stream_with(cmd, pty=False)

    def persistent_shell(self) -> PersistentShell:
        """One shell for many commands (`PersistentShell`): a command costs a round trip on an
        open stream instead of a connection, a transport switch and a process start."""
        return PersistentShell(lambda: self.shell_stream_with(""), self.server.io_timeout)

    def shell_stream_with(self, cmd: str | Iterable[str], *, pty: bool = False) -> ShellStream:
        """A running command over `shell,v2,pty:` (a pseudo-terminal) or `shell,v2,raw:`."""
        line = command_line(cmd)
        mode = "pty" if pty else "raw"
        return ShellStream(self._transport(f"shell,v2,{mode}:{line}"), line)

    # --- push ------------------------------------------------------------------------------------

    def push_bytes(self, data: bytes | bytearray | memoryview, remote: str, mode: int = 0o644,
                   mtime: int | None = None) -> None:
        """Write `data` to `remote` on the device. adbd widens the owner's bits to group and other."""
        spec = send_spec(remote, mode)
        with self._sync() as conn:
            Pusher(conn, remote, spec).push_bytes(data, default_mtime() if mtime is None else mtime)

    def push(self, local_path: str | os.PathLike[str], remote: str, mode: int = 0o644) -> None:
        """Copy a local file to `remote`, keeping its mtime."""
        path = Path(local_path)
        spec = send_spec(remote, mode)
        with path.open("rb") as source, self._sync() as conn:
            Pusher(conn, remote, spec).push_file(source, int(path.stat().st_mtime))

    def _sync(self) -> AdbConnection:
        return self._transport("sync:")

    # --- pull, stat, listdir ---------------------------------------------------------------------

    def pull_bytes(self, remote: str) -> bytes:
        """The bytes of the file at `remote` (sync RECV); adbd's refusal is a SyncFailure."""
        buffer = io.BytesIO()
        with self._sync() as conn:
            reader = SyncReader(conn)
            reader.recv(remote, buffer)
            reader.quit()
        return buffer.getvalue()

    def pull(self, remote: str, local_path: str | os.PathLike[str]) -> int:
        """Copy the file at `remote` to `local_path`, written whole or not at all (a temp file beside
        it, renamed at the end). The byte count."""
        target = Path(local_path)
        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
        try:
            with os.fdopen(handle, "wb") as sink, self._sync() as conn:
                reader = SyncReader(conn)
                count = reader.recv(remote, sink)
                reader.quit()
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        return count

    def stat(self, remote: str) -> RemoteStat:
        """Mode, size, mtime, uid and gid of `remote`, links followed (sync STA2)."""
        with self._sync() as conn:
            reader = SyncReader(conn)
            result = reader.stat(remote)
            reader.quit()
        return result

    def listdir(self, remote: str) -> list[DirEntry]:
        """The entries of the directory `remote` but `.` and `..` (sync LIST). As adbd lists it, a
        path that is no readable directory has no entries."""
        with self._sync() as conn:
            reader = SyncReader(conn)
            entries = reader.listdir(remote)
            reader.quit()
        return entries

    # --- forward (host side) ---------------------------------------------------------------------

    def _host_serial(self, command: str) -> AdbConnection:
        self._confirm_listed()
        conn = self.server.call()
        request = f"host-serial:{self.serial}:{command}"
        try:
            conn.request(request)
            conn.read_status(request)
        except BaseException:
            conn.close()
            raise
        return conn

    def _confirm_listed(self) -> None:
        """A host-serial: request acts on whatever the server takes the serial for: it is sent only
        for a serial the server lists (checked once per Device)."""
        if self._listed:
            return
        listed = [entry.serial for entry in self.server.devices()]
        if self.serial not in listed:
            raise DeviceNotListed(f"{self.serial} is not on the adb server at {self.server.address} "
                                  f"(it lists {', '.join(listed) or 'no devices'})",
                                  advice="Check the serial with `adb devices -l`")
        self._listed = True

    def forward(self, local: str, remote: str, *, norebind: bool = False) -> int | None:
        """Install a forward rule; for `tcp:0` the port the server bound, else None."""
        _check_spec("local", local)
        _check_spec("remote", remote)
        command = f"forward:{'norebind:' if norebind else ''}{local};{remote}"
        with self._host_serial(command) as conn:
            request = f"host-serial:{self.serial}:{command}"
            conn.read_status(request)  # the second OKAY: the rule's own status
            if local == "tcp:0":
                return _parse_port(conn.read_length_prefixed(request), request)
        log.debug("forward %s %s -> %s", self.serial, local, remote)
        return None

    def forward_tcp(self, remote: str, local_port: int = 0) -> int:
        """Forward a local tcp port (0: any free one) to `remote`; the local port."""
        port = self.forward(f"tcp:{local_port}", remote)
        return local_port if port is None else port

    def remove_forward(self, local: str) -> None:
        _check_spec("local", local)
        command = f"killforward:{local}"
        with self._host_serial(command) as conn:
            conn.read_status(f"host-serial:{self.serial}:{command}")

    def forwards(self) -> list[ForwardRule]:
        """This device's forward rules."""
        with self._host_serial("list-forward") as conn:
            text = conn.read_length_prefixed(f"host-serial:{self.serial}:list-forward")
        return [rule for rule in parse_forward_list(text.decode("utf-8", "replace")) if rule.serial == self.serial]

    # --- reverse (device side) -------------------------------------------------------------------

    def reverse(self, remote: str, local: str, *, norebind: bool = False) -> int | None:
        """Make adbd listen on `remote` (device side) and connect to `local` (host side).

        adbd's own status is read after the stream opens; its FAIL text is an AdbFailure. For a
        `tcp:0` remote, the port adbd bound.
        """
        _check_spec("remote", remote)
        _check_spec("local", local)
        service = f"reverse:forward:{'norebind:' if norebind else ''}{remote};{local}"
        with self._transport(service) as conn:
            conn.read_status(service)
            if remote == "tcp:0":
                return _parse_port(conn.read_length_prefixed(service), service)
        return None

    def remove_reverse(self, remote: str) -> None:
        _check_spec("remote", remote)
        service = f"reverse:killforward:{remote}"
        with self._transport(service) as conn:
            conn.read_status(service)

    def reverses(self) -> list[ForwardRule]:
        service = "reverse:list-forward"
        with self._transport(service) as conn:
            text = conn.read_length_prefixed(service)
        return parse_forward_list(text.decode("utf-8", "replace"))

    # --- apps --------------------------------------------------------------------------------------

    def install(self, apk: str | os.PathLike[str] | bytes, *, replace: bool = True, grant: bool = False,
                downgrade: bool = False, timeout: float = packages.INSTALL_TIMEOUT) -> None:
        """Install an APK (a path or its bytes), streamed into `cmd package install -S` over
        `exec:`; `grant` grants its runtime permissions (-g), `downgrade` allows a lower
        versionCode (-d). The package manager's refusal is a PackageManagerError naming its code
        (INSTALL_FAILED_VERSION_DOWNGRADE, ...). With replace=False an installed package is
        refused here, as INSTALL_FAILED_ALREADY_EXISTS (`pm install` itself always replaces)."""
        data = bytes(apk) if isinstance(apk, (bytes, bytearray)) else Path(apk).read_bytes()
        if not replace:
            from pytest_mobile_agent.apk import read_apk

            name = read_apk(data).manifest.package
            if packages.is_installed(self, name):
                raise PackageManagerError(
                    "install", "INSTALL_FAILED_ALREADY_EXISTS", f"{name} is installed (replace=False)"
                )
        packages.install(self, data, grant=grant, downgrade=downgrade, timeout=timeout)

    def uninstall(self, package: str, *, keep_data: bool = False) -> None:
        packages.uninstall(self, package, keep_data=keep_data)

    def is_installed(self, package: str) -> bool:
        return packages.is_installed(self, package)

    def package_version(self, package: str) -> packages.PackageVersion | None:
        """versionCode and versionName of an installed package, None when it is not installed."""
        return packages.package_version(self, package)

    def clear(self, package: str) -> None:
        """`pm clear`: the app stops and its data is deleted."""
        packages.clear(self, package)

    def grant(self, package: str, permission: str) -> None:
        """Grant a runtime permission the app requests (`pm grant`)."""
        packages.grant(self, package, permission)

    def revoke(self, package: str, permission: str) -> None:
        packages.grant(self, package, permission, revoke=True)

    def force_stop(self, package: str) -> None:
        packages.force_stop(self, package)

    # --- helpers ---------------------------------------------------------------------------------

    def getprop(self, name: str) -> str:
        return self.shell(["getprop", name]).text().strip()


def _parse_port(text: bytes, request: str) -> int:
    value = text.decode("ascii", "replace").strip()
    if not (value.isascii() and value.isdigit()) or not 0 < int(value) < 65536:
        raise ProtocolError(f"{request}: expected the bound port, got {text!r}")
    return int(value)
