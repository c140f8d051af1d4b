"""Serve virtual devices: ``python -m pytest_mobile_agent.virtual [--devices N] [--real-adb]
[--adb-port P] [--grpc P] [--no-controller]``.

Starts a lab, prints the serials, the ports and the environment to use, and serves until Ctrl-C or
SIGTERM, then stops everything it started (the real adb server by its pid). Each emulator serial
gets its console and, as an emulator started with `-grpc-use-token`, its controller, whose
discovery file goes where `--emulator-controller auto` looks (MOBILE_AGENT_AVD_DISCOVERY_DIR, else
the emulator's own place), so the fast path and the doctor's controller check work on it; each
device runs an AVD of its own name (`lab.lab_avd_name`), so two served labs' `emulator-5554` are
told apart.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from types import FrameType

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.lab import VirtualLab


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_mobile_agent.virtual",
        description="Serve virtual Android devices (API 36 emulator doubles) on loopback until interrupted.",
    )
    parser.add_argument("--devices", type=int, default=1, metavar="N", help="how many devices (default 1)")
    parser.add_argument(
        "--real-adb",
        action="store_true",
        help="put Debian's adb server in front of the devices' adbd endpoints instead of the built-in one",
    )
    parser.add_argument("--adbd", action="store_true", help="also start each device's adbd endpoint (5555.. odd ports)")
    parser.add_argument("--adb-port", type=int, default=0, metavar="PORT",
                        help="the built-in adb endpoint's port, as an adb server's 5037 (default: a free one)")
    parser.add_argument("--grpc", type=int, default=None, metavar="PORT",
                        help="start each device's emulator controller on PORT, PORT+2, ..., with a token, its "
                             "discovery file where an emulator started with `-grpc PORT -grpc-use-token` writes it")
    parser.add_argument(
        "--no-controller",
        action="store_true",
        help="serve no emulator controller (by default each emulator-N gets one, its discovery file where "
        "`--emulator-controller auto` looks, as an emulator started with -grpc-use-token)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log the fronts' traffic")
    args = parser.parse_args(argv)
    if args.devices < 1:
        parser.error("--devices must be at least 1")
    if args.real_adb and args.adb_port:
        parser.error("--adb-port names the built-in endpoint's port: Debian's adb server (--real-adb) takes its own")
    return args


def describe(lab: VirtualLab) -> str:
    """What to tell the user: serials, ports and the environment."""
    server = f"Debian's adb server (pid {lab.real.pid})" if lab.real is not None else "the built-in adb endpoint"
    lines = [f"virtual devices: {', '.join(lab.serials)}", f"adb server: 127.0.0.1:{lab.adb_port} ({server})"]
    for serial in lab.serials:
        port = lab.adbd_port(serial)
        if port is not None:
            lines.append(f"  {serial}: adbd endpoint on 127.0.0.1:{port}")
        console = lab.console_port(serial)
        if console is not None:
            lines.append(f"  {serial}: emulator console on 127.0.0.1:{console}")
        controller = lab.controller(serial)
        if controller is not None:
            lines.append(f"  {serial}: emulator controller on 127.0.0.1:{controller.port} (with a token, "
                         f"AVD {controller.avd.name}, discovery file {controller.discovery_path})")
    lines += [
        "",
        "to use it:",
        f"  export ANDROID_ADB_SERVER_PORT={lab.adb_port}",
        f"  adb -P {lab.adb_port} -s {lab.serials[0]} shell echo ok",
        f"  pytest --android-serial {lab.serials[0]}",
        f"  pytest --android-serial tcp:127.0.0.1:{lab.adb_port}/{lab.serials[0]}   # the same, without the export",
        f"  HOME={lab.home} adb -P {lab.adb_port} -s {lab.serials[0]} emu avd name"
        "   # the console's token is in that HOME",
        "",
        "serving until interrupted (Ctrl-C)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s")
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        lab = VirtualLab.start(args.devices, real_adb=args.real_adb, consoles=True, adb_port=args.adb_port)
    except (errors.MobileAgentError, OSError) as exc:  # OSError: --adb-port taken
        print(f"cannot start the virtual devices: {exc}", file=sys.stderr)
        return 1
    try:
        if args.adbd:
            for serial in lab.serials:
                lab.start_adbd(serial)
        if args.grpc is not None:
            for index, serial in enumerate(lab.serials):
                lab.start_controller(serial, args.grpc + 2 * index)
        elif not args.no_controller:
            for serial in lab.serials:
                if serial.startswith("emulator-"):
                    lab.start_controller(serial)
        print(describe(lab), flush=True)
        while not stop.wait(0.5):
            if lab.real is not None and lab.real.process.poll() is not None:
                print(f"the adb server exited with {lab.real.process.returncode}", file=sys.stderr)
                return 1
            if lab.real is None and lab.builtin.stopped:
                print("the adb endpoint was killed (host:kill)", file=sys.stderr)
                return 0
    finally:
        lab.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
