"""The agent jar: the file the agent's build writes, its version and its build.

The jar comes from `--agent-jar` / MOBILE_AGENT_JAR; else from the package itself, when a release
wheel bundles one built from the agent sources it carries (`agent/bundled.py`); else from the
per-user cache, where `agent/builder.py` builds it from those sources (`python -m
pytest_mobile_agent agent build`, or on first use with an SDK). In a source tree,
`agent-android/build.sh` writes `agent-android/dist/mobile-agent-android.jar` from the same build
definition.

The package carries `agent/VERSION`, a copy of `agent-android/VERSION` (a test checks they match):
the version a jar built from this tree reports in its hello. The build is the first 12 lowercase
hex digits of the XXH3-64 digest of the jar's bytes (docs/protocol.md section 2), which the agent
computes the same way from the file it was started from.
"""

from __future__ import annotations

import hashlib
import io
import os
import struct
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_mobile_agent.agent.jarformat import (
    BUILD_ADVICE,
    DEX_ENTRY,
    DEX_MAGIC,
    VERSION_MARKER,
    build_of,
    check_format,
    dex_of,
    reported_version,
)
from pytest_mobile_agent.errors import AgentBuildError, InvalidJar, JarMissing

if TYPE_CHECKING:
    from pytest_mobile_agent.agent.builder import AgentSources

JAR_ENV = "MOBILE_AGENT_JAR"
VERSION_FILE = Path(__file__).with_name("VERSION")
_STAND_IN_TIME = (1980, 1, 1, 0, 0, 0)
CACHED_BUILD = "the per-user build of the package's agent sources"


def expected_version() -> str:
    """The agent version this package expects: its copy of agent-android/VERSION."""
    return VERSION_FILE.read_text(encoding="ascii").strip()


@dataclass(frozen=True)
class AgentJar:
    """The bytes the agent starts from, the version they are expected to report, and their build."""

    data: bytes = field(repr=False)
    version: str
    build: str
    path: Path | None = None
    origin: str = field(default="", compare=False)
    """Where the jar was chosen from, in words (`doctor` names it): named, bundled, built or a stand-in."""

    @classmethod
    def from_bytes(cls, data: bytes, *, version: str | None = None, path: Path | None = None,
                   origin: str = "") -> AgentJar:
        """A jar (zip with classes.dex) or a bare dex; InvalidJar for anything else."""
        check_format(data, str(path) if path else "the agent jar")
        return cls(data=bytes(data), version=version or expected_version(), build=build_of(data), path=path,
                   origin=origin)

    @classmethod
    def from_path(cls, path: str | os.PathLike[str], *, version: str | None = None, origin: str = "") -> AgentJar:
        where = Path(path)
        try:
            data = where.read_bytes()
        except FileNotFoundError:
            raise missing(where) from None
        except IsADirectoryError:
            raise InvalidJar(f"{where} is a directory, not an agent jar") from None
        return cls.from_bytes(data, version=version, path=where, origin=origin)

    @classmethod
    def locate(cls, announce: Callable[[str], None] | None = None) -> AgentJar:
        """The jar to deploy when none is named on the command line, in this order: MOBILE_AGENT_JAR;
        the jar the package bundles (a release wheel's) when it was built from the package's agent
        sources; the per-user cached build of those sources, built first when it is missing
        (errors.AgentBuildError without an SDK or a JDK). `announce` hears what a build does, and why
        a bundled jar is refused."""
        named = os.environ.get(JAR_ENV)
        if named:
            return cls.from_path(named, origin=f"named by {JAR_ENV}")
        from pytest_mobile_agent.agent.builder import AgentSources
        from pytest_mobile_agent.agent.bundled import BundleRefused, bundled_jar

        say = announce or _quiet
        sources = AgentSources.locate()
        try:
            bundled = bundled_jar(sources)
        except BundleRefused as refused:
            say(str(refused))
            return cls.from_path(_cached_build(sources, say, refused),
                                 origin=f"{CACHED_BUILD}; the bundled jar is refused: {refused.message}")
        if bundled is not None:
            return cls.from_path(bundled, origin="bundled with the package, built from its agent sources")
        return cls.from_path(_cached_build(sources, say), origin=CACHED_BUILD)

    @classmethod
    def stand_in(cls, version: str | None = None) -> AgentJar:
        """The package's stand-in jar for the virtual device: a small deterministic zip whose stored
        classes.dex holds `mobile-agent-android <VERSION>`, which the virtual agent reads."""
        version = version or expected_version()
        return cls.from_bytes(stand_in_bytes(version), version=version, origin="the virtual device's stand-in")

    def dex(self) -> bytes:
        """The classes.dex the jar holds (a bare dex is its own)."""
        return dex_of(self.data)

    def as_version(self, version: str) -> AgentJar:
        """A bare dex of this jar's code that reports `version`: every `mobile-agent-android <VERSION>`
        rewritten (same length), the dex checksum recomputed. The tests' and benches' older agent."""
        old = VERSION_MARKER + self.version.encode("ascii")
        new = VERSION_MARKER + version.encode("ascii")
        return AgentJar.from_bytes(rewrite_dex(self.dex(), old, new), version=version)

    def reported_version(self) -> str | None:
        """The version named in the dex's `mobile-agent-android <VERSION>` string, if found."""
        return reported_version(self.data)

    def describe(self) -> str:
        where = str(self.path) if self.path else "in memory"
        return f"mobile-agent-android {self.version} jar, build {self.build} ({where})"


def _quiet(message: str) -> None:
    return None


def _cached_build(sources: AgentSources, announce: Callable[[str], None], refused: InvalidJar | None = None) -> Path:
    """The per-user cached build of `sources`; when it cannot be built after the bundled jar was
    refused, the error says both."""
    from pytest_mobile_agent.agent.builder import cached_jar

    try:
        path, _ = cached_jar(sources, announce=announce)
    except AgentBuildError as exc:
        if refused is None:
            raise
        raise AgentBuildError(f"{exc.message}; and the bundled jar is refused: {refused.message}",
                              advice=exc.advice) from None
    return path


def missing(path: Path) -> JarMissing:
    return JarMissing(
        f"the agent jar is missing: no file at {path}",
        advice=f"Build one with {BUILD_ADVICE}; it needs an Android SDK (ANDROID_HOME). Or set {JAR_ENV} "
        "to a built jar; `--android-serial virtual` needs no jar",
    )


def rewrite_dex(dex: bytes, old: bytes, new: bytes) -> bytes:
    """`dex` with every `old` replaced by `new` (the same length), then its SHA-1 signature (bytes
    12..32, over what follows) and Adler-32 checksum (bytes 8..12, over what follows) recomputed, as
    the dex format has them, so that ART loads it."""
    if len(old) != len(new):
        raise ValueError(f"a rewrite keeps the length: {old!r} and {new!r} differ")
    if old not in dex:
        raise ValueError(f"the dex does not contain {old!r}")
    data = bytearray(dex.replace(old, new))
    if data[:4] == DEX_MAGIC and len(data) >= 32:
        data[12:32] = hashlib.sha1(bytes(data[32:])).digest()
        data[8:12] = struct.pack("<I", zlib.adler32(bytes(data[12:])))
    return bytes(data)


def stand_in_dex(version: str) -> bytes:
    """A classes.dex-like blob: the dex magic, the version string the agent's code carries, padding."""
    body = b"dev/mobileagent/agent/Main\x00" + VERSION_MARKER + version.encode("ascii") + b"\x00"
    blob = DEX_MAGIC + b"035\x00" + bytes(24) + body
    return blob + bytes(-len(blob) % 16)


def stand_in_bytes(version: str) -> bytes:
    """A deterministic zip (fixed times, stored entries) with the manifest and the stand-in dex."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, content in (
            ("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\r\nCreated-By: pytest-mobile-agent stand-in\r\n\r\n"),
            (DEX_ENTRY, stand_in_dex(version)),
        ):
            info = zipfile.ZipInfo(name, date_time=_STAND_IN_TIME)
            info.external_attr = 0o644 << 16
            info.create_system = 3
            archive.writestr(info, content)
    return buffer.getvalue()
