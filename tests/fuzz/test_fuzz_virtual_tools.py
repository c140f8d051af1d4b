"""The virtual device's new parsers fed arbitrary input: the sed script walk, the tools' argument
parser and staging (no host path ever leaves the staging root), the console's line handling, ps's
field lists. Each ends, and raises nothing but what it documents."""

from __future__ import annotations

import contextlib
import posixpath
import socket
import threading
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.virtual.console import ConsoleSession, EmulatorConsole
from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.fs import Cred
from pytest_mobile_agent.virtual.programs import hosttools, ps, sedscript

from .bounds import ends_within, lighter

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
    staging = hosttools.Staging(DEVICE, Cred(2000), cwd)
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
