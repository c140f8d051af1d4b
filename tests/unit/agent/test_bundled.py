"""The agent jar a release wheel bundles: staging a built jar with its manifest, and the checks that
refuse a bundle not built from the package's agent sources (each naming what it found and what it
expected). No d8 here: the jar is the package's stand-in, which names its version as a real one does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_mobile_agent.agent import bundled
from pytest_mobile_agent.agent.builder import AgentSources
from pytest_mobile_agent.agent.bundled import (
    MANIFEST_NAME,
    BundleManifest,
    BundleRefused,
    bundled_jar,
    stage,
)
from pytest_mobile_agent.agent.jar import build_of, stand_in_bytes
from pytest_mobile_agent.errors import InvalidJar, JarMissing


def built_jar(tmp_path: Path, version: str) -> Path:
    path = tmp_path / "dist" / "mobile-agent-android.jar"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(stand_in_bytes(version))
    return path


def test_staging_copies_the_jar_and_writes_what_it_is(tmp_path: Path, sources: AgentSources,
                                                       bundle_dir: Path) -> None:
    jar = built_jar(tmp_path, sources.version)
    manifest = stage(jar, sources)
    build = build_of(jar.read_bytes())
    assert manifest == BundleManifest(version=sources.version, sources=sources.digest(), build=build)
    assert (bundle_dir / "mobile-agent-android.jar").read_bytes() == jar.read_bytes()
    written = json.loads((bundle_dir / MANIFEST_NAME).read_text())
    assert written == {"version": sources.version, "sources": sources.digest(), "build": manifest.build}
    assert bundled_jar(sources) == bundle_dir / "mobile-agent-android.jar"


def test_no_bundle_is_none(sources: AgentSources, bundle_dir: Path) -> None:
    assert bundled_jar(sources) is None
    bundle_dir.mkdir()
    (bundle_dir / "__init__.py").write_text("")
    assert bundled_jar(sources) is None, "only the jar and its manifest make a bundle"


def test_staging_refuses_a_jar_of_another_version_and_what_is_no_jar(tmp_path: Path, sources: AgentSources,
                                                                     bundle_dir: Path) -> None:
    with pytest.raises(InvalidJar) as older:
        stage(built_jar(tmp_path, "0.0.9"), sources)
    assert f"names version 0.0.9, and the sources are version {sources.version}" in str(older.value)
    not_a_jar = tmp_path / "index.html"
    not_a_jar.write_text("<html>404</html>")
    with pytest.raises(InvalidJar, match="index.html is not an agent jar"):
        stage(not_a_jar, sources)
    with pytest.raises(JarMissing, match="no agent jar to stage at .*nothing.jar"):
        stage(tmp_path / "nothing.jar", sources)
    assert not bundle_dir.exists(), "nothing staged"


def _edit_manifest(directory: Path, **fields: object) -> None:
    path = directory / MANIFEST_NAME
    path.write_text(json.dumps({**json.loads(path.read_text()), **fields}))


@pytest.mark.parametrize(("spoil", "says"), [
    (lambda d: _edit_manifest(d, version="0.0.9"), "is version 0.0.9, and the package's agent sources"),
    (lambda d: _edit_manifest(d, sources="0123456789abcdef"),
     "was built from other sources than the package carries: its manifest names sources 0123456789abcdef"),
    (lambda d: (d / "mobile-agent-android.jar").write_bytes(stand_in_bytes("0.1.0") + b"\0"),
     "is not the jar its manifest describes"),
    (lambda d: (d / "mobile-agent-android.jar").unlink(), "describes a bundled agent jar, and"),
    (lambda d: (d / MANIFEST_NAME).unlink(), "without its manifest"),
    (lambda d: (d / MANIFEST_NAME).write_text("{"), "is not readable JSON"),
    (lambda d: _edit_manifest(d, build=12), "does not name its version, sources, build as strings"),
], ids=["another version", "other sources", "other bytes", "no jar", "no manifest", "broken manifest", "bad field"])
def test_a_bundle_that_is_not_the_jar_of_these_sources_is_refused(
        tmp_path: Path, sources: AgentSources, bundle_dir: Path, spoil: object, says: str) -> None:
    stage(built_jar(tmp_path, sources.version), sources)
    spoil(bundle_dir)  # type: ignore[operator]
    with pytest.raises(BundleRefused) as refused:
        bundled_jar(sources)
    assert says in str(refused.value)
    assert "It is not used" in str(refused.value) and "--agent-jar" in str(refused.value)


def test_a_refusal_names_both_digests(tmp_path: Path, sources: AgentSources, bundle_dir: Path) -> None:
    staged = stage(built_jar(tmp_path, sources.version), sources)
    template = sources.root / sources.definition.version_template
    template.write_text(template.read_text() + "// another build\n")
    changed = AgentSources.at(sources.root)
    with pytest.raises(BundleRefused) as refused:
        bundled_jar(changed)
    assert f"its manifest names sources {staged.sources}" in str(refused.value)
    assert f"({sources.root}) have the digest {changed.digest()}" in str(refused.value)


def test_the_release_builds_commands_stage_and_check(tmp_path: Path, sources: AgentSources,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    into = tmp_path / "package" / "prebuilt"
    assert bundled.main(["check", "--into", str(into)]) == 1
    assert f"no bundled agent jar in {into}" in capsys.readouterr().err
    jar = built_jar(tmp_path, sources.version)
    assert bundled.main(["stage", str(jar), "--sources", str(sources.root), "--into", str(into)]) == 0
    out = capsys.readouterr().out
    assert f"built from sources {sources.digest()}: {into / 'mobile-agent-android.jar'}" in out
    assert bundled.main(["check", "--into", str(into)]) == 0, "the same sources elsewhere have the same digest"
    said = capsys.readouterr().out
    assert f"bundled mobile-agent-android {sources.version}, build {build_of(jar.read_bytes())}" in said
    main = sources.root / "src" / "dev" / "mobileagent" / "agent" / "Main.java"
    main.write_text(main.read_text() + "// changed\n")
    assert bundled.main(["stage", str(jar), "--sources", str(sources.root), "--into", str(into)]) == 0
    capsys.readouterr()
    assert bundled.main(["check", "--into", str(into)]) == 1, "the package's own sources are not the changed ones"
    assert "built from other sources" in capsys.readouterr().err
    assert bundled.main(["stage", str(tmp_path / "none.jar"), "--sources", str(sources.root)]) == 1
    assert "error: no agent jar to stage" in capsys.readouterr().err
