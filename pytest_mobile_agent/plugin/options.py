"""The plugin's options: each a command-line option, an ini key and, where the seed names one, an
environment variable. The command line wins over the environment, the environment over the ini file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb.targets import parse_target_name
from pytest_mobile_agent.agent.jar import JAR_ENV
from pytest_mobile_agent.agent.records import default_records_dir
from pytest_mobile_agent.stack.lock import DEFAULT_LOCK_WAIT
from pytest_mobile_agent.stack.settings import (
    AUTO,
    DEFAULT_FIXTURE_ACTIVITY,
    DEFAULT_FIXTURE_PACKAGE,
    DEFAULT_IDLE_EXIT,
    VIRTUAL,
    Settings,
)

SERIAL_ENV = "MOBILE_AGENT_ANDROID_SERIAL"
REQUIRE_ENV = "MOBILE_AGENT_REQUIRE_DEVICE"
SKIP_UNUSABLE_ENV = "MOBILE_AGENT_SKIP_UNUSABLE"
CONTROLLER_ENV = "MOBILE_AGENT_EMULATOR_CONTROLLER"
RECORDS_ENV = "MOBILE_AGENT_RECORDS"
APP_APK_ENV = "MOBILE_AGENT_APP_APK"
TRACE_ENV = "MOBILE_AGENT_TRACE"
VIDEO_ENV = "MOBILE_AGENT_VIDEO"
SCREENSHOT_ENV = "MOBILE_AGENT_SCREENSHOT"
UPDATE_SNAPSHOTS_ENV = "MOBILE_AGENT_UPDATE_SNAPSHOTS"
RETAIN_MODES = ("off", "on", "retain-on-failure")
SCREENSHOT_MODES = ("off", "on", "only-on-failure")


NO_SERIAL_REASON = (
    "no Android target named: pass --android-serial SERIAL (or `virtual` for the built-in "
    f"virtual device, `auto` for the only online target) or set {SERIAL_ENV}"
)


@dataclass(frozen=True)
class Option:
    flag: str
    dest: str
    help: str
    env: str | None = None
    default: str | None = None
    is_flag: bool = False
    choices: tuple[str, ...] | None = None
    metavar: str | None = None


OPTIONS = (
    Option(
        "--android-serial",
        "android_serial",
        "the target: a serial, `auto` (the only online target), "
        "`virtual` (a built-in virtual device; `virtual:N` for N of them), `tcp:HOST:PORT/SERIAL` for a "
        "target on another adb server, or a comma list from which each xdist worker takes its own",
        env=SERIAL_ENV,
        metavar="SERIAL",
    ),
    Option(
        "--android-require-device",
        "android_require_device",
        "fail the run, with the target's advice, "
        "when the named target is missing or unusable (instead of skipping its tests)",
        env=REQUIRE_ENV,
        is_flag=True,
    ),
    Option(
        "--android-skip-unusable",
        "android_skip_unusable",
        "a named target that is unknown, unreachable or "
        "not on the adb server skips the device tests with its advice instead of failing the run at its start",
        env=SKIP_UNUSABLE_ENV,
        is_flag=True,
    ),
    Option(
        "--emulator-controller",
        "emulator_controller",
        "the emulator's gRPC fast path: `auto` (from the "
        "emulator's discovery file), `off`, or an endpoint URL such as http://127.0.0.1:8554 (its token in "
        "MOBILE_AGENT_EMULATOR_TOKEN, never on the command line: `ps` shows that to every local user)",
        env=CONTROLLER_ENV,
        default="auto",
        metavar="auto|off|URL",
    ),
    Option(
        "--agent-jar",
        "agent_jar",
        "the agent jar to deploy (default: the jar a release wheel bundles, when it matches the package's agent "
        "sources; else their build in the per-user cache, built on first use with the Android SDK found)",
        env=JAR_ENV,
        metavar="PATH",
    ),
    Option(
        "--agent-force",
        "agent_force",
        "let the agent stop whatever holds UI automation (uiautomator, "
        "another host's agent) instead of failing with a conflict",
        is_flag=True,
    ),
    Option(
        "--agent-idle-exit",
        "agent_idle_exit",
        "seconds the agent lingers with no host connected (holding "
        "UI automation, so the next test, worker or run reuses it) before it exits",
        env="MOBILE_AGENT_IDLE_EXIT",
        default=f"{DEFAULT_IDLE_EXIT:g}",
        metavar="SECONDS",
    ),
    Option(
        "--agent-records",
        "agent_records",
        "where the agent records live, so consecutive runs, xdist "
        "workers, checkouts and projects reuse the running agent (default: the per-user cache)",
        env=RECORDS_ENV,
        metavar="DIR",
    ),
    Option(
        "--quiet-wait",
        "quiet_wait",
        "seconds to wait before a device test until no foreign agent runs and nothing holds UI automation",
        default="60",
        metavar="SECONDS",
    ),
    Option(
        "--lock-wait",
        "lock_wait",
        "seconds a device test waits for the target's automation lock while "
        "another test, worker, run or the inspector holds it",
        default=f"{DEFAULT_LOCK_WAIT:g}",
        metavar="SECONDS",
    ),
    Option(
        "--disturbance-retries",
        "disturbance_retries",
        "runs in all of a device test that another user of the device disturbs",
        default="3",
        metavar="N",
    ),
    Option(
        "--virtual-adb",
        "virtual_adb",
        "with --android-serial virtual: the built-in adb endpoint (default), "
        "or Debian's adb server with the virtual device's adbd endpoint attached",
        default="builtin",
        choices=("builtin", "real"),
    ),
    Option(
        "--app-apk",
        "app_apk",
        "the APK of the app under test: the `app` fixture installs it once per "
        "session (skipped when that versionCode and those bytes are installed)",
        env=APP_APK_ENV,
        metavar="PATH",
    ),
    Option(
        "--app-package",
        "app_package",
        "the app under test when it is already installed (with --app-apk: checked against the APK's package)",
        metavar="PACKAGE",
    ),
    Option(
        "--app-activity",
        "app_activity",
        "the activity `app.start()` starts (default: the app's launchable activity)",
        metavar="ACTIVITY",
    ),
    Option(
        "--fixture-package",
        "fixture_package",
        "the package compose_fixture starts",
        default=DEFAULT_FIXTURE_PACKAGE,
        metavar="PACKAGE",
    ),
    Option(
        "--fixture-activity",
        "fixture_activity",
        "the activity compose_fixture starts",
        default=DEFAULT_FIXTURE_ACTIVITY,
        metavar="ACTIVITY",
    ),
    Option(
        "--android-action-timeout",
        "android_action_timeout",
        "seconds an action (tap, long_press, type_text, swipe_within, scroll_until) waits by default for its element "
        "to exist, be visible and enabled and hold still; 0: no wait",
        default="5",
        metavar="SECONDS",
    ),
    # the seed's timeouts, tuned for a quiet machine: raise them on a loaded CI runner (README)
    Option(
        "--agent-liveness",
        "agent_liveness",
        "seconds a silent agent is still taken for alive (it pings every second)",
        default="3",
        metavar="SECONDS",
    ),
    Option(
        "--controller-connect-timeout",
        "controller_connect_timeout",
        "seconds to connect to the emulator's controller before input and frames fall back to the agent",
        default="2",
        metavar="SECONDS",
    ),
    Option(
        "--agent-kill-wait",
        "agent_kill_wait",
        "seconds a SIGKILLed agent may take to go before it counts as having survived SIGKILL",
        default="1",
        metavar="SECONDS",
    ),
    # the evidence of a device test (plugin/evidence.py); named apart from pytest-playwright's
    # --tracing, --video and --screenshot, so both plugins can be installed together
    Option(
        "--android-trace",
        "android_trace",
        "record each device test's steps (calls, screens, tree, logcat) "
        "into a zip beside its artifacts, opened by `python -m pytest_mobile_agent show-trace`",
        env=TRACE_ENV,
        default="retain-on-failure",
        choices=RETAIN_MODES,
    ),
    Option(
        "--android-video",
        "android_video",
        "record each device test's screen: the emulator controller's "
        "frames (needs the video extra, PyAV), else screenrecord on the device",
        env=VIDEO_ENV,
        default="off",
        choices=RETAIN_MODES,
    ),
    Option(
        "--android-video-format",
        "android_video_format",
        "the container and codec of a video encoded from the controller's frames: mp4 (H.264) or webm (VP8)",
        default="mp4",
        choices=("mp4", "webm"),
    ),
    Option(
        "--android-screenshot",
        "android_screenshot",
        "a screenshot at each device test's end",
        env=SCREENSHOT_ENV,
        default="only-on-failure",
        choices=SCREENSHOT_MODES,
    ),
    Option(
        "--android-hide-clipboard-toasts",
        "android_hide_clipboard_toasts",
        "turn the secure setting clipboard_show_access_notifications off for the session (no \"... pasted "
        "from your clipboard\" toast after a paste or a clipboard read) and put it back at the end",
        is_flag=True,
    ),
    Option(
        "--android-update-snapshots",
        "android_update_snapshots",
        "screen.assert_snapshot writes the baselines instead of comparing with them",
        env=UPDATE_SNAPSHOTS_ENV,
        is_flag=True,
    ),
)


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("mobile-agent", "Android devices and emulators (pytest-mobile-agent)")
    for option in OPTIONS:
        env_note = f" (env {option.env})" if option.env else ""
        if option.is_flag:
            group.addoption(option.flag, dest=option.dest, action="store_true", default=None,
                            help=option.help + env_note)
            parser.addini(option.dest, option.help, type="bool", default=False)
        else:
            default_note = f"; default {option.default}" if option.default else ""
            group.addoption(option.flag, dest=option.dest, default=None, metavar=option.metavar,
                            choices=option.choices, help=option.help + env_note + default_note)
            parser.addini(option.dest, option.help, default=option.default or "")


def check_spellings(args: Sequence[str], invocation_dir: Path) -> None:
    """Refuse `--agent-jar PATH` as two words when PATH exists: pytest picks its rootdir and ini file
    from the arguments before it loads this plugin (_pytest/config/__init__.py, `_preparse` calls
    `determine_setup` with the paths among the arguments before `load_setuptools_entrypoints`), so
    PATH counts as a test path there and moves the rootdir to the common ancestor of the tests and
    PATH. As one word, `--agent-jar=PATH`, it is an unknown option at that point and moves nothing."""
    valued = {option.flag for option in OPTIONS if not option.is_flag}
    for flag, value in zip(args, args[1:], strict=False):
        if flag in valued and not value.startswith("-") and (invocation_dir / value).exists():
            raise pytest.UsageError(
                f"write {flag}={value} as one word: pytest decides its rootdir and ini file before it loads "
                f"the plugin that knows {flag}, so it would take {value} for a test path and move the rootdir "
                "(and .pytest_cache) to the common ancestor of the tests and that path")


def _option(dest: str) -> Option:
    return next(option for option in OPTIONS if option.dest == dest)


def raw_value(config: pytest.Config, dest: str) -> str | bool | None:
    """The option's value: the command line, else the environment, else the ini file, else its default."""
    option = _option(dest)
    given = config.getoption(dest, default=None)
    if given is not None:
        return given  # type: ignore[no-any-return]
    if option.env and os.environ.get(option.env, "").strip():
        value = os.environ[option.env].strip()
        return value.lower() in {"1", "true", "yes", "on"} if option.is_flag else value
    ini = config.getini(dest)
    if option.is_flag:
        return bool(ini)
    return str(ini).strip() or option.default


def settings_from_config(config: pytest.Config) -> Settings:
    """The stack's settings from the options: the command line, else the environment, else the ini file."""
    serial_text = str(raw_value(config, "android_serial") or "")
    serials = tuple(part.strip() for part in serial_text.split(",") if part.strip())
    _check_serials(serials)
    records = raw_value(config, "agent_records")
    jar = raw_value(config, "agent_jar")
    return Settings(
        serials=serials,
        require_device=bool(raw_value(config, "android_require_device")),
        skip_unusable=bool(raw_value(config, "android_skip_unusable")),
        emulator_controller=_controller(str(raw_value(config, "emulator_controller") or AUTO)),
        agent_jar=Path(str(jar)) if jar else None,
        agent_force=bool(raw_value(config, "agent_force")),
        records_dir=Path(str(records)) if records else default_records_dir(),
        quiet_wait=_number(raw_value(config, "quiet_wait"), "--quiet-wait", float, minimum=0),
        disturbance_runs=int(
            _number(raw_value(config, "disturbance_retries"), "--disturbance-retries", int, minimum=1)
        ),
        virtual_adb=str(raw_value(config, "virtual_adb") or "builtin"),
        fixture_package=str(raw_value(config, "fixture_package")),
        fixture_activity=str(raw_value(config, "fixture_activity")),
        app_apk=Path(str(apk)) if (apk := raw_value(config, "app_apk")) else None,
        app_package=str(raw_value(config, "app_package") or "") or None,
        app_activity=str(raw_value(config, "app_activity") or "") or None,
        agent_liveness=_seconds(config, "agent_liveness"),
        controller_connect_timeout=_seconds(config, "controller_connect_timeout"),
        agent_kill_wait=_seconds(config, "agent_kill_wait"),
        agent_idle_exit=_seconds(config, "agent_idle_exit"),
        lock_wait=_seconds(config, "lock_wait"),
        action_timeout=_number(raw_value(config, "android_action_timeout"), "--android-action-timeout", float,
                               minimum=0),
        hide_clipboard_toasts=bool(raw_value(config, "android_hide_clipboard_toasts")),
    )


def _check_serials(serials: tuple[str, ...]) -> None:
    for serial in serials:
        if serial.split(":")[0] == VIRTUAL:
            _, _, count = serial.partition(":")
            if len(serials) > 1 or (count and not (count.isascii() and count.isdigit() and 1 <= int(count) <= 16)):
                raise pytest.UsageError(
                    f"--android-serial {','.join(serials)}: `virtual` stands alone, as `virtual` or `virtual:N` (N "
                    "from 1 to 16)"
                )
        elif any(ch.isspace() or ord(ch) < 32 for ch in serial):
            raise pytest.UsageError(f"--android-serial: {serial!r} is not a serial")
        else:
            try:
                parse_target_name(serial)
            except ValueError as exc:
                raise pytest.UsageError(f"--android-serial: {exc}") from None


def _controller(value: str) -> str:
    """auto, off or an endpoint URL, checked now: a URL carrying a token is refused (the usage error
    redacts it), so neither the settings nor any message built from them ever hold one."""
    from pytest_mobile_agent.stack.paths import controller_setting

    try:
        return controller_setting(value)
    except errors.InvalidArgument as exc:
        raise pytest.UsageError(str(exc)) from None


def _seconds(config: pytest.Config, dest: str) -> float:
    """A positive number of seconds (a zero bound would fail everything at once)."""
    seconds = _number(raw_value(config, dest), _option(dest).flag, float, minimum=0)
    if seconds <= 0:
        raise pytest.UsageError(f"{_option(dest).flag} must be more than 0 seconds, not {seconds:g}")
    return seconds


def _number(value: object, flag: str, kind: type, minimum: float) -> float:
    try:
        number = kind(str(value))
    except ValueError:
        raise pytest.UsageError(f"{flag} takes a number, not {value!r}") from None
    if number < minimum:
        raise pytest.UsageError(f"{flag} must be at least {minimum:g}, not {value}")
    return float(number)


def choice(config: pytest.Config, dest: str) -> str:
    """A choice option's value from wherever it came, checked against its choices (the command line's
    argparse checks only the command line; an environment variable or an ini key is checked here)."""
    option = _option(dest)
    value = str(raw_value(config, dest) or option.default or "").strip().lower()
    if option.choices is not None and value not in option.choices:
        where = " / ".join(filter(None, (option.flag, option.env, f"ini {dest}")))
        raise pytest.UsageError(f"{where} takes one of {', '.join(option.choices)}, not {value!r}")
    return value


def flag(config: pytest.Config, dest: str) -> bool:
    return bool(raw_value(config, dest))
