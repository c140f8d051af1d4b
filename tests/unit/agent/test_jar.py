"""agent::jar::tests: the jar's build, its version, the missing and malformed jar, the stand-in, and
where the jar comes from: the one named, else the package's bundled jar of its sources, else the build."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import pytest
import xxhash

from pytest_mobile_agent.agent.builder import AgentSources, cached_path
from pytest_mobile_agent.agent.bundled import stage
from pytest_mobile_agent.agent.jar import (
    JAR_ENV,
    AgentJar,
    build_of,
    expected_version,
    stand_in_bytes,
)
from pytest_mobile_agent.errors import AgentBuildError, InvalidJar, JarMissing
from tests.support.fake_sdk import calls

REPO = Path(__file__).resolve().parents[3]


def test_the_package_carries_the_version_of_agent_android() -> None:
    assert expected_version() == (REPO / "agent-android" / "VERSION").read_text().strip()
    assert (REPO / "pytest_mobile_agent" / "agent" / "VERSION").read_text() == \
        (REPO / "agent-android" / "VERSION").read_text()


def test_a_jars_build_is_a_digest_of_its_bytes(tmp_path: Path) -> None:
    data = stand_in_bytes("0.1.0")
    path = tmp_path / "agent.jar"
    path.write_bytes(data)
    jar = AgentJar.from_path(path)
    assert jar.build == xxhash.xxh3_64(data).hexdigest()[:12] == build_of(data)
    assert len(jar.build) == 12 and int(jar.build, 16) >= 0
    other = AgentJar.from_bytes(data + b"\0")  # a trailing byte: another build of the same version
    assert other.version == jar.version and other.build != jar.build
    assert build_of(b"") == "2d06800538d3"  # XXH3-64 of nothing, seed 0: 2d06800538d394c2


def test_the_jar_is_found_through_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "named.jar"
    path.write_bytes(stand_in_bytes("0.1.0"))
    monkeypatch.setenv(JAR_ENV, str(path))
    jar = AgentJar.locate()
    assert jar.path == path and jar.version == expected_version()


def test_a_missing_jar_says_how_to_build_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JAR_ENV, str(tmp_path / "nothing.jar"))
    with pytest.raises(JarMissing) as caught:
        AgentJar.locate()
    text = str(caught.value)
    assert "nothing.jar" in text and "agent-android/build.sh" in text and "ANDROID_HOME" in text
    assert "--android-serial virtual" in text


def test_a_jar_that_is_not_a_zip_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "agent.jar"
    path.write_text("<html>404</html>")
    with pytest.raises(InvalidJar, match="not an agent jar"):
        AgentJar.from_path(path)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("README", "no dex")
    with pytest.raises(InvalidJar, match="without classes.dex"):
        AgentJar.from_bytes(buffer.getvalue())
    with pytest.raises(InvalidJar, match="not a readable zip"):
        AgentJar.from_bytes(b"PK\x03\x04garbage")


def test_the_stand_in_is_deterministic_and_names_its_version_in_its_bytes() -> None:
    jar = AgentJar.stand_in()
    assert jar.data == AgentJar.stand_in().data and jar.build == AgentJar.stand_in().build
    assert f"mobile-agent-android {expected_version()}".encode() in jar.data  # stored, not deflated
    assert jar.reported_version() == expected_version()
    assert zipfile.ZipFile(io.BytesIO(jar.data)).testzip() is None
    assert len(jar.data) < 2048
    older = AgentJar.stand_in("0.0.9")
    assert older.reported_version() == "0.0.9" and older.build != jar.build


def test_a_bare_dex_is_a_jar_of_its_own_bytes() -> None:
    dex = AgentJar.stand_in().dex()
    assert dex.startswith(b"dex\n")
    bare = AgentJar.from_bytes(dex)
    assert bare.dex() == dex and bare.build == build_of(dex)


def test_an_older_version_is_the_dex_rewritten_with_its_checksum_recomputed() -> None:
    import struct
    import zlib

    jar = AgentJar.stand_in()
    older = jar.as_version("0.0.9")
    assert older.data.startswith(b"dex\n") and older.version == "0.0.9"
    assert older.reported_version() == "0.0.9" and b"mobile-agent-android 0.1.0" not in older.data
    assert len(older.data) == len(jar.dex())
    assert struct.unpack("<I", older.data[8:12])[0] == zlib.adler32(older.data[12:])
    with pytest.raises(ValueError):
        jar.as_version("0.10.0")  # another length would shift the dex's offsets


# --- where the jar comes from: named, bundled, built --------------------------------------------------


def stand_in_file(directory: Path, version: str | None = None) -> Path:
    """A stand-in for the jar agent-android/build.sh writes (no d8 here): a zip with a classes.dex
    naming `mobile-agent-android <VERSION>`, as the generated Version class makes a real one do."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "mobile-agent-android.jar"
    path.write_bytes(stand_in_bytes(version or expected_version()))
    return path


def test_a_named_jar_wins_over_the_bundled_one_which_wins_over_the_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toolchain: tuple[Path, Path], bundle_dir: Path) -> None:
    sdk, _ = toolchain
    d8 = sdk / "build-tools" / "36.0.0" / "d8"
    stage(stand_in_file(tmp_path / "dist"), AgentSources.locate())
    named = stand_in_file(tmp_path / "named", "0.0.9")
    monkeypatch.setenv(JAR_ENV, str(named))
    jar = AgentJar.locate()
    assert jar.path == named and jar.origin == "named by MOBILE_AGENT_JAR", "1: the option's environment variable"
    monkeypatch.delenv(JAR_ENV)
    heard: list[str] = []
    jar = AgentJar.locate(announce=heard.append)
    assert jar.path == bundle_dir / "mobile-agent-android.jar", "2: the bundled jar of the package's sources"
    assert jar.version == expected_version() and jar.reported_version() == expected_version()
    assert jar.origin == "bundled with the package, built from its agent sources"
    assert heard == [] and calls(d8) == [], "nothing built, nothing said"
    shutil.rmtree(bundle_dir)
    jar = AgentJar.locate(announce=heard.append)
    assert jar.path == cached_path(AgentSources.locate()), "3: the per-user cached build, built on first use"
    assert len(calls(d8)) == 1 and any("built the agent jar" in line for line in heard)
    assert jar.origin == "the per-user build of the package's agent sources"


def test_without_a_bundled_jar_and_without_an_sdk_the_error_is_todays(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundle_dir: Path) -> None:
    for name in ("ANDROID_HOME", "ANDROID_SDK_ROOT", JAR_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with pytest.raises(AgentBuildError) as refused:
        AgentJar.locate()
    text = str(refused.value)
    assert text.startswith("cannot build the agent jar: no Android SDK found") and "refused" not in text
    assert "--agent-jar" in text and "--android-serial virtual" in text


def test_a_bundled_jar_built_from_other_sources_is_refused_and_the_jar_is_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toolchain: tuple[Path, Path], sources: AgentSources,
        bundle_dir: Path) -> None:
    """The wheel's jar was staged from sources that were then changed: it is not deployed."""
    sdk, _ = toolchain
    monkeypatch.delenv(JAR_ENV, raising=False)
    staged = stage(stand_in_file(tmp_path / "dist"), sources).sources
    main = sources.root / "src" / "dev" / "mobileagent" / "agent" / "Main.java"
    main.write_text(main.read_text() + "\n// changed after the jar was built\n")
    changed = AgentSources.at(sources.root)
    monkeypatch.setattr(AgentSources, "locate", classmethod(lambda cls: changed))
    heard: list[str] = []
    jar = AgentJar.locate(announce=heard.append)
    assert jar.path == cached_path(changed) and len(calls(sdk / "build-tools" / "36.0.0" / "d8")) == 1
    (refusal,) = [line for line in heard if "bundled agent jar" in line]
    assert f"names sources {staged}" in refusal and f"have the digest {changed.digest()}" in refusal
    assert staged != changed.digest()
    assert "It is not used" in refusal and "agent-android/build.sh" in refusal and "--agent-jar" in refusal
    assert jar.origin.startswith("the per-user build of the package's agent sources; the bundled jar is refused: ")
    assert f"names sources {staged}" in jar.origin, "what doctor's jar row shows names why the bundle was passed over"


def test_a_refused_bundled_jar_without_an_sdk_says_both_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sources: AgentSources, bundle_dir: Path) -> None:
    for name in ("ANDROID_HOME", "ANDROID_SDK_ROOT", JAR_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    stage(stand_in_file(tmp_path / "dist"), sources)
    (sources.root / "VERSION").write_text("9.9.9\n")
    newer = AgentSources.at(sources.root)
    monkeypatch.setattr(AgentSources, "locate", classmethod(lambda cls: newer))
    with pytest.raises(AgentBuildError) as failed:
        AgentJar.locate()
    text = str(failed.value)
    assert "no Android SDK found" in text
    assert f"the bundled jar is refused: the bundled agent jar {bundle_dir / 'mobile-agent-android.jar'} is " \
           f"version {expected_version()}, and the package's agent sources ({sources.root}) are version 9.9.9" in text


def test_agent_build_with_a_bundled_jar_of_the_sources_builds_nothing_unless_asked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toolchain: tuple[Path, Path], bundle_dir: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The plugin deploys a release wheel's jar before any cached build, so `agent build` says so."""
    from pytest_mobile_agent.cli.main import main

    sdk, _ = toolchain
    d8 = sdk / "build-tools" / "36.0.0" / "d8"
    stage(stand_in_file(tmp_path / "dist"), AgentSources.locate())
    assert main(["agent", "build"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == str(bundle_dir / "mobile-agent-android.jar") and calls(d8) == []
    assert "bundles the agent jar built from its sources" in err and "--rebuild" in err
    assert main(["agent", "build", "--rebuild"]) == 0
    assert capsys.readouterr().out.strip() == str(cached_path(AgentSources.locate())) and len(calls(d8)) == 1


def test_agent_build_with_a_bundled_jar_of_other_sources_says_why_and_builds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toolchain: tuple[Path, Path], sources: AgentSources,
        bundle_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_mobile_agent.cli.main import main

    stage(stand_in_file(tmp_path / "dist"), sources)
    main_java = sources.root / "src" / "dev" / "mobileagent" / "agent" / "Main.java"
    main_java.write_text(main_java.read_text() + "\n// changed after the jar was built\n")
    changed = AgentSources.at(sources.root)
    monkeypatch.setattr(AgentSources, "locate", classmethod(lambda cls: changed))
    assert main(["agent", "build"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == str(cached_path(changed))
    assert "was built from other sources than the package carries" in err and "built the agent jar" in err
