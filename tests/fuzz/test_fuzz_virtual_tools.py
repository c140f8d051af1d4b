"""The virtual device's new parsers fed arbitrary input: the sed script walk, the tools' argument
parser and staging (no host path ever leaves the staging root), the console's line handling, ps's
field lists. Each ends, and raises nothing but what it documents."""

from __future__ import annotations

import contextlib
import logging
import posixpath
import socket
import threading
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.fronts.console import ConsoleSession, EmulatorConsole
from pytest_mobile_agent.virtual.kernel.creds import Cred
from pytest_mobile_agent.virtual.programs import hosttools, ps, sedscript
from tests.fuzz.bounds import ends_within, lighter

path_parts = st.sampled_from(["..", ".", "", "a", "data", "local", "tmp", "/", "//", "x y", "\n", "é"])
paths = st.lists(path_parts, max_size=12).map("/".join)


@lighter(2)
@given(st.text(max_size=120))
def test_the_sed_walk_ends_and_only_refuses_with_value_error(script: str) -> None:
    with ends_within():
        try:
            names = sedscript.file_names(script)
        except ValueError:
            return
    for name in names:
        assert 0 <= name.start <= name.end <= len(script)


@lighter(2)
@given(st.lists(st.text(max_size=12), max_size=10), st.text(alphabet="abcdefknostw", max_size=6))
def test_the_argument_parser_accounts_for_every_word(words: list[str], with_argument: str) -> None:
    argv = ["tool", *words]
    parsed = hosttools.parse(argv, hosttools.Syntax(with_argument=with_argument))
    for index in parsed.operands:
        assert 1 <= index < len(argv)
    for option in parsed.options:
        assert 1 <= option.word < len(argv)


DEVICE = VirtualDevice()


@lighter(2)
@given(paths, st.sampled_from(["/", "/data/local/tmp", "/sdcard", "/data"]))
def test_a_staged_argument_never_names_a_host_path_outside_the_staging(arg: str, cwd: str) -> None:
    staging = hosttools.Staging(DEVICE.system, Cred(2000), cwd)
    try:
        given_arg = staging.argument(arg)
        if given_arg.startswith("/"):
            assert posixpath.normpath(given_arg).startswith(staging.root)
        else:  # relative to the staged cwd, and it never climbs above the staged root
            resolved = posixpath.normpath(posixpath.join(staging.host_cwd(), given_arg))
            assert resolved == staging.root or resolved.startswith(staging.root + "/")
    finally:
        staging.remove()


CONSOLE = EmulatorConsole(avd_name="fuzz", token_path=Path("/nonexistent/token"), on_grpc=lambda port: port,
                          on_kill=lambda: None)


@lighter(2)
@given(st.binary(max_size=300))
def test_the_console_answers_any_line_without_crashing(line: bytes) -> None:
    ours, theirs = socket.socketpair()

    def drain() -> None:  # the client's end reads everything until the console's end closes
        with contextlib.suppress(OSError):
            while theirs.recv(65536):
                pass

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        session = ConsoleSession(CONSOLE, ours)
        session.commands = CONSOLE.main_commands
        with ends_within():
            for piece in line.split(b"\n"):
                session.run(piece.replace(b"\r", b""))
                if session.finished:
                    break
    finally:
        ours.shutdown(socket.SHUT_RDWR)
        reader.join(5)
        ours.close()
        theirs.close()


@lighter(2)
@given(st.text(max_size=40))
def test_ps_field_lists_parse_or_name_the_bad_field(spec: str) -> None:
    fields, bad = ps.parse_fields(spec)
    assert bad is None or 0 <= bad <= len(spec)
    assert all(f.kind in ps.FIELDS for f in fields)


# Digits `str.isdigit` takes and `int()` refuses or reads otherwise: superscripts, Arabic-Indic, fullwidth.
# sleep takes its number as a fraction of a second so an ASCII draw stays inside the hang bound.
odd_digits = st.text(alphabet="0123456789¹²³٣٤５-", min_size=1, max_size=4)
NUMERIC_COMMANDS = [
    "kill -{n} 99999",
    "head -c {n} /proc/version",
    "head -n {n} /proc/version",
    "tail -n {n} /proc/version",
    "sleep 0.00{n}",
    "ps -p {n}",
    "wm size {n}x{n}",
    "wm density {n}",
    "logcat -d -t {n}",
    "echo $(( {n} + 1 ))",
    "shift {n}",
    "break {n}",
    "exit {n}",
    "test {n} -eq 1",
    "cat /proc/{n}/cmdline",
    "ls -l /proc/{n}",
    "echo a >&{n}",
    "echo ${n}",
    "input keyevent {n}",
    "am force-stop {n}",
]


class _Crashes(logging.Handler):
    """The virtual processes that died of a Python exception (process.py logs each with its traceback)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.seen.append(self.format(record))


@lighter(2)
@given(st.sampled_from(NUMERIC_COMMANDS), odd_digits)
def test_a_number_of_any_digits_fails_as_the_tool_does_never_crashing_the_double(template: str, number: str) -> None:
    """toybox, mksh and the framework read ASCII digits only; any other digit is a usage error
    of the tool (a message and a status), never a Python exception in the virtual process."""
    crashes = _Crashes()
    logger = logging.getLogger("pytest_mobile_agent.virtual")
    logger.addHandler(crashes)
    try:
        with ends_within():
            status, _, _ = DEVICE.shell(template.format(n=number), timeout=5.0)
    finally:
        logger.removeHandler(crashes)
    assert 0 <= status <= 255
    assert crashes.seen == []
