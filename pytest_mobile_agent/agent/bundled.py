"""The agent jar a release wheel carries, so that a user with adb alone (no Android SDK, no JDK) can
test on a real device: `pytest_mobile_agent/agent/prebuilt/`, holding the dex jar the release build
made (`.github/workflows/release.yml`: `agent-android/build.sh`, then `stage` below) and
`manifest.json`, which says what it is:

    {"build": "<12 hex: build_of(jar)>", "sources": "<16 hex: AgentSources.digest()>", "version": "0.1.0"}

`bundled_jar(sources)` is the jar's path when it was built from `sources`: the same version, the
same digest of the sources, and the very bytes the manifest names. It is None when the package
carries no jar (a wheel built without the release build, or a source tree), and `BundleRefused`,
naming both sides and what to do, when the jar was built from other sources.

    python -m pytest_mobile_agent.agent.bundled stage JAR [--sources DIR] [--into DIR]
    python -m pytest_mobile_agent.agent.bundled check [--into DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from pytest_mobile_agent.agent.builder import AgentSources
from pytest_mobile_agent.agent.jarformat import build_of, check_format, reported_version
from pytest_mobile_agent.errors import InvalidJar, JarMissing, MobileAgentError

BUNDLE_DIR = Path(__file__).with_name("prebuilt")
MANIFEST_NAME = "manifest.json"
STAGE_COMMAND = "python -m pytest_mobile_agent.agent.bundled stage JAR"
REFUSAL_ADVICE = (
    "It is not used: the jar is built from the package's agent sources instead, which needs an Android SDK "
    "(or name a built jar with --agent-jar=PATH / MOBILE_AGENT_JAR). A release wheel's jar always matches its "
    "sources: reinstall pytest-mobile-agent from its release, or, for a build of your own, run "
    f"agent-android/build.sh and then {STAGE_COMMAND} on these sources (README, \"Releasing\")"
)


class BundleRefused(InvalidJar):
    """The package carries an agent jar that was not built from the agent sources it carries."""

    def __init__(self, message: str) -> None:
        super().__init__(message, advice=REFUSAL_ADVICE)


@dataclass(frozen=True)
class BundleManifest:
    """What the bundled jar is: its agent version, the digest of the sources it was built from
    (`AgentSources.digest()`), and the build digest of its bytes (`jarformat.build_of`)."""

    version: str
    sources: str
    build: str

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    @classmethod
    def read(cls, path: Path) -> BundleManifest:
        try:
            fields = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise BundleRefused(f"the package carries an agent jar without its manifest ({path} is missing)") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BundleRefused(f"the bundled agent jar's manifest {path} is not readable JSON ({exc})") from None
        names = ("version", "sources", "build")
        if not isinstance(fields, dict) or any(not isinstance(fields.get(name), str) for name in names):
            raise BundleRefused(f"the bundled agent jar's manifest {path} does not name its {', '.join(names)} "
                                f"as strings: {fields!r}")
        return cls(**{name: fields[name] for name in names})


def bundle_files(sources: AgentSources, directory: Path) -> tuple[Path, Path]:
    """The bundled jar's path (build.env's JAR_NAME) and its manifest's, in `directory`."""
    return directory / sources.definition.jar_name, directory / MANIFEST_NAME


def bundled_jar(sources: AgentSources, directory: Path | None = None) -> Path | None:
    """The jar in `directory` (default: the package's `prebuilt/`) when it was built from `sources`;
    None when there is none; BundleRefused when it is not the jar of these sources."""
    jar, manifest_path = bundle_files(sources, directory or BUNDLE_DIR)
    if not jar.exists() and not manifest_path.exists():
        return None
    manifest = BundleManifest.read(manifest_path)
    if manifest.version != sources.version:
        raise BundleRefused(f"the bundled agent jar {jar} is version {manifest.version}, and the package's agent "
                            f"sources ({sources.root}) are version {sources.version}")
    digest = sources.digest()
    if manifest.sources != digest:
        raise BundleRefused(f"the bundled agent jar {jar} was built from other sources than the package carries: "
                            f"its manifest names sources {manifest.sources}, and the package's agent sources "
                            f"({sources.root}) have the digest {digest}")
    try:
        data = jar.read_bytes()
    except OSError as exc:
        raise BundleRefused(f"{manifest_path} describes a bundled agent jar, and {jar} cannot be read "
                            f"({exc.strerror or exc})") from None
    if build_of(data) != manifest.build:
        raise BundleRefused(f"the bundled agent jar {jar} is not the jar its manifest describes: the manifest names "
                            f"build {manifest.build}, and the file's bytes are build {build_of(data)}")
    return jar


def stage(jar: Path, sources: AgentSources, directory: Path | None = None) -> BundleManifest:
    """The release build's step: copy `jar`, just built from `sources`, into `directory` (default:
    the package's `prebuilt/`) with its manifest, where the wheel and the sdist pick it up.
    InvalidJar when `jar` is no agent jar or names another version than `sources`."""
    try:
        data = jar.read_bytes()
    except FileNotFoundError:
        raise JarMissing(f"no agent jar to stage at {jar}",
                         advice="Build it first with agent-android/build.sh") from None
    check_format(data, str(jar))
    named = reported_version(data)
    if named != sources.version:
        raise InvalidJar(f"{jar} is not a build of the agent sources at {sources.root}: its code names version "
                         f"{named or '(none)'}, and the sources are version {sources.version}",
                         advice="Build the jar from these sources with agent-android/build.sh, then stage it")
    manifest = BundleManifest(version=sources.version, sources=sources.digest(), build=build_of(data))
    target = directory or BUNDLE_DIR
    target.mkdir(parents=True, exist_ok=True)
    jar_path, manifest_path = bundle_files(sources, target)
    shutil.copyfile(jar, jar_path)
    manifest_path.write_text(manifest.to_json(), encoding="utf-8")
    return manifest


# --- the command line of the release build ------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    """`stage` and `check`; no abbreviated options, so that the workflow's command is the one read."""
    line = argparse.ArgumentParser(prog="python -m pytest_mobile_agent.agent.bundled", allow_abbrev=False,
                                   description="The agent jar a release wheel carries (README, \"Releasing\").")
    commands = line.add_subparsers(dest="command", required=True)
    staging = commands.add_parser("stage", allow_abbrev=False,
                                  help="put a jar built from the agent sources into the package")
    staging.add_argument("jar", type=Path, help="the jar agent-android/build.sh wrote")
    staging.add_argument("--sources", type=Path, help="the agent-android/ it was built from (default: the package's)")
    staging.add_argument("--into", type=Path, help=f"where to put it (default: {BUNDLE_DIR})")
    checking = commands.add_parser("check", allow_abbrev=False,
                                   help="say whether the package carries a jar of its agent sources")
    checking.add_argument("--into", type=Path, help=f"where the jar is (default: {BUNDLE_DIR})")
    return line


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        sources = AgentSources.at(args.sources) if getattr(args, "sources", None) else AgentSources.locate()
        if args.command == "stage":
            manifest = stage(args.jar, sources, args.into)
            print(f"staged mobile-agent-android {manifest.version}, build {manifest.build}, built from sources "
                  f"{manifest.sources}: {bundle_files(sources, args.into or BUNDLE_DIR)[0]}")
            return 0
        jar = bundled_jar(sources, args.into)
    except MobileAgentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if jar is None:
        print(f"no bundled agent jar in {args.into or BUNDLE_DIR}", file=sys.stderr)
        return 1
    print(f"bundled mobile-agent-android {sources.version}, build {build_of(jar.read_bytes())}, built from sources "
          f"{sources.digest()}: {jar}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
