"""What makes bytes an agent jar app_process can start: a zip holding a readable `classes.dex`, or a
bare dex; the version its code names and the build digest of its bytes. The jar value
(`agent/jar.py`), the build that writes one (`agent/builder.py`) and the jar a release bundles
(`agent/bundled.py`) all read a jar here."""

from __future__ import annotations

import io
import re
import zipfile
import zlib

import xxhash

from pytest_mobile_agent.errors import InvalidJar

BUILD_ADVICE = "python -m pytest_mobile_agent agent build (or, in a source tree, agent-android/build.sh)"
DEX_ENTRY = "classes.dex"
ZIP_MAGIC = b"PK\x03\x04"
DEX_MAGIC = b"dex\n"
VERSION_MARKER = b"mobile-agent-android "
_VERSION_RE = re.compile(rb"mobile-agent-android ([0-9A-Za-z][0-9A-Za-z.+-]{0,40})")


def build_of(data: bytes) -> str:
    """The first 12 hex digits of the XXH3-64 digest (seed 0) of `data`, big-endian."""
    return xxhash.xxh3_64(data).hexdigest()[:12]


def dex_of(data: bytes) -> bytes:
    """The classes.dex a jar holds (a bare dex is its own); `data` has passed `check_format`."""
    if data.startswith(DEX_MAGIC):
        return data
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return archive.read(DEX_ENTRY)


def reported_version(data: bytes) -> str | None:
    """The version named in the jar's `mobile-agent-android <VERSION>` string (the generated
    Version class), if its dex has one."""
    match = _VERSION_RE.search(dex_of(data))
    return match.group(1).decode("ascii") if match else None


def check_format(data: bytes, where: str) -> None:
    """InvalidJar naming `where` unless `data` is a bare dex or a zip whose classes.dex reads back."""
    if data.startswith(DEX_MAGIC):
        return
    if not data.startswith(ZIP_MAGIC):
        raise InvalidJar(
            f"{where} is not an agent jar: a jar is a zip (starting with PK\\x03\\x04) or a bare dex, "
            f"and this file starts with {data[:4]!r}",
            advice=f"Rebuild it with {BUILD_ADVICE}, or point MOBILE_AGENT_JAR at the built jar",
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            archive.read(DEX_ENTRY)  # reading it checks its CRC: a corrupt entry is no jar
    except KeyError:
        raise InvalidJar(f"{where} is a zip without {DEX_ENTRY}, so app_process cannot start it",
                         advice=f"Rebuild it with {BUILD_ADVICE}") from None
    except (zipfile.BadZipFile, EOFError, zlib.error, ValueError, NotImplementedError) as exc:
        raise InvalidJar(f"{where} is not a readable zip ({exc or type(exc).__name__})",
                         advice=f"Rebuild it with {BUILD_ADVICE}") from None
