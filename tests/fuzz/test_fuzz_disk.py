"""What the driver reads from disk, fed anything: the emulator's discovery files (`pid_<pid>.ini`
and their directory), the agent records (one JSON file per serial), and the agent jar. Each is a
value, a skipped entry (None, logged) or an errors.py error; never another exception, never a hang."""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from io import BytesIO
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.agent.jar import AgentJar, stand_in_bytes
from pytest_mobile_agent.agent.records import RECORD_KIND, Record, Records
from pytest_mobile_agent.emulator import discovery
from pytest_mobile_agent.errors import InvalidJar
from tests.fuzz.bounds import ends_within, lighter, only_our_errors

SERIAL = "emulator-5554"
GOOD_RECORD = {"kind": RECORD_KIND, "format": 1, "serial": SERIAL,
               "socket": "mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae", "pid": 2973,
               "token": "0123456789abcdef0123456789abcdef", "version": "0.1.0", "protocol": 1,
               "build": "7fec0cb05341"}

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**64), 2**64), st.floats(allow_nan=False), st.text(max_size=10)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=10,
)
ini_lines = st.one_of(
    st.binary(max_size=40),
    st.builds(lambda k, v: f"{k}={v}".encode(), st.sampled_from(
        ["port.serial", "port.adb", "grpc.port", "grpc.token", "grpc.jwks", "avd.name", "cmdline", "", " "]),
        st.text(max_size=20)),
)
ini_files = st.lists(ini_lines, max_size=8).map(b"\n".join)


# --- discovery ---------------------------------------------------------------------------------------


@given(st.one_of(ini_files, st.binary(max_size=200), st.text(max_size=100)))
def test_any_discovery_ini_parses_into_properties_and_ports_without_raising(data):
    with ends_within():
        props = discovery.parse_ini(data)
        found = discovery.DiscoveryFile(Path("pid_1.ini"), 1, props)
        ports = (found.console_port, found.adb_port, found.grpc_port)
        found.grpc_token, found.uses_jwt, found.avd_name  # noqa: B018
    assert all(p is None or 0 < p < 65536 for p in ports)
    assert all(isinstance(k, str) and k and isinstance(v, str) for k, v in props.items())


file_names = st.one_of(
    st.integers(-5, 10**30).map(lambda pid: f"pid_{pid}.ini"),
    st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=["Cs"]), min_size=1, max_size=20),
    st.sampled_from(["pid_.ini", "pid_0.ini", "pid_1.ini", f"pid_{os.getpid()}.ini", "pid_٣.ini"]),
)


@lighter(3)
@given(st.lists(st.tuples(file_names, ini_files), max_size=5))
def test_a_discovery_directory_of_any_files_is_scanned_into_entries_or_skipped(files):
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for name, data in files:
            if name in (".", ".."):
                continue
            try:
                (directory / name).write_bytes(data)
            except OSError:  # a name the host's file system refuses (too long, ...)
                continue
        with only_our_errors():
            for live_only in (True, False):
                for found in discovery.scan([directory], live_only=live_only):
                    assert discovery.FILE_PATTERN.fullmatch(found.path.name)
            discovery.find(5554, [directory])


# --- records ---------------------------------------------------------------------------------------


record_files = st.one_of(
    st.binary(max_size=200),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(st.sampled_from(sorted(GOOD_RECORD)), json_values, max_size=9)
      .map(lambda d: json.dumps({**GOOD_RECORD, **d}).encode()),
    st.integers(0, 300).map(lambda n: json.dumps(GOOD_RECORD).encode()[:n]),  # truncated
    st.just(b"[" * 100_000),
)


@lighter(2)
@given(record_files)
def test_any_records_file_is_a_record_or_no_record_never_an_exception(data):
    with tempfile.TemporaryDirectory() as tmp:
        records = Records.in_dir(tmp)
        records.path_for(SERIAL).write_bytes(data)
        with only_our_errors() as caught:
            record = records.get(SERIAL)
        assert not caught, "a corrupt record is no record, not an error"
    if record is not None:
        assert isinstance(record, Record) and record.serial == SERIAL
        assert isinstance(record.pid, int) and len(record.token) == 32


@given(json_values)
def test_record_from_json_is_a_record_or_a_value_error(obj):
    with ends_within():
        try:
            record = Record.from_json(obj)
        except ValueError as exc:
            assert str(exc)
            return
    assert (record.serial, record.socket, record.pid, record.token) == (
        obj["serial"],
        obj["socket"],
        obj["pid"],
        obj["token"],
    )


# --- the jar ---------------------------------------------------------------------------------------


def _zip_of(entries: dict[str, bytes]) -> bytes:
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    return buffer.getvalue()


STAND_IN = stand_in_bytes("0.1.0")
jar_bytes = st.one_of(
    st.binary(max_size=200),
    st.binary(max_size=200).map(lambda b: b"PK\x03\x04" + b),
    st.binary(max_size=200).map(lambda b: b"dex\n" + b),
    st.integers(0, len(STAND_IN)).map(lambda n: STAND_IN[:n]),  # truncated
    st.tuples(st.integers(0, len(STAND_IN) - 1), st.integers(0, 255)).map(
        lambda c: STAND_IN[:c[0]] + bytes([c[1]]) + STAND_IN[c[0] + 1:]),  # one byte changed
    st.dictionaries(st.sampled_from(["classes.dex", "META-INF/MANIFEST.MF", "x"]), st.binary(max_size=30),
                    max_size=3).map(_zip_of),
)


@given(jar_bytes)
def test_any_bytes_named_as_the_jar_are_a_jar_or_invalid_jar(data):
    with only_our_errors() as caught:
        jar = AgentJar.from_bytes(data, version="0.1.0")
        assert len(jar.build) == 12
        jar.reported_version()
    assert all(isinstance(e, InvalidJar) for e in caught)
