"""The plugin's options: each a command-line option, an ini key and, where the seed names one, an
environment variable. The command line wins over the environment, the environment over the ini file.

The options themselves are written once, in the table `stack/options.py` (the command line renders
the same table); this module renders it for pytest and reads and checks the values a run was given.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb.targets import parse_target_name
from pytest_mobile_agent.agent.records import default_records_dir
from pytest_mobile_agent.stack.options import (
    APP_APK_ENV,
    CONTROLLER_ENV,
    OPTIONS,
    RECORDS_ENV,
    REQUIRE_ENV,
    RETAIN_MODES,
    SCREENSHOT_ENV,
    SCREENSHOT_MODES,
    SERIAL_ENV,
    SKIP_UNUSABLE_ENV,
    TRACE_ENV,
    TRUE_WORDS,
    UPDATE_SNAPSHOTS_ENV,
    VIDEO_ENV,
    Option,
    lookup,
)
from pytest_mobile_agent.stack.settings import AUTO, VIRTUAL, Settings

__all__ = [  # the table's names, as this module has always offered them
    "APP_APK_ENV", "CONTROLLER_ENV", "OPTIONS", "RECORDS_ENV", "REQUIRE_ENV", "RETAIN_MODES", "SCREENSHOT_ENV",
    "SCREENSHOT_MODES", "SERIAL_ENV", "SKIP_UNUSABLE_ENV", "TRACE_ENV", "UPDATE_SNAPSHOTS_ENV", "VIDEO_ENV",
    "NO_SERIAL_REASON", "Option", "add_options", "check_spellings", "choice", "flag", "raw_value",
    "settings_from_config",
]

NO_SERIAL_REASON = (
    "no Android target named: pass --android-serial SERIAL (or `virtual` for the built-in "
    f"virtual device, `auto` for the only online target) or set {SERIAL_ENV}"
)


def add_options(parser: pytest.Parser) -> None:
    """The table (stack/options.py) as pytest's options and ini keys."""
    group = parser.getgroup("mobile-agent", "Android devices and emulators (pytest-mobile-agent)")
    for option in OPTIONS:
        env_note = f" (env {option.env})" if option.env else ""
        if option.is_flag:
            group.addoption(option.flag, dest=option.dest, action="store_true", default=None,
                            help=option.help + env_note)
            parser.addini(option.ini, option.help, type="bool", default=False)
        else:
            shown = option.default or option.default_text
            default_note = f"; default {shown}" if shown else ""
            group.addoption(option.flag, dest=option.dest, default=None, metavar=option.metavar,
                            choices=option.choices, help=option.help + env_note + default_note)
            parser.addini(option.ini, option.help, default=option.default or "")


def check_spellings(args: Sequence[str], invocation_dir: Path) -> None:
    """Refuse `--agent-jar PATH` as two words when PATH exists: pytest picks its rootdir and ini file
    from the arguments before it loads this plugin (_pytest/config/__init__.py, `_preparse` calls
    `determine_setup` with the paths among the arguments before `load_setuptools_entrypoints`), so
    PATH counts as a test path there and moves the rootdir to the common ancestor of the tests and
    PATH. As one word, `--agent-jar=PATH`, it is an unknown option at that point and moves nothing."""
    valued = {each.flag for each in OPTIONS if not each.is_flag}
    for flag, value in zip(args, args[1:], strict=False):
        if flag in valued and not value.startswith("-") and (invocation_dir / value).exists():
            raise pytest.UsageError(
                f"write {flag}={value} as one word: pytest decides its rootdir and ini file before it loads "
                f"the plugin that knows {flag}, so it would take {value} for a test path and move the rootdir "
                "(and .pytest_cache) to the common ancestor of the tests and that path")


def raw_value(config: pytest.Config, dest: str) -> str | bool | None:
    """The option's value: the command line, else the environment, else the ini file, else its default."""
    named = lookup(dest)
    given = config.getoption(dest, default=None)
    if given is not None:
        return given  # type: ignore[no-any-return]
    value = named.from_environment(os.environ)
    if value is not None:
        return value.lower() in TRUE_WORDS if named.is_flag else value
    ini = config.getini(named.ini)
    if named.is_flag:
        return bool(ini)
    return str(ini).strip() or named.default


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
    from pytest_mobile_agent.stack.controller_setting import controller_setting

    try:
        return controller_setting(value)
    except errors.InvalidArgument as exc:
        raise pytest.UsageError(str(exc)) from None


def _seconds(config: pytest.Config, dest: str) -> float:
    """A positive number of seconds (a zero bound would fail everything at once)."""
    seconds = _number(raw_value(config, dest), lookup(dest).flag, float, minimum=0)
    if seconds <= 0:
        raise pytest.UsageError(f"{lookup(dest).flag} must be more than 0 seconds, not {seconds:g}")
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
    named = lookup(dest)
    value = str(raw_value(config, dest) or named.default or "").strip().lower()
    if named.choices is not None and value not in named.choices:
        where = " / ".join(filter(None, (named.flag, named.env, f"ini {named.ini}")))
        raise pytest.UsageError(f"{where} takes one of {', '.join(named.choices)}, not {value!r}")
    return value


def flag(config: pytest.Config, dest: str) -> bool:
    return bool(raw_value(config, dest))
