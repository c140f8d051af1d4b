""".github/workflows/release.yml read as GitHub Actions reads it: its steps, and what each command
it runs needs from this repository (build.sh's options and variables, build.env's pins, the
bundled-jar commands and their options, the paths one step hands the next). The steps themselves
run in tests/acceptance/test_release_workflow.py."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_mobile_agent._version import __version__
from pytest_mobile_agent.agent import bundled
from pytest_mobile_agent.agent.builder import AgentSources, BuildDefinition
from tests.support.release import REPO, WORKFLOW, build_env, load_workflow, workflow_steps


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    return load_workflow()


@pytest.fixture(scope="module")
def steps() -> list[dict[str, Any]]:
    return workflow_steps()


def step(steps: list[dict[str, Any]], name: str) -> str:
    (found,) = [s for s in steps if s.get("name") == name]
    return str(found["run"])


def commands(script: str) -> list[list[str]]:
    """The simple commands of a run script, as words (a line continued by `\\` is one; `cd X &&` splits)."""
    found = []
    for line in script.replace("\\\n", " ").splitlines():
        for part in re.split(r"&&|\|", line):
            words = shlex.split(part, comments=True)
            if words:
                found.append(words)
    return found


def test_it_runs_on_a_version_tag_or_by_hand_and_publishes_nothing(workflow: dict[Any, Any],
                                                                   steps: list[dict[str, Any]]) -> None:
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers == {"push": {"tags": ["v*"]}, "workflow_dispatch": None}
    assert workflow["permissions"] == {"contents": "read"}
    text = WORKFLOW.read_text()
    for publisher in ("pypi-publish", "twine upload", "secrets."):
        assert publisher not in text.replace("(twine upload)", ""), "publishing is the maintainers' step"
    uses = [s["uses"] for s in steps if "uses" in s]
    assert all(re.fullmatch(r"[\w-]+/[\w-]+@v\d+", u) for u in uses), uses
    assert {u.split("@")[0] for u in uses} == {"actions/checkout", "actions/setup-python", "actions/setup-java",
                                               "android-actions/setup-android", "actions/upload-artifact"}


def test_every_run_script_is_valid_bash(steps: list[dict[str, Any]]) -> None:
    for each in steps:
        if "run" in each:
            script = re.sub(r"\$\{\{[^}]*\}\}", "x", each["run"])
            checked = subprocess.run(["bash", "-n", "-c", script], capture_output=True, text=True, timeout=30)
            assert checked.returncode == 0, f"{each['name']}: {checked.stderr}"


def test_the_sdk_packages_are_build_envs_pins_and_the_builders_advice_names_the_same() -> None:
    env = build_env()
    tools, platform = env["RELEASE_BUILD_TOOLS"], env["RELEASE_PLATFORM"]
    level = re.fullmatch(r"android-(\d+)", platform)
    assert level and int(level[1]) >= int(env["MIN_PLATFORM"]), "the pinned platform has every API the agent names"
    assert re.fullmatch(r"\d+\.\d+\.\d+", tools)
    for advice in (REPO / "pytest_mobile_agent" / "agent" / "builder.py", REPO / "agent-android" / "build.sh"):
        named = set(re.findall(r"(?:build-tools|platforms);[\w.-]+", advice.read_text()))
        assert named == {f"build-tools;{tools}", f"platforms;{platform}"}, advice
    definition = BuildDefinition.parse((REPO / "agent-android" / "build.env").read_text())
    assert definition.min_platform == int(env["MIN_PLATFORM"]), "the builder reads the same file"


def test_the_sdk_step_installs_the_pins_into_an_sdk_of_its_own_and_hands_it_on(steps: list[dict[str, Any]]) -> None:
    script = step(steps, "Install the pinned build-tools and platform")
    words = commands(script)
    assert words[0] == [".", "agent-android/build.env"]
    install = next(w for w in words if w[0] == "sdkmanager" and "--install" in w)
    assert install[-2:] == ["build-tools;$RELEASE_BUILD_TOOLS", "platforms;$RELEASE_PLATFORM"]
    assert '--sdk_root="$sdk"' in script and 'echo "ANDROID_HOME=$sdk" >> "$GITHUB_ENV"' in script


def test_build_sh_is_run_with_options_and_variables_it_has(steps: list[dict[str, Any]]) -> None:
    build_sh = (REPO / "agent-android" / "build.sh").read_text()
    accepted = re.search(r'case "\$\{1:-\}" in\n(.*?)\nesac', build_sh, re.S)
    assert accepted, "build.sh ends with the case of its options"
    options = set(re.findall(r"^\s*(--[\w-]+|\"\")\)", accepted[1], re.M))
    assert options == {"--check", "--host", '""'}
    runs = [each["run"] for each in steps if "agent-android/build.sh" in each.get("run", "")]
    used = [words for script in runs for words in commands(script) if any(w.endswith("build.sh") for w in words)]
    assert used == [["agent-android/build.sh", "--check"],
                    ["MOBILE_AGENT_DIST=$RUNNER_TEMP/agent", "agent-android/build.sh"]]
    assert '"${MOBILE_AGENT_DIST:-$HERE/dist}"' in build_sh


def test_the_jar_build_sh_writes_is_the_one_staged_into_the_package(steps: list[dict[str, Any]]) -> None:
    jar_name = AgentSources.locate().definition.jar_name
    (stage,) = commands(step(steps, "Put the jar into the package").replace("\n", " "))
    assert stage[:3] == ["python", "-m", "pytest_mobile_agent.agent.bundled"]
    args = bundled.parser().parse_args(stage[3:])
    assert args.command == "stage" and str(args.jar) == f"$RUNNER_TEMP/agent/{jar_name}"
    assert (REPO / args.sources).resolve() == AgentSources.locate().root.resolve()
    assert (REPO / args.into).resolve() == bundled.BUNDLE_DIR.resolve()


def test_the_wheel_is_built_checked_and_uploaded_from_one_directory(steps: list[dict[str, Any]]) -> None:
    (build,) = commands(step(steps, "Build the sdist and the wheel"))
    assert build[:3] == ["python", "-m", "build"]
    outdir = build[build.index("--outdir") + 1]
    check = commands(step(steps, "Check that the installed wheel uses its jar"))
    assert ["$RUNNER_TEMP/check/bin/pip", "install", "--no-compile", f"{outdir}/*.whl"] in check
    verify = check[-1]
    assert verify[1:3] == ["-m", "pytest_mobile_agent.agent.bundled"]
    assert bundled.parser().parse_args(verify[3:]).command == "check"
    assert check[-2] == ["cd", "$RUNNER_TEMP"], "python -m imports the wheel, not the checkout"
    (upload,) = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact")]
    assert upload["with"]["path"].rstrip("/") == outdir and upload["with"]["if-no-files-found"] == "error"
    names = [s.get("name") for s in steps]
    order = ["Install the pinned build-tools and platform", "Build the agent jar", "Put the jar into the package",
             "Build the sdist and the wheel", "Check that the installed wheel uses its jar"]
    assert [names.index(n) for n in order] == sorted(names.index(n) for n in order)


TAG_STEP = "Check that the tag names the package's version"


@pytest.mark.parametrize(("ref_type", "ref_name", "passes"), [
    ("tag", f"v{__version__}", True),
    ("tag", "v9.9.9", False),
    ("tag", __version__, False),  # the tag is v and the version
    ("branch", "main", True),  # by hand from a branch: nothing to compare
])
def test_a_tag_that_is_not_the_packages_version_stops_the_release_before_any_build(
        steps: list[dict[str, Any]], ref_type: str, ref_name: str, passes: bool) -> None:
    names = [s.get("name") for s in steps]
    builds = [i for i, s in enumerate(steps) if any(tool in s.get("run", "") for tool in ("sdkmanager", "build"))]
    assert names.index(TAG_STEP) < min(builds)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "GITHUB_REF_TYPE": ref_type, "GITHUB_REF_NAME": ref_name}
    done = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-c", step(steps, TAG_STEP)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode == 0) == passes, done.stderr
    if not passes:
        assert f"the tag {ref_name} does not name the package's version {__version__}" in done.stderr
        assert f"tag v{__version__}" in done.stderr
