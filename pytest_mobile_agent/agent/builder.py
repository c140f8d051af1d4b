"""The agent jar built where the user is: the sources the package carries, an SDK found the way
Android's own tools find one, and a per-user cache keyed by the agent's version and its sources.

* `AgentSources.locate()`: the agent's sources and build definition (`agent-android/build.env`,
  which `agent-android/build.sh` sources too): in an installed package its bundled copy
  `pytest_mobile_agent/agent/agent-android/`, in a source tree the top-level `agent-android/`.
* `find_sdk()`: `ANDROID_HOME`, `ANDROID_SDK_ROOT`, then the place Android Studio installs to on
  this OS (`~/Android/Sdk`, `~/Library/Android/sdk`, `%LOCALAPPDATA%\\Android\\Sdk`); in it the
  newest build-tools' `d8` and the newest platform's `android.jar`, refused below build.env's
  MIN_PLATFORM. `find_jdk()`: `JAVA_HOME`'s javac, else the one on PATH, else the JDK Android
  Studio ships (its `jbr` folder: `/opt/android-studio/jbr`, `~/android-studio/jbr`, macOS's
  `/Applications/Android Studio.app/Contents/jbr/Contents/Home`, `%ProgramFiles%\\Android\\Android
  Studio\\jbr`).
* `build_jar()`: javac as Java 8 against android.jar, the classes zipped, d8 into the jar.
* `cached_jar()`: `<user cache>/agent/<version>-<digest>/mobile-agent-android.jar`, built under a
  file lock when missing, so concurrent xdist workers build once and every later run reuses it.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import filelock

from pytest_mobile_agent.agent.jarformat import check_format
from pytest_mobile_agent.errors import AgentBuildError, InvalidJar
from pytest_mobile_agent.userfiles import private_dir, user_cache_dir

DEFINITION_FILE = "build.env"
BUNDLED_SOURCES = Path(__file__).with_name("agent-android")
SOURCE_TREE = Path(__file__).resolve().parents[2] / "agent-android"
SDK_ENVS = ("ANDROID_HOME", "ANDROID_SDK_ROOT")
BUILD_LOCK_TIMEOUT = 900.0
TOOL_TIMEOUT = 600.0
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)

Announce = Callable[[str], None]


def _quiet(message: str) -> None:
    return None


# --- the sources and their build definition -------------------------------------------------------


@dataclass(frozen=True)
class BuildDefinition:
    """`agent-android/build.env`: what goes into the jar and how it is compiled and dexed."""

    source_dirs: tuple[str, ...]
    version_template: str
    version_class: str
    jar_name: str
    java_level: str
    javac_flags: tuple[str, ...]
    min_platform: int
    min_api: int
    d8_flags: tuple[str, ...]

    @classmethod
    def parse(cls, text: str, where: str = DEFINITION_FILE) -> BuildDefinition:
        values: dict[str, str] = {}
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, sep, raw = line.partition("=")
            words = shlex.split(raw, comments=True) if sep else []
            if not sep or not re.fullmatch(r"[A-Z][A-Z0-9_]*", key) or len(words) > 1:
                raise AgentBuildError(f"{where} line {number} is not KEY=VALUE: {line!r}")
            values[key] = words[0] if words else ""
        try:
            return cls(
                source_dirs=tuple(values["SOURCE_DIRS"].split()),
                version_template=values["VERSION_TEMPLATE"],
                version_class=values["VERSION_CLASS"],
                jar_name=values["JAR_NAME"],
                java_level=values["JAVA_LEVEL"],
                javac_flags=tuple(values["JAVAC_FLAGS"].split()),
                min_platform=int(values["MIN_PLATFORM"]),
                min_api=int(values["MIN_API"]),
                d8_flags=tuple(values["D8_FLAGS"].split()),
            )
        except KeyError as exc:
            raise AgentBuildError(f"{where} does not set {exc.args[0]}") from None
        except ValueError as exc:
            raise AgentBuildError(f"{where}: {exc}") from None


@dataclass(frozen=True)
class AgentSources:
    """A directory laid out as `agent-android/`: VERSION, build.env, the template, the sources."""

    root: Path
    definition: BuildDefinition
    version: str

    @classmethod
    def at(cls, root: Path) -> AgentSources:
        try:
            definition = BuildDefinition.parse((root / DEFINITION_FILE).read_text(encoding="utf-8"),
                                               str(root / DEFINITION_FILE))
            version = (root / "VERSION").read_text(encoding="ascii").strip()
        except OSError as exc:
            raise AgentBuildError(f"the agent's sources at {root} are incomplete: {exc.strerror}: "
                                  f"{exc.filename}") from None
        return cls(root, definition, version)

    @classmethod
    def locate(cls) -> AgentSources:
        """The package's bundled copy (an installed wheel), else the source tree's agent-android/."""
        for root in (BUNDLED_SOURCES, SOURCE_TREE):
            if (root / DEFINITION_FILE).is_file():
                return cls.at(root)
        raise AgentBuildError(
            f"the agent's sources are not here: neither {BUNDLED_SOURCES} nor {SOURCE_TREE} has {DEFINITION_FILE}",
            advice="Reinstall pytest-mobile-agent from its wheel or sdist, which carry them",
        )

    def java_files(self) -> list[Path]:
        files: list[Path] = []
        for name in self.definition.source_dirs:
            files.extend(sorted((self.root / name).rglob("*.java")))
        if not files:
            raise AgentBuildError(f"no .java files under {', '.join(self.definition.source_dirs)} in {self.root}")
        return files

    def version_java(self) -> str:
        template = (self.root / self.definition.version_template).read_text(encoding="utf-8")
        return template.replace("@VERSION@", self.version)

    def digest(self) -> str:
        """16 hex digits of a SHA-256 over every input of the build, by relative path."""
        inputs = [self.root / "VERSION", self.root / DEFINITION_FILE, self.root / self.definition.version_template,
                  *self.java_files()]
        digest = hashlib.sha256()
        for path in sorted(inputs, key=lambda p: p.relative_to(self.root).as_posix()):
            name = path.relative_to(self.root).as_posix().encode()
            data = path.read_bytes().replace(b"\r\n", b"\n")  # a Windows checkout builds the same jar
            digest.update(b"%d:%s%d:" % (len(name), name, len(data)) + data)
        return digest.hexdigest()[:16]

    def cache_key(self) -> str:
        return f"{self.version}-{self.digest()}"


# --- the SDK and the JDK ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Sdk:
    root: Path
    found_by: str
    d8: Path
    android_jar: Path
    platform: str  # the platform directory's name, `android-36`
    build_tools: str  # the build-tools version, `36.0.0`

    def describe(self) -> str:
        return f"{self.root} ({self.found_by}): build-tools {self.build_tools}, platform {self.platform}"


def sdk_candidates(environ: Mapping[str, str], platform: str, home: Path) -> list[tuple[str, Path | None]]:
    """Where an SDK may be, in the order Android's tools look: the environment, then the directory
    Android Studio installs it to on this OS. None for a variable that is not set."""
    found: list[tuple[str, Path | None]] = [(name, Path(environ[name]) if environ.get(name) else None)
                                            for name in SDK_ENVS]
    if platform == "darwin":
        found.append(("~/Library/Android/sdk", home / "Library" / "Android" / "sdk"))
    elif platform.startswith("win"):
        local = environ.get("LOCALAPPDATA")
        found.append(("%LOCALAPPDATA%\\Android\\Sdk", Path(local) / "Android" / "Sdk" if local else None))
    else:
        found.append(("~/Android/Sdk", home / "Android" / "Sdk"))
    return found


def _version_key(text: str) -> tuple[int, ...]:
    """`36.0.0` -> (36, 0, 0); a pre-release (`36.0.0-rc1`) sorts before its release."""
    head, _, tail = text.partition("-")
    numbers = tuple(int(part) for part in head.split(".") if part.isascii() and part.isdigit())
    return (*numbers, 0 if tail else 1)


def _platform_level(name: str) -> tuple[int, int] | None:
    """`android-36` -> (36, 0), `android-36.1` -> (36, 1); a preview's code name -> None."""
    match = re.fullmatch(r"android-(\d+)(?:\.(\d+))?(?:-ext\d+)?", name)
    return (int(match[1]), int(match[2] or 0)) if match else None


def _newest_d8(root: Path, windows: bool) -> tuple[str, Path] | None:
    tools = root / "build-tools"
    names = ("d8.bat",) if windows else ("d8",)
    found = [(entry.name, entry / name) for entry in tools.iterdir() if entry.is_dir()
             for name in names if (entry / name).is_file()] if tools.is_dir() else []
    return max(found, key=lambda item: _version_key(item[0]), default=None)


def _newest_platform(root: Path) -> tuple[str, tuple[int, int], Path] | None:
    platforms = root / "platforms"
    found = []
    if platforms.is_dir():
        for entry in platforms.iterdir():
            level = _platform_level(entry.name)
            if level is not None and (entry / "android.jar").is_file():
                found.append((entry.name, level, entry / "android.jar"))
    return max(found, key=lambda item: item[1], default=None)


def find_sdk(minimum: int, environ: Mapping[str, str] | None = None, platform: str | None = None,
             home: Path | None = None) -> Sdk:
    """The first SDK directory that exists, with its newest d8 and its newest platform of at least
    API `minimum`; AgentBuildError saying what is missing, and where it looked, otherwise."""
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    home = Path.home() if home is None else home
    looked: list[str] = []
    for name, path in sdk_candidates(env, platform, home):
        if path is None:
            looked.append(f"{name} (not set)")
            continue
        if not path.is_dir():
            looked.append(f"{name} ({path}: no such directory)")
            continue
        return _sdk_at(path, name, minimum, platform.startswith("win"))
    raise no_sdk(f"no Android SDK found (looked at {', '.join(looked)})", minimum)


def _sdk_at(root: Path, found_by: str, minimum: int, windows: bool) -> Sdk:
    missing = []
    d8 = _newest_d8(root, windows)
    if d8 is None:
        missing.append(f"build-tools' d8 ({root / 'build-tools' / '<version>' / ('d8.bat' if windows else 'd8')}; "
                       "sdkmanager 'build-tools;36.0.0')")
    newest = _newest_platform(root)
    if newest is None:
        missing.append(f"a platform's android.jar ({root / 'platforms' / 'android-<API>' / 'android.jar'}; "
                       "sdkmanager 'platforms;android-36')")
    elif newest[1][0] < minimum:
        missing.append(f"a platform of API {minimum} or newer (the newest installed is {newest[0]}; "
                       "sdkmanager 'platforms;android-36')")
    if missing or d8 is None or newest is None:
        raise no_sdk(f"the Android SDK at {root} ({found_by}) lacks {' and '.join(missing)}", minimum)
    return Sdk(root, found_by, d8[1], newest[2], newest[0], d8[0])


def no_sdk(what: str, minimum: int) -> AgentBuildError:
    return AgentBuildError(
        f"cannot build the agent jar: {what}",
        advice=(f"Either install an Android SDK with build-tools and a platform of API {minimum}+ (Android "
                "Studio, or sdkmanager 'build-tools;36.0.0' 'platforms;android-36') and set ANDROID_HOME to it; "
                "or name a built jar with --agent-jar=PATH / MOBILE_AGENT_JAR; "
                "or test on the built-in virtual device with --android-serial virtual, which needs no jar"),
    )


@dataclass(frozen=True)
class Jdk:
    javac: Path
    home: Path | None
    found_by: str


def jdk_candidates(environ: Mapping[str, str], platform: str, home: Path) -> list[tuple[str, Path | None]]:
    """Where Android Studio keeps the JDK it ships (its `jbr` folder, the JetBrains Runtime that its
    Gradle builds use when JAVA_HOME is not set) on this OS, as its installers put it. None where a
    variable the place depends on is not set."""
    if platform == "darwin":
        bundle = Path("Android Studio.app") / "Contents" / "jbr" / "Contents" / "Home"
        return [("/Applications/Android Studio.app", Path("/Applications") / bundle),
                ("~/Applications/Android Studio.app", home / "Applications" / bundle)]
    if platform.startswith("win"):
        program_files, local = environ.get("ProgramFiles"), environ.get("LOCALAPPDATA")
        return [("%ProgramFiles%\\Android\\Android Studio\\jbr",
                 Path(program_files) / "Android" / "Android Studio" / "jbr" if program_files else None),
                ("%LOCALAPPDATA%\\Programs\\Android Studio\\jbr",
                 Path(local) / "Programs" / "Android Studio" / "jbr" if local else None)]
    return [("/opt/android-studio/jbr", Path("/opt/android-studio/jbr")),
            ("~/android-studio/jbr", home / "android-studio" / "jbr"),
            ("/snap/android-studio/current/jbr", Path("/snap/android-studio/current/jbr"))]


def find_jdk(environ: Mapping[str, str] | None = None, platform: str | None = None, home: Path | None = None) -> Jdk:
    """`$JAVA_HOME/bin/javac`, else the javac on PATH, else the JDK Android Studio ships (its
    `jbr`, `jdk_candidates`): a machine with Android Studio and nothing else builds the agent."""
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    home = Path.home() if home is None else home
    exe = "javac.exe" if platform.startswith("win") else "javac"
    java_home = env.get("JAVA_HOME")
    if java_home:
        javac = Path(java_home) / "bin" / exe
        if javac.is_file():
            return Jdk(javac, Path(java_home), "JAVA_HOME")
    on_path = shutil.which(exe, path=env.get("PATH"))
    if on_path:
        return Jdk(Path(on_path), Path(on_path).resolve().parents[1], "PATH")
    looked = []
    for name, jbr in jdk_candidates(env, platform, home):
        if jbr is not None and (jbr / "bin" / exe).is_file():
            return Jdk(jbr / "bin" / exe, jbr, f"Android Studio's JDK ({name})")
        looked.append(name if jbr is None or name == str(jbr) else f"{name} ({jbr})")
    where = f"JAVA_HOME={java_home} has no bin/{exe}, " if java_home else "JAVA_HOME is not set, "
    raise AgentBuildError(
        f"cannot build the agent jar: no JDK found ({where}there is no {exe} on PATH, and no Android Studio JDK at "
        f"{', '.join(looked)})",
        advice="Install a JDK 17 or newer (Debian: apt-get install openjdk-17-jdk-headless) and set JAVA_HOME "
        "(Android Studio's own is its jbr folder), or name a built jar with --agent-jar=PATH / MOBILE_AGENT_JAR",
    )


# --- the build --------------------------------------------------------------------------------------


def build_jar(sources: AgentSources, sdk: Sdk, jdk: Jdk, output: Path, *, announce: Announce = _quiet) -> Path:
    """Compile, zip and dex the agent into `output` (written whole or not at all)."""
    spec = sources.definition
    with tempfile.TemporaryDirectory(prefix="mobile-agent-build-") as scratch:
        work = Path(scratch)
        version_java = work / "gen" / spec.version_class
        version_java.parent.mkdir(parents=True)
        version_java.write_text(sources.version_java(), encoding="utf-8")
        classes = work / "classes"
        classes.mkdir()
        argfile = work / "sources.txt"  # javac @argfile: no command-line length limit
        argfile.write_text("".join(_argfile_line(p) for p in [*sources.java_files(), version_java]), encoding="utf-8")
        jar = str(sdk.android_jar)
        announce(f"compiling the agent {sources.version} with {jdk.javac} against {sdk.android_jar}")
        _run([str(jdk.javac), *spec.javac_flags, "-source", spec.java_level, "-target", spec.java_level,
              "-bootclasspath", jar, "-cp", jar, "-d", str(classes), f"@{argfile}"], jdk, "javac")
        classes_jar = work / "classes.jar"
        _zip_tree(classes, classes_jar)
        dexed = work / spec.jar_name
        announce(f"dexing with {sdk.d8} (--min-api {spec.min_api})")
        _run([str(sdk.d8), *spec.d8_flags, "--min-api", str(spec.min_api), "--lib", jar, "--output", str(dexed),
              str(classes_jar)], jdk, "d8")
        try:
            check_format(dexed.read_bytes(), str(dexed))
        except (InvalidJar, OSError) as exc:
            raise AgentBuildError(f"d8 did not write an agent jar: {exc}") from None
        private_dir(output.parent)
        staged = output.with_name(f".{output.name}.{os.getpid()}.tmp")
        shutil.copyfile(dexed, staged)
        os.replace(staged, output)
    return output


def _argfile_line(path: Path) -> str:
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"\n'


def _zip_tree(directory: Path, target: Path) -> None:
    """The class files as a jar d8 reads, with fixed times, so a build is reproducible."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in directory.rglob("*") if p.is_file()):
            archive.writestr(zipfile.ZipInfo(path.relative_to(directory).as_posix(), date_time=_ZIP_TIME),
                             path.read_bytes())


def _run(argv: list[str], jdk: Jdk, tool: str) -> None:
    env = dict(os.environ)
    bin_dir = str(jdk.javac.parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")  # d8 is a script that runs `java`
    if jdk.home is not None:
        env["JAVA_HOME"] = str(jdk.home)
    try:
        done = subprocess.run(argv, capture_output=True, timeout=TOOL_TIMEOUT, env=env, check=False)
    except OSError as exc:
        raise AgentBuildError(f"cannot run {tool} ({argv[0]}): {exc.strerror or exc}") from None
    except subprocess.TimeoutExpired:
        raise AgentBuildError(f"{tool} did not finish within {TOOL_TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        output = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
        tail = "\n".join(output[-30:])
        raise AgentBuildError(f"{tool} failed with status {done.returncode}:\n{tail}")


# --- the cache --------------------------------------------------------------------------------------


def cache_dir() -> Path:
    return user_cache_dir() / "agent"


def cached_path(sources: AgentSources) -> Path:
    return cache_dir() / sources.cache_key() / sources.definition.jar_name


def cached_jar(sources: AgentSources | None = None, *, rebuild: bool = False, announce: Announce = _quiet,
               lock_timeout: float = BUILD_LOCK_TIMEOUT) -> tuple[Path, bool]:
    """The cached jar of these sources, built first when it is missing (or `rebuild`): its path, and
    whether this call built it. The build runs under a file lock beside the cache entry, so of
    several processes asking at once one builds and the others wait for it and reuse its jar."""
    sources = sources or AgentSources.locate()
    root = private_dir(cache_dir())
    entry = private_dir(root / sources.cache_key())
    jar = entry / sources.definition.jar_name
    if jar.is_file() and not rebuild:
        return jar, False
    lock = filelock.FileLock(str(root / f"{sources.cache_key()}.lock"))
    try:
        with lock.acquire(timeout=lock_timeout):
            if jar.is_file() and not rebuild:
                return jar, False  # another process built it while we waited
            sdk = find_sdk(sources.definition.min_platform)
            jdk = find_jdk()
            announce(f"building the agent jar {sources.version} with the SDK at {sdk.describe()}")
            build_jar(sources, sdk, jdk, jar, announce=announce)
    except filelock.Timeout:
        raise AgentBuildError(f"another process has been building the agent jar for over {lock_timeout:.0f} s "
                              f"(the lock {lock.lock_file})") from None
    announce(f"built the agent jar: {jar}")
    return jar, True
