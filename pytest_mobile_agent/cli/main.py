"""`python -m pytest_mobile_agent <command>` (and the `mobile-agent` script): the package's command line.

A small argparse dispatcher: each subcommand is a function that takes the parsed arguments and
returns the exit status. Add one with `_register(...)` in `build_parser`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence

from pytest_mobile_agent import errors
from pytest_mobile_agent.cli.inspector import LOCK_WAIT as INSPECTOR_LOCK_WAIT
from pytest_mobile_agent.stack.options import TRUE_WORDS, lookup
from pytest_mobile_agent.stack.settings import AUTO, VIRTUAL

Command = Callable[[argparse.Namespace], int]


def _failed(exc: errors.MobileAgentError) -> int:
    """The error and its advice on stderr; the exit status of a command that could not start."""
    print(f"error: {exc.message}", file=sys.stderr)
    if exc.advice:
        print(f"advice: {exc.advice}", file=sys.stderr)
    return 2


def _positive_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a number of seconds, not {text!r}") from None
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, not {text}")
    return seconds


def _targets(args: argparse.Namespace) -> int:
    """Print the targets as `adb devices -l` does, with their facts and the advice for each state."""
    from pytest_mobile_agent.adb import AdbServer
    from pytest_mobile_agent.adb.targets import format_target

    try:
        server = AdbServer(host=args.host, port=args.port)
        targets = server.targets()
    except errors.ServerUnreachable as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        print(f"advice: {exc.advice}", file=sys.stderr)
        return 2
    except errors.MobileAgentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"List of devices attached (adb server at {server.address})")
    for target in targets:
        print(format_target(target))
    return 0


def _agent_build(args: argparse.Namespace) -> int:
    """Build the agent jar into the per-user cache (or find it there) and print where it is. A release
    wheel's bundled jar of the same sources is what the plugin deploys, so then nothing is built
    unless --rebuild asks."""
    from pytest_mobile_agent.agent.builder import AgentSources, cached_jar
    from pytest_mobile_agent.agent.bundled import BundleRefused, bundled_jar

    def announce(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    try:
        bundled = None if args.rebuild else bundled_jar(AgentSources.locate())
    except BundleRefused as refused:
        announce(str(refused))
        bundled = None
    if bundled is not None:
        announce("this package bundles the agent jar built from its sources, which the plugin deploys: nothing to "
                 f"build (--rebuild builds one into the per-user cache): {bundled}")
        print(bundled)
        return 0
    try:
        path, built = cached_jar(rebuild=args.rebuild, announce=announce)
    except errors.MobileAgentError as exc:
        return _failed(exc)
    if not built:
        announce(f"the agent jar for these sources is already built (--rebuild builds it again): {path}")
    print(path)
    return 0


def _doctor(args: argparse.Namespace) -> int:
    """Every capability once on the target, one row per check (pytest_mobile_agent.cli.doctor)."""
    from pathlib import Path

    from pytest_mobile_agent.cli import doctor, doctor_report
    from pytest_mobile_agent.stack.controller_setting import controller_setting

    try:
        controller = controller_setting(args.emulator_controller)  # a token in a URL is refused before anything
        records = Path(args.agent_records) if args.agent_records else None
        checks = doctor.checks_named(args.check or ())
        with doctor.target_of(args.android_serial, controller=controller,
                              virtual_adb=args.virtual_adb, records_dir=records) as target:
            examiner = doctor.Doctor(target, jar_path=Path(args.agent_jar) if args.agent_jar else None,
                                     force=args.agent_force, checks=checks)
            rows = examiner.run()
    except errors.MobileAgentError as exc:
        return _failed(exc)
    print(doctor.as_json(target, rows) if args.json else doctor.format_rows(rows))
    if args.report:
        try:
            doctor_report.write_report(Path(args.report), doctor.report_of(examiner))
        except errors.MobileAgentError as exc:
            return _failed(exc)
        print(f"the compatibility report: {args.report} (attach it to a bug report)", file=sys.stderr)
    return doctor.exit_status(rows)


def _inspect(args: argparse.Namespace) -> int:
    """Serve the inspector's page on 127.0.0.1 until interrupted (pytest_mobile_agent.cli.inspector)."""
    from pathlib import Path

    from pytest_mobile_agent.stack.controller_setting import controller_setting

    try:
        controller = controller_setting(args.emulator_controller)  # a token in a URL is refused before anything
    except errors.InvalidArgument as exc:
        return _failed(exc)
    try:
        from pytest_mobile_agent.cli.inspector.server import DeviceWorker, Inspector, serving
        from pytest_mobile_agent.cli.inspector.target import opened
        from pytest_mobile_agent.stack import Settings
    except ImportError as exc:
        print(f"error: the inspector needs its extra ({exc.name} is missing)", file=sys.stderr)
        print("advice: pip install 'pytest-mobile-agent[inspect]'", file=sys.stderr)
        return 2

    def announce(message: str) -> None:
        print(f"[mobile-agent] {message}", file=sys.stderr, flush=True)

    settings = Settings.for_target(
        args.android_serial, emulator_controller=controller,
        agent_jar=Path(args.agent_jar) if args.agent_jar else None, virtual_adb=args.virtual_adb,
        app_apk=Path(args.app_apk) if args.app_apk else None, app_package=args.app_package,
        app_activity=args.app_activity)
    worker = DeviceWorker(lambda: opened(settings, announce, lock_wait=args.lock_wait))
    try:
        worker.start()
    except errors.MobileAgentError as exc:
        return _failed(exc)
    try:
        return _serve_until_stopped(lambda: serving(Inspector(worker), port=args.port), "inspector", args.port)
    finally:
        worker.stop()


def _serve_until_stopped(serve: Callable[[], contextlib.AbstractContextManager[str]], name: str, port: int) -> int:
    """Serve a page until Ctrl-C or SIGTERM: its URL on stdout, a hint on stderr; 2 when it cannot listen."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        with serve() as url:
            print(f"{name}: {url}", flush=True)
            print(f"[mobile-agent] open the URL in a browser; Ctrl-C stops the {name}", file=sys.stderr, flush=True)
            stop.wait()
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"error: the {name} cannot listen on 127.0.0.1:{port}: {exc.strerror}", file=sys.stderr)
        return 2
    return 0


def _show_trace(args: argparse.Namespace) -> int:
    """Serve a step trace's page on 127.0.0.1 until interrupted (pytest_mobile_agent.cli.trace_viewer)."""
    from pytest_mobile_agent.cli.trace_viewer.server import Viewer, serving
    from pytest_mobile_agent.evidence.tracefile import InvalidTrace, locate_trace, read_trace

    try:
        trace = read_trace(locate_trace(args.path))
    except InvalidTrace as exc:
        return _failed(exc)
    return _serve_until_stopped(lambda: serving(Viewer(trace), port=args.port), "trace viewer", args.port)


def _shared(parser: argparse.ArgumentParser, flag: str, *, default: str | float | None = None,
            kind: Callable[[str], object] = str) -> None:
    """One of the options a command shares with a test run, rendered from the one table
    (stack/options.py): its help, metavar, choices and environment variable, which wins over this
    command's `default` (the table's when not given), as it does in a test run."""
    option = lookup(flag)
    given = option.from_environment(os.environ)
    if option.is_flag:
        parser.add_argument(flag, dest=option.dest, action="store_true", help=option.help,
                            default=bool(given and given.lower() in TRUE_WORDS))
        return
    fallback = option.default if default is None else default
    shown = f"{fallback:g}" if isinstance(fallback, float) else fallback or option.default_text or "none"
    note = f" (default: {option.env}, else {shown})" if option.env else f" (default {shown})"
    parser.add_argument(flag, dest=option.dest, default=given or fallback, metavar=option.metavar,
                        choices=option.choices, type=kind, help=option.help + note)


def _register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], name: str, command: Command,
              help_text: str) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(name, help=help_text, description=help_text)
    parser.set_defaults(command=command)
    return parser


def _version_line() -> str:
    from pytest_mobile_agent._version import __version__
    from pytest_mobile_agent.agent.jar import expected_version

    return f"pytest-mobile-agent {__version__}, agent {expected_version()}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pytest_mobile_agent",
                                     description="pytest-mobile-agent's command line")
    parser.add_argument("--version", action="version", version=_version_line(),
                        help="print the package's version and the agent version it deploys, and exit")
    subparsers = parser.add_subparsers(dest="name", metavar="COMMAND")
    targets = _register(subparsers, "targets", _targets,
                        "list the adb server's targets with their facts, and advice for the unusable ones")
    targets.add_argument("--host", default=None, help="the adb server's host (default 127.0.0.1 or ADB_SERVER_SOCKET)")
    targets.add_argument("-P", "--port", type=int, default=None,
                         help="the adb server's port (default 5037, ANDROID_ADB_SERVER_PORT or ADB_SERVER_SOCKET)")
    agent = subparsers.add_parser("agent", help="the on-device agent", description="the on-device agent")
    agent_commands = agent.add_subparsers(dest="agent_command", metavar="COMMAND", required=True)
    build = _register(agent_commands, "build", _agent_build,
                      "build the agent jar with the Android SDK found (ANDROID_HOME, ANDROID_SDK_ROOT, or "
                      "Android Studio's place) into the per-user cache, and print its path")
    build.add_argument("--rebuild", action="store_true", help="build again even when the cache has this build")
    check = _register(subparsers, "doctor", _doctor,
                      "run every capability once on a target (adb, agent, tree, input, text, keyboard, clipboard, "
                      "toast, screenshot, controller, idle exit, rotation, clipboard under root): one row per "
                      "check, advice for each that fails; --report FILE for the compatibility report")
    _shared(check, "--android-serial", default=AUTO)
    for flag in ("--emulator-controller", "--agent-jar", "--agent-force", "--agent-records", "--virtual-adb"):
        _shared(check, flag)
    check.add_argument("--check", metavar="NAME", action="append", default=None,
                       help="run only this check (a row's name, as `--check web` or `--check 'text (keys)'`) and "
                            "the checks it needs; repeat for more")
    check.add_argument("--json", action="store_true", help="machine-readable output")
    check.add_argument("--report", metavar="FILE", default=None,
                       help="also write the compatibility report to FILE (JSON: the device's build fingerprint, "
                            "API, every check's outcome and figures); attach it to bug reports")
    inspect = _register(subparsers, "inspect", _inspect,
                        "serve a page on 127.0.0.1 that shows the target's screen, windows and tree, the line "
                        "that finds each element, and records a test (needs the inspect extra)")
    _shared(inspect, "--android-serial", default=VIRTUAL)
    inspect.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default: a free one)")
    for flag in ("--emulator-controller", "--agent-jar", "--app-apk", "--app-package", "--app-activity",
                 "--virtual-adb"):
        _shared(inspect, flag)
    _shared(inspect, "--lock-wait", default=INSPECTOR_LOCK_WAIT, kind=_positive_seconds)
    show = _register(subparsers, "show-trace", _show_trace,
                     "serve a test's step trace (the trace.zip its report names) on 127.0.0.1: the steps, the "
                     "screen before and after each with its target, the tree, the logs and the video")
    show.add_argument("path", metavar="PATH", help="the trace.zip a failed test's report names, or a folder: "
                                                   "the one trace in it is opened, several are named")
    show.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default: a free one)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command: Command | None = getattr(args, "command", None)
    if command is None:
        parser.print_help(sys.stderr)
        return 2
    return command(args)
