"""The target a stack drives: resolved from the settings once, and for `virtual` started here.

`--android-serial` names a serial on the local adb server, `auto` (the only online target),
`tcp:HOST:PORT/SERIAL` (a target on another adb server), a comma list (each xdist worker takes its
own item), or `virtual` / `virtual:N`: a lab of virtual devices started for this process
(`stack/virtual_lab.py`, the one place the driver starts the double).

A test that needs several targets (`@pytest.mark.devices(N)`) takes them from the list through
`targets(N)`: the worker's own group first (gwN takes items N, N + W, N + 2W... of the list, W the
number of workers, so its first item is the target it drives alone), then the others in the list's
order, so that two workers with four targets each have a pair of their own. `virtual:N` is grouped
the same way over its N devices, although each worker's lab is its own.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import AdbServer, Device, Target
from pytest_mobile_agent.adb.targets import parse_target_name
from pytest_mobile_agent.adb.wire import VIRTUAL_DEVICE_PROPERTY
from pytest_mobile_agent.automation_lock import AutomationLock
from pytest_mobile_agent.stack.settings import AUTO, VIRTUAL, Settings

if TYPE_CHECKING:
    from pytest_mobile_agent.stack.virtual_lab import StartedLab, VirtualLab


@dataclass(frozen=True)
class AndroidTarget:
    """The target this process drives: its serial, its adb server, the lab behind it if virtual,
    and what the server's listing says of it."""

    serial: str
    server: AdbServer
    lab: VirtualLab | None = None
    facts: Target | None = None
    served_virtual: bool = False  # a virtual device served elsewhere, named by its serial
    named_server: bool = False  # named as tcp:HOST:PORT/SERIAL: its status says which server

    @property
    def virtual(self) -> bool:
        return self.lab is not None

    @property
    def runs_stand_in(self) -> bool:
        """Whether the target is a virtual device, ours or a served one: its agent double runs the
        stand-in jar, so no jar needs building."""
        return self.virtual or self.served_virtual

    @property
    def label(self) -> str:
        """The target and its adb server, as the status and the messages name it: two
        `emulator-5554` on two servers (two hosts of a farm, two labs) are told apart."""
        return f"{self.serial} on {self.server.address}"

    @property
    def device(self) -> Device:
        return self.server.device(self.serial)

    def automation_lock(self) -> AutomationLock:
        """The target's automation lock, keyed by its adb server's address and its serial
        (userfiles.target_key): two devices both named emulator-5554 on two servers never share one."""
        return AutomationLock(self.serial, server=self.server.address)

    @property
    def emulator(self) -> bool:
        if self.facts is not None:
            return bool(self.facts.emulator)
        return self.serial.startswith("emulator-")


@dataclass
class TargetProvider:
    """Resolves (and for `virtual`, starts) the target of this process, once; `close` stops what
    it started. `index` picks this process's item of a comma list (xdist's worker number)."""

    settings: Settings
    index: int = 0
    workers: int = 1
    _target: AndroidTarget | None = None
    _group: dict[str, AndroidTarget] = field(default_factory=dict, repr=False)
    _lab: StartedLab | None = None

    @property
    def lab(self) -> VirtualLab | None:
        return self._lab.lab if self._lab is not None else None

    def records_dir(self) -> Path:
        """Where the agent records live: `--agent-records` for real targets; for a virtual lab a
        folder of the lab's own (`VirtualLab.folder`), as its agents end with it."""
        if self._lab is None:
            return self.settings.records_dir
        return self._lab.lab.folder("records")

    def target(self) -> AndroidTarget:
        if self._target is None:
            self._target = self._virtual() if self.settings.virtual_count else self._named()
        return self._target

    def targets(self, count: int) -> list[AndroidTarget]:
        """`count` targets for one test, the worker's own group first; errors.MobileAgentError when
        the list names fewer."""
        items = self._group_order()
        if count > len(items):
            raise errors.MobileAgentError(
                f"the test needs {count} Android targets and --android-serial names {len(items)}",
                advice=f"Name {count} targets, `--android-serial virtual:{count}` or a comma list of serials")
        chosen = []
        for item in items[:count]:
            if item not in self._group:
                self._group[item] = self._target_at(item)
            chosen.append(self._group[item])
        return chosen

    def _group_order(self) -> list[str]:
        self.target()  # the worker's own target, started (a lab) or checked once
        items = list(self._lab.lab.serials) if self._lab is not None else list(self.settings.serials)
        own_index = self.index % len(items)
        own = items[own_index::max(1, self.workers)]
        rest = [items[(own_index + k) % len(items)] for k in range(1, len(items))]
        return own + [item for item in rest if item not in own]

    def _target_at(self, item: str) -> AndroidTarget:
        first = self.target()
        if item in (first.serial, self._item()):
            return first
        if self._lab is not None:
            return AndroidTarget(item, first.server, self._lab.lab, listed_target(first.server, item))
        return self._resolve(item)

    def _item(self) -> str:
        serials = self.settings.serials
        return serials[self.index % len(serials)]

    def _named(self) -> AndroidTarget:
        return self._resolve(self._item())

    def _resolve(self, item: str) -> AndroidTarget:
        name = parse_target_name(item)
        server = AdbServer(host=name.host, port=name.port) if name.on_named_server else AdbServer()
        try:
            serial = only_online_serial(server) if name.serial == AUTO else name.serial
            facts = listed_target(server, serial)
        except errors.MobileAgentError as exc:
            raise with_suggestion(exc, name.serial, server) from None
        served_virtual = server.device(serial).getprop(VIRTUAL_DEVICE_PROPERTY) == "1"
        return AndroidTarget(serial, server, facts=facts, served_virtual=served_virtual,
                             named_server=name.on_named_server)

    def _virtual(self) -> AndroidTarget:
        from pytest_mobile_agent.stack.virtual_lab import start_lab

        count = self.settings.virtual_count
        self._lab = start_lab(count, real_adb=self.settings.virtual_adb == "real",
                              controllers=self.settings.emulator_controller == AUTO)
        lab = self._lab.lab
        server = _lab_server(lab)
        serial = lab.serials[self.index % count]
        return AndroidTarget(serial, server, lab, listed_target(server, serial))

    def close(self) -> None:
        """Stop a lab started here; its folder (its records, its controllers' discovery files,
        its console's token) goes with it, whatever failed before."""
        self._group.clear()
        lab, self._lab = self._lab, None
        self._target = None
        if lab is not None:
            try:
                self._remove_lab_locks(lab.lab)
            finally:
                lab.stop()

    @staticmethod
    def _remove_lab_locks(lab: VirtualLab) -> None:
        """The lab's automation lock files, those no one holds: its adb port is never used again.
        (An xdist worker's lab is its own, so no other worker waits on these.)"""
        server = _lab_server(lab).address
        for serial in lab.serials:
            AutomationLock(serial, server=server).remove_if_free()


def _lab_server(lab: VirtualLab) -> AdbServer:
    return AdbServer(host="127.0.0.1", port=lab.adb_port)


def only_online_serial(server: AdbServer) -> str:
    """The serial `auto` stands for: the one online target on the server, else an error naming them."""
    online = [entry.serial for entry in server.devices() if entry.online]
    if len(online) != 1:
        raise errors.MobileAgentError(
            f"--android-serial auto needs exactly one online target on {server.address}, "
            f"found {', '.join(online) or 'none'}",
            advice="Name one with --android-serial SERIAL",
        )
    return online[0]


def listed_target(server: AdbServer, serial: str) -> Target:
    """The server's listing of the target; an error with the target's advice when it is not usable."""
    listed = {target.serial: target for target in server.targets()}
    target = listed.get(serial)
    if target is None:
        others = ", ".join(f"{t.serial} ({t.state})" for t in listed.values()) or "no targets"
        raise errors.MobileAgentError(
            f"{serial} is not on the adb server at {server.address} (it lists {others})",
            advice="Check the serial with `python -m pytest_mobile_agent targets` or `adb devices -l`",
        )
    if target.advice:
        raise errors.MobileAgentError(f"{serial} is {target.state}", advice=target.advice)
    return target


def did_you_mean(name: str, listed: Iterable[str]) -> str | None:
    """The target name closest to a misspelled one (`virtual`, `auto`, or a serial the server
    lists), or None when none is close (difflib's ratio of at least 0.6)."""
    close = difflib.get_close_matches(name, [VIRTUAL, AUTO, *listed], n=1)
    return close[0] if close and close[0] != name else None


def with_suggestion(exc: errors.MobileAgentError, name: str, server: AdbServer) -> errors.MobileAgentError:
    """The error of a target that cannot be used, led by a "did you mean" when the name is close to
    a real one (the server's listing is read again; an unreachable server lists nothing, and
    `virtual` and `auto` are always candidates): a misspelled `virtaul` says what was meant before
    why the name it gave failed (an adb server that cannot be reached, a serial it does not list).
    The error keeps its type; its message and advice follow the suggestion."""
    try:
        listed = [target.serial for target in server.devices()]
    except errors.MobileAgentError:
        listed = []
    close = did_you_mean(name, listed)
    if close is not None:
        exc.message = f"did you mean `--android-serial {close}`? {exc.message}"
        exc.args = (exc.message,)
    return exc
