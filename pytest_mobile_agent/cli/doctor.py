"""`python -m pytest_mobile_agent doctor`: every capability once on one target, one row per check.

The first thing to run on a real device: it tells in one command whether the device works with the
driver, and for each check that does not, what to do. The checks, in order: the adb server and the
target, the agent jar (found or built), deploy with its outcome, hello, the window list with its
metadata, a snapshot with its node count and time, a tap landing (on the Compose fixture app when it
is installed, else on the status bar, where a tap changes nothing), keys, text by each method (these
need the fixture app's fields), a screenshot (size, upright), the emulator controller and its frames,
the agent's idle exit, and the rotation kept across that exit.

A check whose prerequisite failed is skipped and says which; the exit status is 1 when any check
failed. `--json` prints the rows as one JSON object.
"""

from __future__ import annotations

import base64
import contextlib
import json
import struct
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import AdbServer, Device
from pytest_mobile_agent.adb.targets import parse_target_name
from pytest_mobile_agent.agent import (
    AgentJar,
    Attached,
    Deployer,
    DeployOptions,
    Launched,
    Records,
    Reused,
)
from pytest_mobile_agent.agent.launch import parse_ps
from pytest_mobile_agent.session.ownership import TargetCheck
from pytest_mobile_agent.stack.agent import choose_jar, records_for
from pytest_mobile_agent.stack.app import start_activity
from pytest_mobile_agent.stack.settings import (
    DEFAULT_FIXTURE_ACTIVITY,
    DEFAULT_FIXTURE_PACKAGE,
    VIRTUAL,
    Settings,
)
from pytest_mobile_agent.stack.targets import AndroidTarget, TargetProvider

PS_COMMAND = "ps -A -o PID,ARGS"
FIXTURE_PACKAGE = DEFAULT_FIXTURE_PACKAGE
FIXTURE_ACTIVITY = DEFAULT_FIXTURE_ACTIVITY
#: the agent's idle bound during a doctor run: short, so that the idle-exit check is quick
IDLE_EXIT_MS = 1500
#: what the idle-exit check allows past that bound: the agent checks for idleness every quarter of
#: its bound, at most every 250 ms (agent-android Server.java), then exits; the doctor lists the
#: processes every 50 ms, each listing an adb round trip
EXIT_ALLOWANCE_MS = 1000
REQUEST_TIMEOUT = 10.0
LAND_TIMEOUT = 5.0
STATUS_BAR_SPOT = (250, 50)  # where a tap changes nothing (the seed's emulator tests tap there)
KEYCODE_A, KEYCODE_SHIFT_LEFT = 29, 59
TEXTS = {"direct": ("username", "héllo 👋"), "keys": ("invite_code", "Ab 12"), "clipboard": ("invite_code", "ünï 日本")}

OK, FAILED, SKIPPED = "ok", "failed", "skipped"


@dataclass(frozen=True)
class Row:
    check: str
    result: str
    seconds: float
    detail: str
    advice: str | None = None


class CheckFailed(errors.MobileAgentError):
    """A check's failure: what it found and what to do."""


@dataclass(frozen=True)
class Target:
    """What the doctor examines: the target as the stack resolved it, and the controller choice."""

    android: AndroidTarget
    controller: str = "auto"  # auto, off, or http://HOST:PORT
    records: Records = field(default_factory=Records)
    """The user's agent records (the plugin's, `--agent-records`), so the doctor reuses a run's agent."""

    @property
    def server(self) -> AdbServer:
        return self.android.server

    @property
    def serial(self) -> str:
        return self.android.serial

    @property
    def virtual(self) -> bool:
        """A virtual device, started here or served elsewhere: its agent double runs the stand-in."""
        return self.android.runs_stand_in


@dataclass
class _State:
    """What earlier checks found, for the later ones."""

    device: Device | None = None
    emulator: bool = False
    jar: AgentJar | None = None
    attached: Attached | None = None
    display: dict[str, Any] | None = None
    fixture: bool = False
    started_fixture: bool = False
    agent_gone: bool = False


class Doctor:
    def __init__(self, target: Target, *, jar_path: Path | None = None, force: bool = False) -> None:
        self.target = target
        self.jar_path = jar_path
        self.force = force
        self.state = _State()
        self.rows: list[Row] = []
        self.records = target.records

    # --- running ----------------------------------------------------------------------------------

    def run(self) -> list[Row]:
        checks: list[tuple[str, Callable[[], str], str | None]] = [
            ("adb server", self._adb_server, None), ("target", self._target, "adb server"),
            ("agent jar", self._agent_jar, None), ("deploy", self._deploy, "target"),
            ("hello", self._hello, "deploy"), ("windows", self._windows, "deploy"),
            ("snapshot", self._snapshot, "deploy"), ("tap", self._tap, "deploy"), ("keys", self._keys, "deploy"),
            *((f"text ({method})", self._text_check(method), "deploy") for method in TEXTS),
            ("screenshot", self._screenshot, "deploy"), ("controller", self._controller, "target"),
            ("idle exit", self._idle_exit, "deploy"), ("rotation kept", self._rotation_kept, "idle exit"),
        ]
        try:
            for name, check, needs in checks:
                self.rows.append(self._run_one(name, check, needs))
        finally:
            self._clean_up()
        return self.rows

    def _run_one(self, name: str, check: Callable[[], str], needs: str | None) -> Row:
        if needs is not None and not self._passed(needs):
            return Row(name, SKIPPED, 0.0, f"needs the {needs} check, which did not pass")
        started = time.monotonic()
        try:
            detail = check()
        except _Skip as skip:
            return Row(name, SKIPPED, time.monotonic() - started, str(skip))
        except errors.MobileAgentError as exc:
            return Row(name, FAILED, time.monotonic() - started, exc.message, exc.advice or None)
        except Exception as exc:  # noqa: BLE001 - a row says what went wrong, whatever it was
            return Row(name, FAILED, time.monotonic() - started, f"{type(exc).__name__}: {exc}")
        return Row(name, OK, time.monotonic() - started, detail)

    def _passed(self, name: str) -> bool:
        return any(row.check == name and row.result == OK for row in self.rows)

    def _clean_up(self) -> None:
        device, attached = self.state.device, self.state.attached
        if attached is not None and not self.state.agent_gone:
            with contextlib.suppress(errors.MobileAgentError):
                attached.stop()
        if device is not None and self.state.started_fixture:
            with contextlib.suppress(errors.MobileAgentError):
                device.shell(f"am force-stop {FIXTURE_PACKAGE}")

    # --- the adb server, the target, the jar, the deploy --------------------------------------

    def _adb_server(self) -> str:
        return f"version {self.target.server.version()} at {self.target.server.address}"

    def _target(self) -> str:
        listed = {t.serial: t for t in self.target.server.targets()}
        target = listed.get(self.target.serial)
        if target is None:
            others = ", ".join(f"{t.serial} ({t.state})" for t in listed.values()) or "no targets"
            raise CheckFailed(
                f"{self.target.serial} is not on the adb server (it lists {others})",
                advice="Check the serial with `python -m pytest_mobile_agent targets` or `adb devices -l`",
            )
        if target.advice:
            raise CheckFailed(f"{target.serial} is {target.state}", advice=target.advice)
        self.state.device = self.target.server.device(target.serial)
        self.state.emulator = bool(target.emulator)
        kind = "emulator" if target.emulator else "device"
        return f"{target.serial}: {target.model or 'unknown model'}, API {target.api_level}, {kind}"

    def _agent_jar(self) -> str:
        try:
            settings = Settings.for_target(self.target.serial, agent_jar=self.jar_path)
            jar = choose_jar(settings, self.target.android, announce=lambda _: None)
        except errors.MobileAgentError as exc:
            raise CheckFailed(exc.message, advice=exc.advice or "Build it with agent-android/build.sh") from None
        self.state.jar = jar
        where = jar.origin if jar.path is None else f"{jar.path} ({jar.origin})"
        return f"{where}: version {jar.version}, build {jar.build}, {len(jar.data)} bytes"

    def _deploy(self) -> str:
        device, jar = self._device(), self.state.jar
        if jar is None:
            raise _Skip("needs the agent jar check, which did not pass")
        deployer = Deployer(device, jar, self.records, DeployOptions(force=self.force, idle_exit_ms=IDLE_EXIT_MS))
        attached = deployer.attach()
        self.state.attached = attached
        outcome = attached.outcome
        how = "launched" if isinstance(outcome, Launched) else "reused the agent a run left (these records name it)"
        said = [f"{how}: pid {attached.record.pid}, socket {attached.record.socket}"]
        if isinstance(outcome, Launched) and outcome.replaced:
            said.append(f"replaced an agent ({outcome.replaced})")
        if isinstance(outcome, Launched) and outcome.took_over:
            said.append(f"took over from {', '.join(outcome.took_over)}")
        return ", ".join(said)

    # --- what the agent says ----------------------------------------------------------------------

    def _hello(self) -> str:
        hello = self._attached().connection.hello
        return (f"{hello.agent} {hello.version}, build {hello.build}, protocols {list(hello.protocols)}, "
                f"capabilities {', '.join(hello.capabilities)}")

    def _windows(self) -> str:
        snapshot = self._request("snapshot", {"idle_timeout_ms": 500})
        self.state.display = snapshot["display"]
        windows = snapshot["windows"]
        if not windows:
            raise CheckFailed(
                "the agent sees no interactive window",
                advice="Wake and unlock the device: the window list is empty while the screen is off or locked",
            )
        described = [f"{w['title']} ({w['type']}, {w['package']}"
                     + (f", owned by {w['owner']}" if w["owner"] else "") + (", modal" if w["modal"] else "")
                     + ("" if w["sends_change_events"] else ", no change events") + ")" for w in windows]
        return f"{len(windows)}: " + "; ".join(described)

    def _snapshot(self) -> str:
        started = time.monotonic()
        snapshot = self._request("snapshot", {"evict_event_less": True})
        took = (time.monotonic() - started) * 1000
        skipped = sum(w.get("skipped_children", 0) for w in snapshot["windows"])
        return (f"{snapshot['node_count']} nodes in {len(snapshot['windows'])} windows, read in {took:.0f} ms"
                + (f", {skipped} children the platform did not give" if skipped else ""))

    # --- input --------------------------------------------------------------------------------

    def _tap(self) -> str:
        if not self._fixture_installed():
            x, y = STATUS_BAR_SPOT
            if not self._request("tap", {"x": x, "y": y})["accepted"]:
                raise CheckFailed("the platform did not accept the tap")
            return f"accepted at ({x}, {y}) on the status bar ({FIXTURE_PACKAGE} is not installed)"
        self._start_fixture()
        tab = self._wait_for_node("res", "tab_list")
        started = time.monotonic()
        if not self._request("tap", _center(tab))["accepted"]:
            raise CheckFailed("the platform did not accept the tap")
        self._wait_for_node("res", "list")
        return f"landed: the fixture's List tab showed {(time.monotonic() - started) * 1000:.0f} ms after the tap"

    def _keys(self) -> str:
        if not self.state.fixture:
            if not self._request("key", {"code": KEYCODE_SHIFT_LEFT})["accepted"]:
                raise CheckFailed("the platform did not accept the key")
            return f"SHIFT accepted ({FIXTURE_PACKAGE} is not installed: no field to type into)"
        self._request("tap", _center(self._wait_for_node("res", "tab_login")))
        field_node = self._wait_for_node("res", "username")
        self._request("tap", _center(field_node))
        if not self._request("key", {"code": KEYCODE_A})["accepted"]:
            raise CheckFailed("the platform did not accept the key")
        typed = self._wait_for_node("res", "username", lambda n: (n["text"] or "").endswith("a"))
        return f"KEYCODE_A typed into the username field: {typed['text']!r}"

    def _text_check(self, method: str) -> Callable[[], str]:
        def check() -> str:
            if not self.state.fixture:
                raise _Skip(f"needs an editable field: install {FIXTURE_PACKAGE} (the Compose fixture app)")
            res, text = TEXTS[method]
            node = self._wait_for_node("res", res)
            before = node["text"] or ""
            answer = self._request("text", {"node": node["id"], "text": text, "method": method})
            if answer.get("method") != method or not answer.get("accepted"):
                raise CheckFailed(f"asked for {method}, the agent answered {answer}")
            wanted = text if method == "direct" else before + text
            self._wait_for_node("res", res, lambda n: n["text"] == wanted)
            return f"{text!r} into {res}"
        return check

    # --- screenshot, controller ---------------------------------------------------------------------

    def _screenshot(self) -> str:
        shot = self._request("screenshot", {"format": "png"})
        data = base64.b64decode(shot["data"])
        if data[:8] != b"\x89PNG\r\n\x1a\n":
            raise CheckFailed("the screenshot is not a PNG")
        width, height = struct.unpack(">II", data[16:24])
        display = self.state.display or self._request("snapshot", {})["display"]
        if (width, height) != (shot["width"], shot["height"]) or (width, height) != (
            display["width"],
            display["height"],
        ):
            raise CheckFailed(f"the screenshot is {width}x{height}, the display {display['width']}x{display['height']} "
                              f"at rotation {display['rotation']}: not upright")
        capture = shot.get("capture", "ui_automation")  # agents before the field took it through UiAutomation
        via = {"ui_automation": "UiAutomation", "screencap": "screencap (UiAutomation's capture failed)"}
        return (f"{width}x{height} PNG, {len(data)} bytes, rotation {shot['rotation']}, upright, "
                f"taken by {via.get(capture, capture)}")

    def _controller(self) -> str:
        from pytest_mobile_agent.session import PathOptions, select_paths
        from pytest_mobile_agent.stack.paths import controller_choice

        if not self.state.emulator:
            return "a device: taps and frames go through the agent"
        if self.target.controller == "off":
            return "turned off (--emulator-controller off): taps and frames go through the agent"
        server = self.target.server
        check = TargetCheck(self.target.serial, server.host, server.address, self._device())
        choice = controller_choice(self.target.controller, self.target.serial)
        selection = select_paths(self.target.serial, True, choice, PathOptions(target=check))
        if selection.controller is None:
            raise CheckFailed("the emulator's controller is not available", advice=selection.warning)
        controller = selection.controller
        try:
            started = time.monotonic()
            stream = controller.stream()
            try:
                frame = stream.next(3.0)
            finally:
                stream.close()
            if frame is None:
                raise CheckFailed("the controller sent no frame within 3 s")
            took = (time.monotonic() - started) * 1000
            return f"{controller.endpoint.url}: a {frame.width}x{frame.height} frame in {took:.0f} ms"
        finally:
            controller.close()

    # --- idle exit and the rotation -----------------------------------------------------------

    def _idle_exit(self) -> str:
        attached, device = self._attached(), self._device()
        said = ""
        if isinstance(attached.outcome, Reused):  # a run's agent: its idle bound is the run's, not ours
            reused = attached.record.pid
            attached.stop()
            attached = self._launch()
            said = f"stopped the reused agent (pid {reused}) and launched one with a {IDLE_EXIT_MS} ms idle bound; "
        pid = attached.record.pid
        attached.connection.close()
        started = time.monotonic()
        bound = IDLE_EXIT_MS + EXIT_ALLOWANCE_MS
        while _running(device, pid):
            if (time.monotonic() - started) * 1000 > bound + 5000:
                raise CheckFailed(f"the agent (pid {pid}) still runs {bound / 1000 + 5:.1f} s after its host left",
                                  advice="Its idle bound did not end it: stop it with `adb shell kill PID`")
            time.sleep(0.05)
        took = (time.monotonic() - started) * 1000
        self.state.agent_gone = True
        outcome = (f"pid {pid} exited {took:.0f} ms after its host left (bound {bound} ms: its idle exit of "
                   f"{IDLE_EXIT_MS} ms and {EXIT_ALLOWANCE_MS} ms for its idle check and the process listing)")
        if took > bound:
            raise CheckFailed(f"{said}{outcome}: over its bound",
                              advice="The agent's idle exit came late: report it with the device's model and release")
        return said + outcome

    def _launch(self) -> Attached:
        jar = self.state.jar
        assert jar is not None
        attached = Deployer(self._device(), jar, self.records, DeployOptions(idle_exit_ms=IDLE_EXIT_MS)).attach()
        self.state.attached, self.state.agent_gone = attached, False
        return attached

    def _rotation_kept(self) -> str:
        before = self.state.display
        if before is None:
            raise _Skip("needs the windows check's display")
        again = self._launch()
        after = again.connection.request("snapshot", {}, timeout=REQUEST_TIMEOUT)["display"]
        if after["rotation"] != before["rotation"]:
            raise CheckFailed(
                f"the rotation was {before['rotation']} before the agent's exit and is {after['rotation']} after",
                advice="The agent's release changed the rotation lock: report it with the device's model and release",
            )
        return f"rotation {after['rotation']} before and after the agent's exit; a new agent took UI automation again"

    # --- helpers ------------------------------------------------------------------------------

    def _device(self) -> Device:
        if self.state.device is None:
            raise _Skip("needs the target check, which did not pass")
        return self.state.device

    def _attached(self) -> Attached:
        if self.state.attached is None:
            raise _Skip("needs the deploy check, which did not pass")
        return self.state.attached

    def _request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = self._attached().connection.request(method, params, timeout=REQUEST_TIMEOUT)
        return result

    def _fixture_installed(self) -> bool:
        listing = self._device().shell(f"pm list packages {FIXTURE_PACKAGE}").text()
        self.state.fixture = f"package:{FIXTURE_PACKAGE}" in listing.split()
        return self.state.fixture

    def _start_fixture(self) -> None:
        try:
            start_activity(
                self._device(), f"{FIXTURE_PACKAGE}/{FIXTURE_ACTIVITY}", " --es tab Login", time.monotonic() + 20
            )
        except errors.MobileAgentError as exc:
            raise CheckFailed(str(exc)) from None
        self.state.started_fixture = True

    def _wait_for_node(
        self, key: str, value: str, ready: Callable[[dict[str, Any]], bool] = lambda n: True
    ) -> dict[str, Any]:
        """The node with `key` == `value` once `ready` holds, in snapshots read anew until LAND_TIMEOUT."""
        deadline = time.monotonic() + LAND_TIMEOUT
        seen: dict[str, Any] | None = None
        while True:
            snapshot = self._request("snapshot", {"idle_timeout_ms": 500, "evict_event_less": True})
            for node in (n for w in snapshot["windows"] for n in w["nodes"]):
                if node.get(key) == value:
                    seen = node
                    if ready(node):
                        return node
            if time.monotonic() > deadline:
                found = f"it shows {seen}" if seen else "no such node"
                raise CheckFailed(f"no node with {key}={value!r} as expected within {LAND_TIMEOUT:.0f} s ({found})")
            time.sleep(0.1)


class _Skip(Exception):  # noqa: N818 - a row's outcome, not an error
    """The check cannot run here; the message says why."""


def _center(node: dict[str, Any]) -> dict[str, int]:
    left, top, right, bottom = node["bounds"]
    return {"x": (left + right) // 2, "y": (top + bottom) // 2}


def _running(device: Device, pid: int) -> bool:
    return any(entry.pid == pid for entry in parse_ps(device.shell(PS_COMMAND).text()))


# --- the command --------------------------------------------------------------------------------


@contextlib.contextmanager
def target_of(serial: str, *, controller: str = "auto", virtual_adb: str = "builtin",
              records_dir: Path | None = None) -> Iterator[Target]:
    """The target `--android-serial` names, resolved as the plugin resolves it (stack.targets): a
    serial on the local adb server (`auto`: the only online one), `tcp:HOST:PORT/SERIAL` on another,
    or `virtual`: a virtual device started for the run (with its controller double unless
    `--emulator-controller off`), stopped after it. The agent records are the user's, as a test
    run's are (`records_dir`, default the per-user cache), so the doctor reuses a run's agent; a
    target that cannot be used is the plugin's error, with its advice and "did you mean"."""
    if serial.split(":")[0] != VIRTUAL:
        try:
            parse_target_name(serial)
        except ValueError as exc:
            raise errors.InvalidArgument(f"--android-serial: {exc}") from None
    overrides = {"records_dir": records_dir} if records_dir is not None else {}
    settings = Settings.for_target(serial, emulator_controller=controller, virtual_adb=virtual_adb, **overrides)
    provider = TargetProvider(settings)
    try:
        try:
            android = provider.target()
        except errors.MobileAgentError as exc:
            raise UnusableTarget(f"--android-serial {serial}: the Android target is not usable: {exc.message}",
                                 advice=exc.advice) from None
        yield Target(android, controller=controller, records=records_for(provider, android))
    finally:
        provider.close()


class UnusableTarget(errors.MobileAgentError):
    """The named target cannot be examined: the plugin's reason and advice."""


def format_rows(rows: list[Row]) -> str:
    width = max(len(row.check) for row in rows)
    lines = []
    for row in rows:
        lines.append(f"{row.check:<{width}}  {row.result:<7}  {row.seconds * 1000:>7.0f} ms  {row.detail}")
        if row.advice:
            lines.append(f"{'':<{width}}  advice: {row.advice}")
    lines.append(summary_line(rows))
    return "\n".join(lines)


def summary_line(rows: list[Row]) -> str:
    """`16 checks: 14 passed, 1 failed, 1 skipped` (the kinds that occurred, in that order)."""
    counts = [(sum(row.result == result for row in rows), word)
              for result, word in ((OK, "passed"), (FAILED, "failed"), (SKIPPED, "skipped"))]
    heading = f"{len(rows)} check{'' if len(rows) == 1 else 's'}: "
    return heading + ", ".join(f"{count} {word}" for count, word in counts if count)


def as_json(target: Target, rows: list[Row]) -> str:
    return json.dumps({"serial": target.serial, "ok": not any(r.result == FAILED for r in rows),
                       "checks": [asdict(r) for r in rows]}, ensure_ascii=False)


def exit_status(rows: list[Row]) -> int:
    return 1 if any(row.result == FAILED for row in rows) else 0
