"""The agent built where the user is: SDK discovery on each OS's layout, the JDK, the build with a
fake SDK (its d8 and javac record their arguments), the per-user cache and its keys, the lock."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_mobile_agent.agent import builder
from pytest_mobile_agent.agent.builder import (
    AgentSources,
    BuildDefinition,
    cached_jar,
    find_jdk,
    find_sdk,
)
from pytest_mobile_agent.agent.jar import AgentJar, expected_version
from pytest_mobile_agent.errors import AgentBuildError
from tests.support.fake_sdk import calls, make_jdk, make_sdk

REPO = Path(__file__).resolve().parents[3]
MINIMUM = AgentSources.locate().definition.min_platform


# --- discovery --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("platform", "place"), [
    ("linux", "Android/Sdk"),
    ("darwin", "Library/Android/sdk"),
    ("win32", "AppData/Local/Android/Sdk"),
], ids=["linux", "macos", "windows"])
def test_the_sdk_is_found_where_android_studio_installs_it_on_each_os(
    tmp_path: Path, platform: str, place: str
) -> None:
    home = tmp_path / "home"
    sdk = make_sdk(home / place, windows=platform == "win32")
    environ = {"LOCALAPPDATA": str(home / "AppData" / "Local")} if platform == "win32" else {}
    found = find_sdk(MINIMUM, environ, platform, home)
    assert found.root == sdk
    assert found.d8.name == ("d8.bat" if platform == "win32" else "d8")
    assert found.android_jar == sdk / "platforms" / "android-36" / "android.jar"


def test_another_os_layout_is_not_looked_at(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_sdk(home / "Library" / "Android" / "sdk")
    with pytest.raises(AgentBuildError, match="~/Android/Sdk"):
        find_sdk(MINIMUM, {}, "linux", home)


def test_android_home_wins_over_android_sdk_root_and_the_default_place(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_sdk(home / "Android" / "Sdk")
    first, second = make_sdk(tmp_path / "first"), make_sdk(tmp_path / "second")
    assert find_sdk(MINIMUM, {"ANDROID_HOME": str(first), "ANDROID_SDK_ROOT": str(second)}, "linux", home).root == first
    found = find_sdk(MINIMUM, {"ANDROID_SDK_ROOT": str(second)}, "linux", home)
    assert (found.root, found.found_by) == (second, "ANDROID_SDK_ROOT")
    found = find_sdk(MINIMUM, {"ANDROID_HOME": str(tmp_path / "gone")}, "linux", home)
    assert found.root == home / "Android" / "Sdk", "a variable naming no directory is passed over"


def test_the_newest_build_tools_and_the_newest_platform_are_taken(tmp_path: Path) -> None:
    sdk = make_sdk(tmp_path / "sdk", build_tools=("30.0.3", "36.0.0-rc1", "35.0.1", "36.0.0"),
                   platforms=("android-33", "android-36", "android-35", "android-UpsideDownCake", "android-36.1"))
    found = find_sdk(MINIMUM, {"ANDROID_HOME": str(sdk)}, "linux", tmp_path)
    assert found.build_tools == "36.0.0"
    assert found.platform == "android-36.1"


def test_a_platform_older_than_the_agent_needs_is_refused(tmp_path: Path) -> None:
    sdk = make_sdk(tmp_path / "sdk", platforms=("android-30", "android-32"))
    with pytest.raises(AgentBuildError) as refused:
        find_sdk(33, {"ANDROID_HOME": str(sdk)}, "linux", tmp_path)
    assert "API 33 or newer" in str(refused.value) and "android-32" in str(refused.value)


def test_an_sdk_without_d8_or_a_platform_says_which_is_missing(tmp_path: Path) -> None:
    sdk = tmp_path / "sdk"
    (sdk / "build-tools" / "36.0.0").mkdir(parents=True)
    (sdk / "platforms").mkdir()
    with pytest.raises(AgentBuildError) as missing:
        find_sdk(MINIMUM, {"ANDROID_HOME": str(sdk)}, "linux", tmp_path)
    text = str(missing.value)
    assert "build-tools' d8" in text and "a platform's android.jar" in text and str(sdk) in text


def test_without_an_sdk_the_error_names_what_is_missing_and_the_three_ways_out(tmp_path: Path) -> None:
    with pytest.raises(AgentBuildError) as none:
        find_sdk(MINIMUM, {}, "linux", tmp_path)
    text = str(none.value)
    assert "no Android SDK found" in text
    assert "ANDROID_HOME (not set)" in text and "ANDROID_SDK_ROOT (not set)" in text
    assert str(tmp_path / "Android" / "Sdk") in text
    assert "install an Android SDK" in text, "way out 1"
    assert "--agent-jar" in text and "MOBILE_AGENT_JAR" in text, "way out 2"
    assert "--android-serial virtual" in text, "way out 3"


def test_the_jdk_is_java_home_then_path(tmp_path: Path) -> None:
    jdk = make_jdk(tmp_path / "jdk")
    other = make_jdk(tmp_path / "other")
    assert find_jdk({"JAVA_HOME": str(jdk), "PATH": str(other / "bin")}, "linux").javac == jdk / "bin" / "javac"
    found = find_jdk({"PATH": str(other / "bin")}, "linux")
    assert (found.javac, found.found_by) == (other / "bin" / "javac", "PATH")
    with pytest.raises(AgentBuildError, match="no JDK found"):
        find_jdk({"PATH": str(tmp_path / "nothing")}, "linux", home=tmp_path)


@pytest.mark.parametrize(("platform", "place"), [
    ("linux", "android-studio/jbr"),
    ("darwin", "Applications/Android Studio.app/Contents/jbr/Contents/Home"),
    ("win32", "Program Files/Android/Android Studio/jbr"),
])
def test_the_jdk_android_studio_ships_is_found_when_nothing_else_is(tmp_path: Path, platform: str,
                                                                      place: str) -> None:
    """Issue 41 item 18: a machine with Android Studio and no other JDK could not build the agent."""
    def jdk_at(root: Path) -> Path:
        make_jdk(root)
        if platform == "win32":
            (root / "bin" / "javac").rename(root / "bin" / "javac.exe")
        return root

    jbr = jdk_at(tmp_path / place)
    environ = {"PATH": str(tmp_path / "nothing"), "ProgramFiles": str(tmp_path / "Program Files")}
    found = find_jdk(environ, platform, home=tmp_path)
    assert found.home == jbr and found.javac.parent == jbr / "bin"
    assert found.found_by.startswith("Android Studio's JDK")
    other = jdk_at(tmp_path / "other")
    assert find_jdk({**environ, "JAVA_HOME": str(other)}, platform, home=tmp_path).home == other, "JAVA_HOME first"


def test_without_any_jdk_the_error_names_android_studios_places_too(tmp_path: Path) -> None:
    with pytest.raises(AgentBuildError) as raised:
        find_jdk({"PATH": str(tmp_path / "nothing")}, "linux", home=tmp_path)
    assert "/opt/android-studio/jbr" in str(raised.value)
    assert f"~/android-studio/jbr ({tmp_path / 'android-studio' / 'jbr'})" in str(raised.value)


# --- the build definition and the cache key --------------------------------------------------------


def test_the_build_definition_is_what_build_sh_sources() -> None:
    spec = AgentSources.locate().definition
    assert spec.source_dirs == ("src",) and spec.java_level == "8" and spec.min_api == 24
    assert spec.jar_name == "mobile-agent-android.jar" and spec.min_platform == 33
    script = f'. "{REPO / "agent-android" / "build.env"}"; echo "$MIN_API $JAVA_LEVEL $MIN_PLATFORM $SOURCE_DIRS"'
    shell = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, check=True, timeout=30
    ).stdout.split()
    assert shell == [str(spec.min_api), spec.java_level, str(spec.min_platform), *spec.source_dirs]


def test_a_broken_build_definition_is_a_clear_error() -> None:
    with pytest.raises(AgentBuildError, match="line 2 is not KEY=VALUE"):
        BuildDefinition.parse("# ok\nnot a line\n")
    with pytest.raises(AgentBuildError, match="does not set SOURCE_DIRS"):
        BuildDefinition.parse("JAR_NAME=a.jar\n")


def test_the_cache_key_is_the_version_and_a_digest_of_the_sources(sources: AgentSources, tmp_path: Path) -> None:
    key = sources.cache_key()
    version, digest = key.rsplit("-", 1)
    assert version == expected_version() and len(digest) == 16
    same = tmp_path / "elsewhere"
    shutil.copytree(sources.root, same)
    assert AgentSources.at(same).cache_key() == key, "the same sources in another place share the entry"
    main = sources.root / "src" / "dev" / "mobileagent" / "agent" / "Main.java"
    main.write_text(main.read_text() + "\n// changed\n")
    assert AgentSources.at(sources.root).cache_key() != key
    assert AgentSources.locate().cache_key() != AgentSources.at(sources.root).cache_key()
    (sources.root / "VERSION").write_text("9.9.9\n")
    assert AgentSources.at(sources.root).cache_key().startswith("9.9.9-")


# --- the build and the cache -------------------------------------------------------------------------


def test_a_build_with_the_fake_sdk_follows_the_definition_and_writes_a_jar(sources: AgentSources,
                                                                           toolchain: tuple[Path, Path]) -> None:
    sdk, jdk = toolchain
    path, built = cached_jar(sources)
    assert built and path.name == "mobile-agent-android.jar"
    assert path.parent == Path(os.environ["XDG_CACHE_HOME"]) / "pytest-mobile-agent" / "agent" / sources.cache_key()
    (javac,) = calls(jdk / "bin" / "javac")
    android_jar = str(sdk / "platforms" / "android-36" / "android.jar")
    assert javac[javac.index("-source") + 1] == "8" and javac[javac.index("-target") + 1] == "8"
    assert javac[javac.index("-bootclasspath") + 1] == android_jar
    (d8,) = calls(sdk / "build-tools" / "36.0.0" / "d8")
    assert d8[0] == "--release" and d8[d8.index("--min-api") + 1] == "24" and d8[d8.index("--lib") + 1] == android_jar
    jar = AgentJar.from_path(path)
    assert jar.reported_version() == expected_version(), "the generated Version class went into the dex"
    assert oct(path.parent.stat().st_mode & 0o777) == "0o700"


def test_the_cached_jar_is_reused_and_rebuilt_on_demand(sources: AgentSources, toolchain: tuple[Path, Path]) -> None:
    sdk, _ = toolchain
    first, built = cached_jar(sources)
    again, built_again = cached_jar(sources)
    assert (again, built, built_again) == (first, True, False)
    assert len(calls(sdk / "build-tools" / "36.0.0" / "d8")) == 1
    _, rebuilt = cached_jar(sources, rebuild=True)
    assert rebuilt and len(calls(sdk / "build-tools" / "36.0.0" / "d8")) == 2


def test_a_failing_compiler_leaves_no_jar_and_says_why(sources: AgentSources, toolchain: tuple[Path, Path],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_JAVAC_FAIL", "1")
    with pytest.raises(AgentBuildError) as failed:
        cached_jar(sources)
    assert "javac failed with status 1" in str(failed.value) and "cannot find symbol" in str(failed.value)
    assert not builder.cached_path(sources).exists()


def test_the_build_definition_is_one_for_build_sh_and_the_python_builder(sources: AgentSources,
                                                                          toolchain: tuple[Path, Path],
                                                                          tmp_path: Path) -> None:
    """Change MIN_API in build.env: both builds hand the new value to d8."""
    sdk, jdk = toolchain
    definition = sources.root / "build.env"
    definition.write_text(definition.read_text().replace('MIN_API="24"', 'MIN_API="26"'))
    cached_jar(AgentSources.at(sources.root))
    env = dict(
        os.environ, PATH=f"{jdk / 'bin'}{os.pathsep}{os.environ['PATH']}", MOBILE_AGENT_DIST=str(tmp_path / "dist")
    )
    if shutil.which("jar") is None:
        pytest.skip("build.sh zips the classes with the JDK's jar tool")
    jar_tool = Path(shutil.which("jar") or "jar")
    (jdk / "bin" / "jar").symlink_to(jar_tool)
    done = subprocess.run(
        ["bash", str(sources.root / "build.sh")], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    python_call, shell_call = calls(sdk / "build-tools" / "36.0.0" / "d8")
    assert python_call[python_call.index("--min-api") + 1] == shell_call[shell_call.index("--min-api") + 1] == "26"
    assert python_call[0] == shell_call[0] == "--release"


LOCKED_BUILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from pytest_mobile_agent.agent.builder import AgentSources, cached_jar
    path, built = cached_jar(AgentSources.at(Path(sys.argv[1])))
    print(path, built)
""")


def test_concurrent_processes_build_once_under_the_lock(sources: AgentSources, toolchain: tuple[Path, Path]) -> None:
    sdk, _ = toolchain
    env = dict(os.environ, FAKE_D8_SECONDS="1.0")
    workers = [subprocess.Popen([sys.executable, "-c", LOCKED_BUILD, str(sources.root)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env) for _ in range(3)]
    results = [worker.communicate(timeout=120) for worker in workers]
    assert all(worker.returncode == 0 for worker in workers), results
    lines = sorted(out.split() for out, _ in results)
    assert len({path for path, _ in lines}) == 1, "one jar for all"
    assert sorted(flag for _, flag in lines) == ["False", "False", "True"], "one built it, the others reused it"
    assert len(calls(sdk / "build-tools" / "36.0.0" / "d8")) == 1


def test_agent_build_prints_the_jar_and_without_an_sdk_says_what_is_missing(
        toolchain: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_mobile_agent.cli.main import main

    assert main(["agent", "build"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == str(builder.cached_path(AgentSources.locate())) and "built the agent jar" in err
    assert main(["agent", "build"]) == 0
    assert "already built" in capsys.readouterr().err
    monkeypatch.delenv("ANDROID_HOME")
    monkeypatch.setenv("HOME", str(toolchain[0].parent / "empty-home"))
    assert main(["agent", "build", "--rebuild"]) == 2
    err = capsys.readouterr().err
    assert "error: cannot build the agent jar: no Android SDK found" in err and "--android-serial virtual" in err
