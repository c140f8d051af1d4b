"""`python -m pytest_mobile_agent doctor`: every capability once on one target, one row per check.

The first thing to run on a real device: it tells in one command whether the device works with the
driver, and for each check that does not, what to do. The checks, in order: the adb server and the
target, the agent jar (found or built), deploy with its outcome, hello, the window list with its
metadata, a snapshot with its node count and time, a tap landing (on the Compose fixture app when it
is installed, else on the status bar, where a tap changes nothing), keys, text by each method (these
need the fixture app's fields), the keyboard's text paths (which path `auto` takes for each kind of
text, and the input method), the clipboard's round trip as the shell, a toast seen (the fixture's
"Continue as guest"), a screenshot (size, upright), its pixels (the capture path, a checksum; a black
image fails), the emulator controller and its frames, the debuggable web targets and one attach's
round trip (cli/doctor_web.py), the agent's idle exit, the rotation kept across that exit, and the
clipboard's round trip under root (`adb root`, on builds that allow it; adbd is put back as it was).

A check whose prerequisite failed is skipped and says which; the exit status is 1 when any check
failed. `--check NAME` runs only the checks named, each with the ones it needs (`with_prerequisites`).
`--json` prints the rows as one JSON object; `--report FILE` writes the compatibility report
(cli/doctor_report.py): the device's build fingerprint and API, and every row with its figures.
"""

from __future__ import annotations

import base64
import contextlib
import json
import struct
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import asdict, dataclass, field
from operator import attrgetter
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
from pytest_mobile_agent.cli import doctor_report, doctor_web
from pytest_mobile_agent.control.app_under_test import start_activity
from pytest_mobile_agent.session.ownership import TargetCheck
from pytest_mobile_agent.stack.agent import choose_jar, records_for
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
#: the keyboard's text paths: (kind of text, field, text, the path `auto` takes there as the agent
#: chooses it: direct where the node offers ACTION_SET_TEXT, else keys where the virtual key map types
#: every character, else the clipboard)
KEYBOARD_PATHS = (("a field that takes text", "username", "Kb ü", "direct"),
                  ("typeable text", "invite_code", "Kb 34", "keys"),
                  ("text no key types", "invite_code", "日本", "clipboard"))
CLIPBOARD_PROBE = "pytest-mobile-agent doctor: ✓ clip"
GUEST_TOAST = "Continuing as guest"  # the fixture's late button shows it (virtual/ui/fixture.py)
TOAST_TIMEOUT = 10.0  # a toast waits behind the one shown (NotificationManagerService: one at a time, 3.5 s long)
ADBD_RESTART_TIMEOUT = 30.0
SHELL_UID, ROOT_UID = 2000, 0

OK, FAILED, SKIPPED = "ok", "failed", "skipped"
#: what a check uses that an earlier check sets up, beyond the check its row needs: the jar the
#: deploy pushes, the fixture app the tap starts, the Login tab the keys check opens, the display the
#: windows check read
SETS_UP = {"deploy": ("agent jar",), "keys": ("tap",), **{f"text ({method})": ("keys",) for method in TEXTS},
           "keyboard": ("keys",), "toast": ("tap",), "rotation kept": ("windows",)}

def _text_in(method: str) -> Callable[[Doctor], Callable[[], str]]:
    return lambda doctor: doctor._text_check(method)


#: every check in the order they run: its row's name (`--check` takes these), what runs it (the
#: Doctor's method), and the check whose row must have passed first
_PLAN: tuple[tuple[str, Callable[[Doctor], Callable[[], str]], str | None], ...] = (
    ("adb server", attrgetter("_adb_server"), None), ("target", attrgetter("_target"), "adb server"),
    ("agent jar", attrgetter("_agent_jar"), None), ("deploy", attrgetter("_deploy"), "target"),
    ("hello", attrgetter("_hello"), "deploy"), ("windows", attrgetter("_windows"), "deploy"),
    ("snapshot", attrgetter("_snapshot"), "deploy"), ("tap", attrgetter("_tap"), "deploy"),
    ("keys", attrgetter("_keys"), "deploy"),
    *((f"text ({method})", _text_in(method), "deploy") for method in TEXTS),
    ("keyboard", attrgetter("_keyboard"), "deploy"), ("clipboard (shell)", attrgetter("_clipboard_as_shell"), "deploy"),
    ("toast", attrgetter("_toast"), "deploy"), ("screenshot", attrgetter("_screenshot"), "deploy"),
    ("screenshot pixels", attrgetter("_screenshot_pixels"), "screenshot"),
    ("controller", attrgetter("_controller"), "target"), ("web", attrgetter("_web"), "target"),
    ("idle exit", attrgetter("_idle_exit"), "deploy"), ("rotation kept", attrgetter("_rotation_kept"), "idle exit"),
    ("clipboard (root)", attrgetter("_clipboard_as_root"), "deploy"),
)
CHECKS = tuple(name for name, _, _ in _PLAN)


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
    facts: dict[str, Any] = field(default_factory=dict)
    screenshot: bytes | None = None
    capture: str | None = None


class Doctor:
    def __init__(self, target: Target, *, jar_path: Path | None = None, force: bool = False,
                 checks: Collection[str] = ()) -> None:
        self.target = target
        self.jar_path = jar_path
        self.force = force
        #: the checks asked for (`--check`), run with the checks they need; empty: every check
        self.wanted = checks_named(checks)
        self.state = _State()
        self.rows: list[Row] = []
        self.records = target.records
        #: per check, the figures it measured (the report's `figures`; rows and `--json` keep words only)
        self.figures: dict[str, dict[str, Any]] = {}
        self._checking = ""

    # --- running ----------------------------------------------------------------------------------

    def run(self) -> list[Row]:
        chosen = with_prerequisites(self.wanted, {name: needs for name, _, needs in _PLAN})
        try:
            for name, runner, needs in _PLAN:
                if chosen is None or name in chosen:
                    self.rows.append(self._run_one(name, runner(self), needs))
        finally:
            self._clean_up()
        return self.rows

    def _run_one(self, name: str, check: Callable[[], str], needs: str | None) -> Row:
        if needs is not None and not self._passed(needs):
            return Row(name, SKIPPED, 0.0, f"needs the {needs} check, which did not pass")
        started = time.monotonic()
        self._checking = name
        try:
            detail = check()
        except _Skip as skip:
            return Row(name, SKIPPED, time.monotonic() - started, str(skip))
        except errors.MobileAgentError as exc:
            return Row(name, FAILED, time.monotonic() - started, exc.message, exc.advice or None)
        except Exception as exc:  # noqa: BLE001 - a row says what went wrong, whatever it was
            return Row(name, FAILED, time.monotonic() - started, f"{type(exc).__name__}: {exc}")
        return Row(name, OK, time.monotonic() - started, detail)

    def _figure(self, **figures: Any) -> None:
        """Figures of the check running, for the report."""
        self.figures.setdefault(self._checking, {}).update(figures)

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
        self.state.facts = doctor_report.device_facts(self.state.device)
        self._figure(api=target.api_level, emulator=self.state.emulator,
                     fingerprint=self.state.facts.get("fingerprint"))
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
        self._figure(nodes=snapshot["node_count"], windows=len(snapshot["windows"]), read_ms=round(took))
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
        took = (time.monotonic() - started) * 1000
        self._figure(landed_ms=round(took))
        return f"landed: the fixture's List tab showed {took:.0f} ms after the tap"

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

    def _keyboard(self) -> str:
        """Which path `auto` takes for each kind of text, on the fixture's fields, and that the text
        lands; with the input method the device types through."""
        ime = self._device().shell("settings get secure default_input_method").text().strip()
        self._figure(ime=ime or None)
        if not self.state.fixture:
            raise _Skip(f"input method {ime or 'none'}; the text paths need an editable field: install "
                        f"{FIXTURE_PACKAGE} (the Compose fixture app)")
        paths = {}
        for kind, res, text, expected in KEYBOARD_PATHS:
            node = self._wait_for_node("res", res)
            before = node["text"] or ""
            answer = self._request("text", {"node": node["id"], "text": text, "method": "auto"})
            used = answer.get("method")
            paths[kind] = used
            if not answer.get("accepted"):
                raise CheckFailed(f"auto typed {text!r} into {res} by {used}, and the platform did not accept it")
            wanted = text if used == "direct" else before + text
            self._wait_for_node("res", res, _text_is(wanted))
            if used != expected:
                self._figure(paths=paths)
                raise CheckFailed(f"auto took {used} for {kind} ({text!r} into {res}), where the agent's rule takes "
                                  f"{expected}", advice="Attach the doctor's report (--report FILE) to a bug report")
        self._figure(paths=paths)
        return f"input method {ime or 'none'}; auto: " + ", ".join(f"{kind} by {used}" for kind, used in paths.items())

    def _clipboard_as_shell(self) -> str:
        uid = self._shell_uid()
        said = self._clipboard_round_trip()
        return said + (" (adbd runs as root: the agent too)" if uid == ROOT_UID else "")

    def _clipboard_round_trip(self) -> str:
        """Set a probe clip, read it back, put the user's clip back (or clear it, if there was none)."""
        try:
            saved: dict[str, Any] | None = self._request("clipboard_get", {})
        except errors.MobileAgentError as exc:
            saved = None  # a clip the shell may not read: it cannot be put back
            unreadable = exc.message
        started = time.monotonic()
        self._request("clipboard_set", {"text": CLIPBOARD_PROBE})
        got = self._request("clipboard_get", {}).get("text")
        took = (time.monotonic() - started) * 1000
        if saved is not None:
            self._request("clipboard_set", {"text": saved.get("text")})
        self._figure(round_trip_ms=round(took), read_back=got == CLIPBOARD_PROBE)
        if got != CLIPBOARD_PROBE:
            raise CheckFailed(f"set {CLIPBOARD_PROBE!r}, read back {got!r}",
                              advice="The clipboard does not keep what the agent sets: attach the doctor's report "
                                     "(--report FILE) to a bug report")
        kept = "the user's clip put back" if saved is not None else f"the user's clip not put back ({unreadable})"
        return f"set and read back {CLIPBOARD_PROBE!r} in {took:.0f} ms; {kept}"

    def _toast(self) -> str:
        """The fixture's late button shows a toast: the agent must hear it (docs/protocol.md, toasts)."""
        if not self.state.fixture:
            raise _Skip(f"needs a toast to show: install {FIXTURE_PACKAGE} (the Compose fixture app)")
        self._request("tap", _center(self._wait_for_node("res", "tab_list")))
        self._wait_for_node("res", "list")
        self._request("tap", _center(self._wait_for_node("res", "tab_login")))
        button = self._wait_for_node("res", "late_button")
        last = self._request("toasts", {})["last"]
        started = time.monotonic()
        self._request("tap", _center(button))
        heard: list[dict[str, Any]] = []
        while time.monotonic() - started < TOAST_TIMEOUT:
            heard += self._request("toasts", {"after": last})["toasts"]
            last = max([last, *(t["id"] for t in heard)])
            if any(t["text"] == GUEST_TOAST for t in heard):
                took = (time.monotonic() - started) * 1000
                self._figure(seen_ms=round(took), others=[t["text"] for t in heard if t["text"] != GUEST_TOAST])
                return f"{GUEST_TOAST!r} heard {took:.0f} ms after the tap on late_button"
            time.sleep(0.1)
        others = "; ".join(repr(t["text"]) for t in heard) or "none"
        raise CheckFailed(f"no toast {GUEST_TOAST!r} within {TOAST_TIMEOUT:.0f} s of the tap (toasts heard: {others})",
                          advice="A toast waits behind the one shown (3.5 s each): attach the doctor's report "
                                 "(--report FILE) to a bug report")

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
        self.state.screenshot, self.state.capture = data, capture
        self._figure(width=width, height=height, bytes=len(data), rotation=shot["rotation"], capture=capture)
        via = {"ui_automation": "UiAutomation", "screencap": "screencap (UiAutomation's capture failed)"}
        return (f"{width}x{height} PNG, {len(data)} bytes, rotation {shot['rotation']}, upright, "
                f"taken by {via.get(capture, capture)}")

    def _screenshot_pixels(self) -> str:
        data, capture = self.state.screenshot, self.state.capture
        if data is None:
            raise _Skip("needs the screenshot check's image")
        pixels = doctor_report.pixels_of(data)
        self._figure(capture=capture, sha256=pixels.sha256, lit_fraction=pixels.lit_fraction, colours=pixels.colours)
        if pixels.black:
            raise CheckFailed(f"the screenshot taken by {capture} is black: every pixel is (0, 0, 0)",
                              advice="A failed GPU readback gives a black image (docs/agent-android.md, Screenshots): "
                                     "wake and unlock the device, then attach the doctor's report (--report FILE) to "
                                     "a bug report")
        return (f"taken by {capture}, sha256 {pixels.sha256[:16]}, {pixels.lit_fraction:.1%} of pixels not black, "
                f"{pixels.colours} colours")

    def _web(self) -> str:
        """The debuggable web targets and one attach's round trip (cli/doctor_web.py)."""
        check = doctor_web.WebCheck(self._device())
        try:
            return check.run()
        except doctor_web.NoWebTarget as none:
            raise _Skip(str(none)) from None
        finally:
            self._figure(**check.figures)
            with contextlib.suppress(errors.MobileAgentError):
                check.clean_up()

    def _controller(self) -> str:
        from pytest_mobile_agent.session import PathOptions, select_paths
        from pytest_mobile_agent.stack.controller_setting import controller_choice

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
            self._figure(frame_ms=round(took), width=frame.width, height=frame.height)
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
        self._figure(exit_ms=round(took), bound_ms=bound)
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

    # --- the clipboard under root -----------------------------------------------------------------

    def _clipboard_as_root(self) -> str:
        """The clipboard's round trip by an agent launched while adbd runs as root (`adb root`), on
        builds that allow it (ro.debuggable=1: userdebug and eng builds, emulator images); adbd is put
        back as it was, and the agent launched as root is stopped."""
        if self._shell_uid() == ROOT_UID:
            self._stop_agent()
            self._launch()
            try:
                return "adbd already runs as root (left so): " + self._clipboard_round_trip()
            finally:
                self._stop_agent()
        debuggable, build = self.state.facts.get("debuggable"), self.state.facts.get("build_type") or "user"
        if debuggable != "1":
            raise _Skip(f"root is not available: a {build} build (ro.debuggable={debuggable or 'unset'})")
        self._stop_agent()
        said = self._adbd_restart("root:", ROOT_UID)
        try:
            attached = self._launch()
            uid = self._uid_of(attached.record.pid)
            self._figure(agent_uid=uid)
            return (f"under adb root ({said}; adbd put back as non-root after), the agent as uid {uid}: "
                    + self._clipboard_round_trip())
        finally:
            self._stop_agent()
            self._adbd_restart("unroot:", SHELL_UID)

    def _adbd_restart(self, service: str, uid: int) -> str:
        """adbd's `root:` or `unroot:` service, then wait until the device is back with shells of `uid`."""
        with self._device().open_service(service) as stream:
            reply = b""
            while chunk := stream.recv(4096, timeout=REQUEST_TIMEOUT):
                reply += chunk
        said = reply.decode(errors="replace").strip()
        if "restarting" not in said:
            raise CheckFailed(f"adb {service.rstrip(':')}: adbd answered {said!r}")
        deadline = time.monotonic() + ADBD_RESTART_TIMEOUT
        while True:
            with contextlib.suppress(errors.MobileAgentError, OSError):
                if self._shell_uid() == uid:
                    return said
            if time.monotonic() > deadline:
                raise CheckFailed(f"after adb {service.rstrip(':')} the device's shells do not run as uid {uid} "
                                  f"within {ADBD_RESTART_TIMEOUT:.0f} s",
                                  advice="Run `adb wait-for-device shell id`, and `adb unroot` if it says uid=0")
            time.sleep(0.2)

    def _uid_of(self, pid: int) -> int | None:
        for line in self._device().shell("ps -A -o PID,UID").text().splitlines()[1:]:
            words = line.split()
            if len(words) == 2 and words[0] == str(pid) and words[1].isdigit():
                return int(words[1])
        return None

    def _shell_uid(self) -> int:
        return int(self._device().shell("id -u").text().strip())

    def _stop_agent(self) -> None:
        attached = self.state.attached
        if attached is not None and not self.state.agent_gone:
            attached.stop()
            self.state.agent_gone = True

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
                if _matches(node.get(key), key, value):
                    seen = node
                    if ready(node):
                        found_node: dict[str, Any] = node
                        return found_node
            if time.monotonic() > deadline:
                found = f"it shows {seen}" if seen else "no such node"
                raise CheckFailed(f"no node with {key}={value!r} as expected within {LAND_TIMEOUT:.0f} s ({found})")
            time.sleep(0.1)


def checks_named(names: Collection[str]) -> frozenset[str]:
    """The checks `--check` names; errors.InvalidArgument naming the first the doctor does not have."""
    unknown = [name for name in names if name not in CHECKS]
    if unknown:
        raise errors.InvalidArgument(f"--check {unknown[0]!r}: the doctor has no such check",
                                     advice=f"Name one of: {', '.join(repr(name) for name in CHECKS)}")
    return frozenset(names)


def with_prerequisites(wanted: frozenset[str], needs: dict[str, str | None]) -> set[str] | None:
    """The checks to run for the `wanted` ones: each with the check its row needs and the ones that
    set up what it uses (SETS_UP), and theirs; None (every check) when none is wanted."""
    if not wanted:
        return None
    chosen: set[str] = set()
    todo = list(wanted)
    while todo:
        name = todo.pop()
        if name not in chosen:
            chosen.add(name)
            needed = needs[name]
            todo += [*SETS_UP.get(name, ()), *((needed,) if needed else ())]
    return chosen


class _Skip(Exception):  # noqa: N818 - a row's outcome, not an error
    """The check cannot run here; the message says why."""


def _matches(found: Any, key: str, value: str) -> bool:
    """A resource id matches whole or by the part after `:id/` (a Compose test tag is whole, a View's
    id is `package:id/name`), as the mirror's `id=` matches it."""
    return found == value or (key == "res" and isinstance(found, str) and found.endswith(f":id/{value}"))


def _text_is(wanted: str) -> Callable[[dict[str, Any]], bool]:
    return lambda node: node["text"] == wanted


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


def report_of(doctor: Doctor) -> dict[str, Any]:
    """The compatibility report of a doctor's run (cli/doctor_report.py)."""
    hello = doctor.state.attached.connection.hello if doctor.state.attached is not None else None
    agent = {"version": hello.version, "build": hello.build, "capabilities": list(hello.capabilities)} if hello else {}
    if doctor.state.jar is not None:
        agent["jar"] = doctor.state.jar.origin
    return doctor_report.report(serial=doctor.target.serial, rows=doctor.rows, figures=doctor.figures,
                                device={**dict.fromkeys(doctor_report.DEVICE_PROPERTIES), **doctor.state.facts},
                                agent=agent,
                                summary=summary_line(doctor.rows))


def exit_status(rows: list[Row]) -> int:
    return 1 if any(row.result == FAILED for row in rows) else 0
