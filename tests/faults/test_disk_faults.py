"""Corrupt inputs on disk: each a clear error or a skipped entry with a warning, never a crash.

* a records file truncated, of another format, or naming another serial: no record, a warning
  naming the file; the agent it described is then someone else's, a Conflict naming it (never a
  silent takeover), and with the force option it is taken over;
* an emulator discovery file with missing keys or of binary junk: Unavailable with the launch
  flag, or skipped beside a good file, which still resolves;
* a jar that is not a zip, a zip without classes.dex, a zip whose dex entry is corrupt, a directory,
  a missing file: InvalidJar or JarMissing, each saying how to rebuild.
"""

from __future__ import annotations

import io
import json
import logging
import os
import zipfile
from pathlib import Path

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.agent import AgentJar, Launched, Records
from pytest_mobile_agent.agent.jar import JAR_ENV, stand_in_bytes
from pytest_mobile_agent.emulator import resolve
from pytest_mobile_agent.session import ControllerChoice, PathOptions, select_paths
from tests.support.lab import Bench

SERIAL = "emulator-5554"


def _corruptions(valid: bytes) -> dict[str, bytes]:
    return {
        "truncated": valid[: len(valid) // 2],
        "empty": b"",
        "binary junk": os.urandom(64) + b"\xff",
        "another format": json.dumps({"kind": "some-other-tool/state", "serial": SERIAL}).encode(),
        "a JSON list": json.dumps([json.loads(valid)]).encode(),
        "another serial": valid.replace(SERIAL.encode(), b"emulator-5556"),
        "a bad token": valid.replace(b'"token": "', b'"token": "zz'),
    }


@pytest.mark.parametrize("kind", list(_corruptions(b"{}")))
def test_a_corrupt_records_file_is_no_record_with_a_warning_and_its_agent_a_conflict_until_forced(
    vd: Bench, tmp_path: Path, caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    directory = tmp_path / "records"
    first = vd.attach(Records.in_dir(directory))
    first.connection.close()  # the host process ends, leaving its agent and its record
    path = Records.in_dir(directory).path_for(vd.serial)
    path.write_bytes(_corruptions(path.read_bytes())[kind])
    caplog.set_level(logging.WARNING, logger="pytest_mobile_agent.agent")
    with pytest.raises(errors.Conflict) as conflict:
        vd.attach(Records.in_dir(directory))
    assert str(first.record.pid) in str(conflict.value) and first.record.socket in str(conflict.value)
    assert "force" in str(conflict.value)
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(str(path) in w and "no record" in w for w in warned), warned
    forced = vd.attach(Records.in_dir(directory), force=True)
    assert isinstance(forced.outcome, Launched) and forced.outcome.took_over
    assert first.record.pid not in vd.agent_pids()
    assert Records.in_dir(directory).get(vd.serial) == forced.record  # a good record replaced the bad one


def _discovery(directory: Path, pid: int, body: bytes) -> Path:
    path = directory / f"pid_{pid}.ini"
    path.write_bytes(body)
    return path


@pytest.mark.parametrize("body, reason", [
    (b"port.serial=5554\navd.name=Pixel_7_API_36\n", "has no grpc.port"),
    (b"port.serial=5554\ngrpc.port=http\n", "has an invalid grpc.port 'http'"),
    (b"grpc.port=8554\ngrpc.token=abc\n", "no running emulator advertises port.serial=5554"),
    (os.urandom(200), "no running emulator advertises port.serial=5554"),
    (b"\x00" * 4096, "no running emulator advertises port.serial=5554"),
], ids=["no grpc.port", "a non-numeric grpc.port", "no port.serial", "binary junk", "NULs"])
def test_a_discovery_file_with_missing_keys_or_junk_is_unavailable_with_the_launch_flag(
    tmp_path: Path, body: bytes, reason: str
) -> None:
    _discovery(tmp_path, os.getpid(), body)
    with pytest.raises(errors.Unavailable) as unavailable:
        resolve(SERIAL, [tmp_path])
    assert reason in str(unavailable.value)
    assert "-grpc 8554 -grpc-use-token" in unavailable.value.warning()


def test_a_session_on_an_emulator_whose_discovery_file_is_junk_falls_back_with_the_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV

    monkeypatch.setenv(DISCOVERY_DIR_ENV, str(tmp_path))
    _discovery(tmp_path, os.getpid(), os.urandom(300))
    selection = select_paths(SERIAL, True, ControllerChoice.Auto(), PathOptions(connect_timeout=0.5))
    assert selection.controller is None
    assert selection.warning is not None and "-grpc-use-token" in selection.warning


def test_a_junk_discovery_file_beside_a_good_one_is_skipped(tmp_path: Path) -> None:
    good = _discovery(tmp_path, os.getpid(), b"port.serial=5554\ngrpc.port=8554\ngrpc.token=secret\n")
    _discovery(tmp_path, os.getppid(), os.urandom(500))
    (tmp_path / f"pid_{2**40}.ini").write_bytes(b"port.serial=5554\ngrpc.port=1\n")  # a pid past pid_t
    (tmp_path / "pid_x.ini").write_bytes(b"\xff")
    os.mkfifo(tmp_path / "pid_1.ini")  # a FIFO would block a read: skipped unopened
    endpoint = resolve(SERIAL, [tmp_path])
    assert (endpoint.port, endpoint.token, endpoint.discovery_file) == (8554, "secret", good)


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def _corrupt_dex_entry() -> bytes:
    data = bytearray(stand_in_bytes("0.1.0"))
    at = data.index(b"mobile-agent-android 0.1.0")
    data[at] ^= 0xFF  # the stored entry's bytes no longer match its CRC
    return bytes(data)


@pytest.mark.parametrize("content, says", [
    (b"#!/bin/sh\necho not a jar\n", "is not an agent jar"),
    (b"", "is not an agent jar"),
    (b"PK\x03\x04" + b"\x00" * 40, "is not a readable zip"),
    (_zip({"META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\n"}), "is a zip without classes.dex"),
    (_corrupt_dex_entry(), "is not a readable zip"),
], ids=["a script", "empty", "a broken zip", "no classes.dex", "a corrupt dex entry"])
def test_a_jar_that_is_not_one_is_invalid_jar_saying_how_to_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes, says: str
) -> None:
    path = tmp_path / "mobile-agent-android.jar"
    path.write_bytes(content)
    monkeypatch.setenv(JAR_ENV, str(path))
    with pytest.raises(errors.InvalidJar) as invalid:
        AgentJar.locate()
    assert says in str(invalid.value) and str(path) in str(invalid.value)
    assert "agent-android/build.sh" in str(invalid.value)


def test_a_directory_or_a_missing_file_named_as_the_jar_is_a_clear_error(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JAR_ENV, str(tmp_path))
    with pytest.raises(errors.InvalidJar, match="is a directory"):
        AgentJar.locate()
    monkeypatch.setenv(JAR_ENV, str(tmp_path / "gone.jar"))
    with pytest.raises(errors.JarMissing) as missing:
        AgentJar.locate()
    assert "build.sh" in str(missing.value) and JAR_ENV in str(missing.value)
