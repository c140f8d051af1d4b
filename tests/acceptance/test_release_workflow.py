"""The release workflow (.github/workflows/release.yml) run here step by step as Actions runs its
steps: each `run` with `bash -e` in a copy of the source tree, RUNNER_TEMP a temp dir, what a step
appends to GITHUB_ENV set for the steps after it. The actions stand in as: the test's venv for
setup-python, the fake javac (tests/support/fake_sdk.py) beside the JDK's jar tool for setup-java,
and a fake sdkmanager, which lays out a fake SDK whose d8 writes a jar holding classes.dex, for
setup-android; upload-artifact is the test reading the directory it would upload. NOT_RUN_HERE says
which steps do not run here and why.

Then the wheel it built is used as a user with adb alone has it: an app suite on a device that does
not say it is virtual, with no SDK and no JDK named, deploys the wheel's bundled jar.

Costly: `python -m build` (its isolated build environment) and the check step's venv (the
package's dependencies) come from the package index; about a minute with pip's cache warm."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_mobile_agent._version import __version__
from pytest_mobile_agent.agent.builder import AgentSources
from pytest_mobile_agent.agent.jar import build_of
from pytest_mobile_agent.virtual import VirtualLab
from tests.acceptance.support import REPO, copy_tree, pytest_in, run, shared_dir, user_environment
from tests.support.fake_sdk import calls, make_jdk, make_sdkmanager
from tests.support.release import build_env, workflow_steps

pytestmark = pytest.mark.acceptance

NOT_RUN_HERE = {
    "Run the agent's JUnit tests": "apt-get as root; `build.sh --check` runs in tests/conformance/test_java_agent.py",
    "Install the packaging tools": "the test's venv has them (the dev extra's `build`) and the package",
}
CHECK_STEP = "Check that the installed wheel uses its jar"
JAR_IN_PACKAGE = "pytest_mobile_agent/agent/prebuilt/mobile-agent-android.jar"
MANIFEST_IN_PACKAGE = "pytest_mobile_agent/agent/prebuilt/manifest.json"


@dataclass(frozen=True)
class ReleaseRun:
    tree: Path  # the checkout the steps ran in
    runner_temp: Path
    tools: Path  # the fake sdkmanager's directory
    outputs: dict[str, Any]  # step name -> {"status", "stdout", "stderr"}

    def dist(self, pattern: str) -> Path:
        (found,) = (self.tree / "dist").glob(pattern)
        return found


def step_environment(runner_temp: Path, bin_dirs: list[Path]) -> dict[str, str]:
    """A runner's environment: no SDK, no JDK, no jar named; pip's configuration and cache kept."""
    drop = ("MOBILE_AGENT_", "ANDROID_", "JAVA_HOME", "PYTEST_", "VIRTUAL_ENV", "PYTHONPATH", "TOX_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update(PATH=os.pathsep.join([*map(str, bin_dirs), env.get("PATH", "")]), CI="true",
               RUNNER_TEMP=str(runner_temp), GITHUB_ENV=str(runner_temp / "github_env"), GITHUB_REF_TYPE="tag",
               GITHUB_REF_NAME=f"v{__version__}")
    return env


def github_env(path: Path) -> dict[str, str]:
    """The NAME=value lines steps appended to GITHUB_ENV."""
    lines = path.read_text().splitlines() if path.exists() else []
    return dict(line.split("=", 1) for line in lines if "=" in line)


def run_steps(root: Path) -> ReleaseRun:
    jar_tool = shutil.which("jar")
    if jar_tool is None:
        pytest.skip("build.sh zips the classes with the JDK's jar tool, and there is none here")
    tree = copy_tree(root / "tree")
    runner_temp = root / "runner"
    runner_temp.mkdir()
    tools = root / "tools"
    make_sdkmanager(tools)
    jdk = make_jdk(root / "jdk")
    (jdk / "bin" / "jar").symlink_to(jar_tool)
    env = step_environment(runner_temp, [tools, jdk / "bin", Path(sys.executable).parent])
    outputs: dict[str, Any] = {}
    for step in workflow_steps():
        if "uses" in step or step["name"] in NOT_RUN_HERE:
            continue
        done = run(["bash", "--noprofile", "--norc", "-e", "-c", step["run"]], cwd=tree, env=env, timeout=900)
        outputs[step["name"]] = {"status": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
        if done.returncode != 0:
            break
        env.update(github_env(runner_temp / "github_env"))
    return ReleaseRun(tree, runner_temp, tools, outputs)


@pytest.fixture(scope="session")
def release(tmp_path_factory: pytest.TempPathFactory) -> ReleaseRun:
    """The workflow's steps, run once per session (xdist workers share the run)."""
    basetemp = tmp_path_factory.getbasetemp()
    base = basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp
    directory, lock = shared_dir(base, "release-workflow")
    record = directory / "outputs.json"
    with lock:
        if not record.exists():
            record.write_text(json.dumps(run_steps(directory).outputs))
    return ReleaseRun(directory / "tree", directory / "runner", directory / "tools", json.loads(record.read_text()))


def test_every_step_runs_here_or_says_why_not_and_every_one_that_ran_passed(release: ReleaseRun) -> None:
    runs = [step["name"] for step in workflow_steps() if "run" in step]
    assert set(NOT_RUN_HERE) <= set(runs)
    assert list(release.outputs) == [name for name in runs if name not in NOT_RUN_HERE]
    for name, output in release.outputs.items():
        assert output["status"] == 0, f"{name}:\n{output['stdout'][-3000:]}\n{output['stderr'][-3000:]}"


def test_the_pinned_packages_go_into_an_sdk_of_their_own_and_the_jar_is_dexed_with_them(release: ReleaseRun) -> None:
    pins = build_env()
    sdk = release.runner_temp / "android-sdk"
    licenses, install = calls(release.tools / "sdkmanager")
    assert licenses == [f"--sdk_root={sdk}", "--licenses"]
    assert install == [f"--sdk_root={sdk}", "--install", f"build-tools;{pins['RELEASE_BUILD_TOOLS']}",
                       f"platforms;{pins['RELEASE_PLATFORM']}"]
    (d8,) = calls(sdk / "build-tools" / pins["RELEASE_BUILD_TOOLS"] / "d8")
    assert d8[d8.index("--lib") + 1] == str(sdk / "platforms" / pins["RELEASE_PLATFORM"] / "android.jar")
    assert d8[d8.index("--output") + 1] == str(release.runner_temp / "agent" / "mobile-agent-android.jar")


def test_the_wheel_and_the_sdist_carry_the_jar_built_from_their_own_sources(
    release: ReleaseRun, tmp_path: Path
) -> None:
    built = (release.runner_temp / "agent" / "mobile-agent-android.jar").read_bytes()
    with zipfile.ZipFile(release.dist("*.whl")) as wheel:
        assert wheel.read(JAR_IN_PACKAGE) == built
        manifest = json.loads(wheel.read(MANIFEST_IN_PACKAGE))
        wheel.extractall(tmp_path / "wheel")
    carried = AgentSources.at(tmp_path / "wheel" / "pytest_mobile_agent" / "agent" / "agent-android")
    assert manifest == {"version": carried.version, "sources": carried.digest(), "build": build_of(built)}
    assert carried.digest() == AgentSources.at(REPO / "agent-android").digest(), "the checkout's sources"
    with tarfile.open(release.dist("*.tar.gz")) as sdist:
        top = sdist.getnames()[0].split("/", 1)[0]
        jar = sdist.extractfile(f"{top}/{JAR_IN_PACKAGE}")
        listed = sdist.extractfile(f"{top}/{MANIFEST_IN_PACKAGE}")
        assert jar is not None and listed is not None
        assert jar.read() == built and json.loads(listed.read()) == manifest, "a wheel built from the sdist has it"


def test_the_installed_wheel_says_it_carries_a_jar_of_its_sources(release: ReleaseRun) -> None:
    said = release.outputs[CHECK_STEP]["stdout"]
    build = build_of((release.runner_temp / "agent" / "mobile-agent-android.jar").read_bytes())
    assert f"bundled mobile-agent-android {AgentSources.at(REPO / 'agent-android').version}, build {build}" in said
    assert f"{release.runner_temp / 'check'}" in said and said.rstrip().endswith(JAR_IN_PACKAGE), said


def test_d_with_adb_alone_the_bundled_jar_is_deployed(release: ReleaseRun, project: Path, tmp_path: Path,
                                                       unmarked_device: VirtualLab) -> None:
    """No SDK, no JDK named: the release wheel's own jar runs on the device, nothing is built."""
    venv = release.runner_temp / "check"
    env = user_environment(tmp_path, ANDROID_ADB_SERVER_PORT=str(unmarked_device.adb_port))
    done = pytest_in(venv, project, env, "--android-serial", unmarked_device.serials[0])
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout
    assert "built the agent jar" not in done.stdout and "bundled agent jar" not in done.stdout
    assert not (tmp_path / "cache" / "pytest-mobile-agent" / "agent").exists(), "no build cache"
    build = build_of((release.runner_temp / "agent" / "mobile-agent-android.jar").read_bytes())
    records = [
        json.loads(p.read_text()) for p in (tmp_path / "cache" / "pytest-mobile-agent" / "records").glob("*.json")
    ]
    assert [record["build"] for record in records] == [build], "the agent the device runs is the bundled jar's"
