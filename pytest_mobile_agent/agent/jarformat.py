"""What makes bytes an agent jar app_process can start: a zip holding a readable `classes.dex`, or a
bare dex. Both the jar value (`agent/jar.py`) and the build that writes one (`agent/builder.py`)
check it here."""

from __future__ import annotations

import io
import zipfile
import zlib

from pytest_mobile_agent.errors import InvalidJar

BUILD_ADVICE = "python -m pytest_mobile_agent agent build (or, in a source tree, agent-android/build.sh)"
DEX_ENTRY = "classes.dex"
ZIP_MAGIC = b"PK\x03\x04"
DEX_MAGIC = b"dex\n"


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
