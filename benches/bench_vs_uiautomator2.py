"""Ours beside uiautomator2's, on the same device: the three operations a device suite spends its time in.

    python3 benches/bench_vs_uiautomator2.py                                  # the virtual device: ours only
    python3 benches/bench_vs_uiautomator2.py --serial emulator-5554 --out bench.json   # ours, then theirs

On the Compose fixture app (fixture-app/, installed), each operation `--rounds` times:

* full tree read of the Big tab (573 nodes with the system bars): ours `Mirror.refresh()` (the agent's
  snapshot read, parsed and applied to the replica); theirs `d.dump_hierarchy()` (the XML dump);
* tap until the next screen's tree: on the Big tab, a tap on the Login tab until the tree shows
  `login_button` (ours `find(id=...).tap()` then `wait_for`; theirs `d(resourceId=...).click()` then
  `.wait()`); the way back to Big is not timed;
* typing unicode text ("héllo 👋 日本") into `username` until the tree shows it: ours
  `type_text` (auto: set directly) then `wait_until`; theirs `set_text` then `get_text` until it is there.

Both drive the device through UiAutomation, which one client holds at a time
(`registerUiTestAutomationService`), so the two run one after the other in the same job: ours
first, its agent stopped, then uiautomator2's own server on the device (installed by
`uiautomator2`, stopped after). Each line gives p50, p95 and the maximum; then each operation's p50
as ours over theirs (below 1: ours faster). The figures go to `--out` as JSON for the workflow's
artifacts (.github/workflows/device-tests.yml).

The uiautomator2 side is skipped, saying why, when the package is not installed or cannot reach the
device (the virtual device runs no uiautomator2 server: it is a double of the platform our agent
uses, not of uiautomator2's APK and jar).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_target import VIRTUAL, AgentTarget, agent_target
from timing import percentiles, summary, timed_once

from pytest_mobile_agent.agent import Deployer, DeployOptions, Records
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.session import ControllerChoice, Session, select_paths

COMPONENT = "dev.mobileagent.fixture/.MainActivity"
UNICODE_TEXT = "héllo 👋 日本"
OPERATIONS = ("full tree read, Big tab", "tap to the next screen's tree", "typing unicode text")
TIMEOUT = 15.0
U2_CONNECT_TIMEOUT = 120.0


def open_tab(target: AgentTarget, tab: str) -> None:
    out = target.device.shell_until(f"am start -W -S -n {COMPONENT} --es tab {tab}", time.monotonic() + 30)
    if out.exit_code != 0 or "Error" in out.text():
        raise SystemExit(f"am start failed ({COMPONENT} installed?): {out.text().strip()}")


# --- ours ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def our_screen(target: AgentTarget) -> Iterator[Mirror]:
    attached = Deployer(target.device, target.jar, Records(), DeployOptions(idle_exit_ms=30_000)).attach()
    session = Session.start_selected(attached, select_paths(target.serial, False, ControllerChoice.Off()),
                                     device=target.device)
    try:
        yield Mirror(session.backend(), timeout=TIMEOUT)
    finally:
        session.stop()


def ours(target: AgentTarget, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in OPERATIONS}
    open_tab(target, "Big")
    with our_screen(target) as screen:
        screen.wait_for(text="Cell 500")
        for _ in range(rounds):
            took, view = timed_once(screen.refresh)
            if view.node_count < 500:
                raise SystemExit(f"the Big tab read {view.node_count} nodes: not the fixture's 500 cells")
            times[OPERATIONS[0]].append(took)
        for _ in range(rounds):
            tab = screen.find(id="tab_login")

            def to_login(tab: Any = tab) -> None:
                tab.tap()
                screen.wait_for(id="login_button")

            times[OPERATIONS[1]].append(timed_once(to_login)[0])
            screen.find(id="tab_big").tap()
            screen.wait_for(text="Cell 500")
        screen.find(id="tab_login").tap()
        for _ in range(rounds):
            field = screen.wait_for(id="username")

            def typed(field: Any = field) -> None:
                field.type_text(UNICODE_TEXT)
                screen.wait_until(lambda view: _text_of(screen, "username") == UNICODE_TEXT or None)

            times[OPERATIONS[2]].append(timed_once(typed)[0])
            field.type_text("")
    return times


def _text_of(screen: Mirror, res: str) -> str | None:
    found = screen.find_all(id=res)
    return found[0].text if found else None


# --- theirs -------------------------------------------------------------------------------------------


def u2_device(target: AgentTarget) -> tuple[Any, str | None]:
    """uiautomator2's device, or None and why it cannot be used here."""
    if target.lab is not None or target.device.getprop("ro.mobile_agent.virtual") == "1":
        return None, ("uiautomator2 cannot reach the virtual device: it runs its own server on the device "
                      "(an APK and a jar under app_process), and the virtual device is a double of the "
                      "platform our agent uses, not of that server")
    try:
        import uiautomator2  # type: ignore[import-not-found]
    except ImportError:
        return None, "uiautomator2 is not installed: pip install 'pytest-mobile-agent[compare]'"
    found: list[Any] = []
    failed: list[BaseException] = []

    def connect() -> None:
        try:
            device = uiautomator2.connect(target.serial)
            device.info  # starts its server on the device  # noqa: B018
            found.append(device)
        except Exception as exc:  # noqa: BLE001 - any failure is the reason to skip
            failed.append(exc)

    worker = threading.Thread(target=connect, daemon=True)
    worker.start()
    worker.join(U2_CONNECT_TIMEOUT)
    if found:
        return found[0], None
    why = f"{type(failed[0]).__name__}: {failed[0]}" if failed else f"no answer within {U2_CONNECT_TIMEOUT:.0f} s"
    return None, f"uiautomator2 cannot reach {target.serial}: {why}"


def theirs(target: AgentTarget, d: Any, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in OPERATIONS}
    open_tab(target, "Big")
    d(text="Cell 500").wait(timeout=TIMEOUT)
    for _ in range(rounds):
        took, xml = timed_once(d.dump_hierarchy)
        if "Cell 500" not in xml:
            raise SystemExit("uiautomator2's dump of the Big tab has no Cell 500")
        times[OPERATIONS[0]].append(took)
    for _ in range(rounds):
        took, shown = timed_once(lambda: (d(resourceId="tab_login").click(),
                                          d(resourceId="login_button").wait(timeout=TIMEOUT))[1])
        if not shown:
            raise SystemExit("uiautomator2: the Login tab did not show login_button")
        times[OPERATIONS[1]].append(took)
        d(resourceId="tab_big").click()
        d(text="Cell 500").wait(timeout=TIMEOUT)
    d(resourceId="tab_login").click()
    for _ in range(rounds):
        field = d(resourceId="username")
        field.wait(timeout=TIMEOUT)

        def typed(field: Any = field) -> None:
            field.set_text(UNICODE_TEXT)
            deadline = time.monotonic() + TIMEOUT
            while field.get_text() != UNICODE_TEXT:
                if time.monotonic() > deadline:
                    raise SystemExit("uiautomator2: the text did not show in username")
                time.sleep(0.01)

        times[OPERATIONS[2]].append(timed_once(typed)[0])
        field.clear_text()
    return times


# --- the report ---------------------------------------------------------------------------------------


def figures(times: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    return {name: dict(zip(("p50_ms", "p95_ms", "max_ms"), (round(v, 3) for v in percentiles(samples)), strict=True))
            | {"n": len(samples)} for name, samples in times.items()}


def report(target: AgentTarget, mine: dict[str, list[float]], other: dict[str, list[float]] | None,
           skipped: str | None, rounds: int) -> tuple[list[str], dict[str, Any]]:
    lines = [f"target {target.describe()}, {rounds} rounds each"]
    for name in OPERATIONS:
        lines.append(f"ours   {name:<30} {summary(mine[name], digits=2)}")
        if other is not None:
            lines.append(f"theirs {name:<30} {summary(other[name], digits=2)}")
    ratios = None
    if other is not None:
        ratios = {name: round(percentiles(mine[name])[0] / percentiles(other[name])[0], 3) for name in OPERATIONS}
        lines += [f"ours over theirs, p50: {name} {ratio:.2f}" for name, ratio in ratios.items()]
    else:
        lines.append(f"uiautomator2 skipped: {skipped}")
    content = {"serial": target.serial, "fingerprint": target.device.getprop("ro.build.fingerprint"),
               "api": target.device.getprop("ro.build.version.sdk"), "rounds": rounds, "ours": figures(mine),
               "theirs": figures(other) if other is not None else None, "ours_over_theirs_p50": ratios,
               "theirs_skipped": skipped}
    return lines, content


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serial", default=VIRTUAL, help="a serial on the local adb server, or virtual (default)")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    with agent_target(args.serial) as target:
        if target.lab is not None:
            open_tab(target, "Login")  # the virtual device has the fixture app; a device needs it installed
        mine = ours(target, args.rounds)
        d, skipped = u2_device(target)
        other: dict[str, list[float]] | None = None
        if d is not None:
            try:
                other = theirs(target, d, args.rounds)
            finally:
                with contextlib.suppress(Exception):
                    d.stop_uiautomator()
        lines, content = report(target, mine, other, skipped, args.rounds)
    print("\n".join(lines))
    if args.out is not None:
        args.out.write_text(json.dumps(content, ensure_ascii=False, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
