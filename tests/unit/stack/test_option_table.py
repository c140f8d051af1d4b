"""One option table (issue 38, item 4): each option's flag, environment variable, ini key, default
and help are written once, in `stack/options.py`; pytest's options (`plugin/options.py`) and the
command line's (`cli/main.py`) are rendered from it, and README's "Options" table says what it says."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from pytest_mobile_agent.cli import main as cli
from pytest_mobile_agent.cli.inspector import LOCK_WAIT as INSPECTOR_LOCK_WAIT
from pytest_mobile_agent.plugin import options as plugin_options
from pytest_mobile_agent.stack.options import BY_FLAG, OPTIONS, Option, lookup

ROOT = Path(__file__).resolve().parents[3]
SHARED = {
    "doctor": ("--android-serial", "--emulator-controller", "--agent-jar", "--agent-force", "--agent-records",
               "--virtual-adb"),
    "inspect": ("--android-serial", "--emulator-controller", "--agent-jar", "--app-apk", "--app-package",
                "--app-activity", "--virtual-adb", "--lock-wait"),
}


def readme_rows() -> dict[str, tuple[str, str, str]]:
    """flag -> (the option as written, its environment variable, its default) of README's table, with
    the Markdown (backticks, escaped bars) taken out."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Options")
    section = text[start:text.index("\n## ", start + 1)]
    rows: dict[str, tuple[str, str, str]] = {}
    for line in section.splitlines():
        if not line.startswith("| `-"):
            continue
        cells = [cell.strip().replace("`", "") for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        written, env, default = (cell.replace("\\|", "|") for cell in cells[:3])
        flag = re.split(r"[ =]", written)[0]
        assert flag not in rows, f"README's options table lists {flag} twice"
        rows[flag] = (written, env, default)
    return rows


def as_readme_writes_it(option: Option) -> tuple[str, str, str]:
    """The row the table gives: a path as one word (`--agent-jar=PATH`, as README tells users to
    write it), any other value after a space, in the metavar's or the choices' words."""
    if option.is_flag:
        written = option.flag
    else:
        value = option.metavar or "|".join(option.choices or ())
        written = option.flag + ("=" if option.metavar in ("PATH", "DIR") else " ") + value
    return written, option.env or "", option.shown_default


def test_readme_lists_every_option_as_the_table_writes_it() -> None:
    rows = readme_rows()
    assert sorted(rows) == sorted(BY_FLAG)
    assert {flag: rows[flag] for flag in BY_FLAG} == {option.flag: as_readme_writes_it(option) for option in OPTIONS}


def test_the_readme_check_sees_a_wrong_default_and_a_missing_environment_variable() -> None:
    lock_wait = lookup("--lock-wait")
    assert as_readme_writes_it(lock_wait) == ("--lock-wait SECONDS", "", "900")
    assert as_readme_writes_it(lookup("--agent-records"))[:2] == ("--agent-records=DIR", "MOBILE_AGENT_RECORDS")
    assert as_readme_writes_it(lookup("--android-update-snapshots")) == (
        "--android-update-snapshots", "MOBILE_AGENT_UPDATE_SNAPSHOTS", "off")


def test_an_options_destination_and_ini_key_are_its_flag_without_dashes() -> None:
    assert lookup("--agent-idle-exit").dest == lookup("--agent-idle-exit").ini == "agent_idle_exit"
    assert lookup("agent_idle_exit") is lookup("--agent-idle-exit")
    with pytest.raises(KeyError, match="no option '--agent-idle'"):
        lookup("--agent-idle")


class RecordingParser:
    """pytest's parser as the plugin uses it: the options and ini keys it was given."""

    def __init__(self) -> None:
        self.options: dict[str, dict[str, object]] = {}
        self.ini: dict[str, dict[str, object]] = {}

    def getgroup(self, name: str, description: str) -> RecordingParser:
        return self

    def addoption(self, flag: str, **kwargs: object) -> None:
        self.options[flag] = kwargs

    def addini(self, name: str, help: str, **kwargs: object) -> None:  # noqa: A002 - pytest's name
        self.ini[name] = {"help": help, **kwargs}


def test_the_plugin_renders_every_option_and_ini_key_from_the_table() -> None:
    parser = RecordingParser()
    plugin_options.add_options(parser)  # type: ignore[arg-type]
    assert list(parser.options) == [option.flag for option in OPTIONS]
    for option in OPTIONS:
        rendered = parser.options[option.flag]
        assert rendered["dest"] == option.dest
        assert str(rendered["help"]).startswith(option.help)
        if option.env:
            assert f"(env {option.env})" in str(rendered["help"])
        if not option.is_flag:
            assert (rendered["metavar"], rendered["choices"]) == (option.metavar, option.choices)
            assert parser.ini[option.ini]["default"] == (option.default or "")
        assert parser.ini[option.ini]["help"] == option.help


def command_options(name: str) -> dict[str, argparse.Action]:
    parser = cli.build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {flag: action for action in commands.choices[name]._actions for flag in action.option_strings}


@pytest.mark.parametrize("command", sorted(SHARED))
def test_the_command_line_renders_the_options_it_shares_from_the_table(command: str) -> None:
    actions = command_options(command)
    shared = [flag for flag in actions if flag in BY_FLAG]
    assert sorted(shared) == sorted(SHARED[command])
    for flag in shared:
        option, action = BY_FLAG[flag], actions[flag]
        assert action.dest == option.dest
        assert str(action.help).startswith(option.help)
        if option.env:
            assert f"(default: {option.env}, else " in str(action.help)
        if not option.is_flag:
            assert (action.metavar, action.choices) == (option.metavar, option.choices)


def test_the_command_line_spells_no_environment_variable_of_its_own() -> None:
    source = (ROOT / "pytest_mobile_agent" / "cli" / "main.py").read_text(encoding="utf-8")
    assert re.findall(r"MOBILE_AGENT_\w+", source) == []


def test_each_commands_defaults_stay_and_the_environment_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    for option in OPTIONS:
        if option.env:
            monkeypatch.delenv(option.env, raising=False)
    doctor = cli.build_parser().parse_args(["doctor"])
    inspect = cli.build_parser().parse_args(["inspect"])
    assert (doctor.android_serial, doctor.emulator_controller, doctor.agent_jar, doctor.agent_records,
            doctor.virtual_adb, doctor.agent_force) == ("auto", "auto", None, None, "builtin", False)
    assert (inspect.android_serial, inspect.lock_wait, inspect.app_apk) == ("virtual", INSPECTOR_LOCK_WAIT, None)

    monkeypatch.setenv("MOBILE_AGENT_ANDROID_SERIAL", " emulator-5556 ")
    monkeypatch.setenv("MOBILE_AGENT_RECORDS", "/tmp/records")
    monkeypatch.setenv("MOBILE_AGENT_APP_APK", "app.apk")
    monkeypatch.setenv("MOBILE_AGENT_EMULATOR_CONTROLLER", "")  # empty: not given, as in a test run
    doctor = cli.build_parser().parse_args(["doctor"])
    inspect = cli.build_parser().parse_args(["inspect", "--android-serial", "virtual"])
    assert (doctor.android_serial, doctor.agent_records, doctor.emulator_controller) == (
        "emulator-5556", "/tmp/records", "auto")
    assert (inspect.android_serial, inspect.app_apk) == ("virtual", "app.apk")


def test_a_bad_lock_wait_is_refused_by_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["inspect", "--lock-wait", "0"])
    assert "must be more than 0 seconds" in capsys.readouterr().err
