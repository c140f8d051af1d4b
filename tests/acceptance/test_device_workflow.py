""".github/workflows/device-tests.yml, which cannot run here (no emulator, no KVM, no SDK), checked
as far as it can be: it parses, its triggers, matrix and emulator flags are the ones README's "The
device run" table documents, its scripts are valid bash, and its steps run here as Actions runs them
(`bash -e`, in a copy of the source tree, what a step appends to GITHUB_ENV and GITHUB_PATH given to
the steps after it) for the matrix's API 36 job, with a fake SDK (tests/support/fake_device_sdk.py):
its sdkmanager, avdmanager and gradle record what they are asked, adb is Debian's, and its emulator
is the virtual device, served on the adb server's port with its controller on the `-grpc` port.

The actions stand in as: the copy for checkout, the test's Python for setup-python, the fake javac
beside the JDK's jar tool for setup-java, the fake sdkmanager on PATH for setup-android, the fake
gradle for setup-gradle; upload-artifact is the test reading the directory it uploads. NOT_RUN_HERE
says which run steps do not run, and why. The pytest steps run as written with PYTEST_ADDOPTS
choosing a few of their tests (RUN_HERE_ONLY), for time: the whole suites run on the virtual device
elsewhere (`tox -e test`, `tox -e examples`)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.acceptance.support import copy_tree
from tests.support.fake_device_sdk import APK_OUTPUT, VIRTUAL_API, make_tools
from tests.support.fake_sdk import calls, make_jdk
from tests.support.ports import free_port
from tests.support.release import REPO, build_env

WORKFLOW = REPO / ".github" / "workflows" / "device-tests.yml"
NOT_RUN_HERE = {
    "Enable KVM": "sudo and /dev/kvm, which the fake emulator needs neither of",
    "Install the test tools": "the test's venv has them, and the copy's package is on PYTHONPATH (uiautomator2, the "
                              "compare extra, is not installed here: the bench says why it skips that side)",
}
RUN_HERE_ONLY = ("shell_round_trip or a_toast_the_app_shows or with_the_controller_taps or "
                 "signing_in_greets_the_user")


def load_workflow() -> dict[Any, Any]:
    loaded = yaml.safe_load(WORKFLOW.read_text())
    assert isinstance(loaded, dict), WORKFLOW
    return loaded


def the_job() -> dict[str, Any]:
    (job,) = load_workflow()["jobs"].values()
    return dict(job)


def steps() -> list[dict[str, Any]]:
    return list(the_job()["steps"])


def step(name: str) -> dict[str, Any]:
    (found,) = [s for s in steps() if s.get("name") == name]
    return found


def readme_table() -> dict[str, str]:
    """README's "The device run" table: its first column's words -> the second's."""
    text = (REPO / "README.md").read_text()
    section = text.split("## The device run\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:3] for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    return {key.strip(): value.strip() for key, value in rows if key.strip()}


def emulator_command() -> list[str]:
    """The emulator's arguments in "Boot the emulator" (after `nohup emulator`)."""
    script = step("Boot the emulator")["run"].replace("\\\n", " ")
    (line,) = [line for line in script.splitlines() if line.strip().startswith("nohup emulator")]
    words = shlex.split(line.split(">", 1)[0])
    assert words[:2] == ["nohup", "emulator"], words
    return words[2:]


# --- read: the workflow against README ----------------------------------------------------------------


def test_it_runs_on_every_push_and_by_hand_and_publishes_nothing() -> None:
    workflow = load_workflow()
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers == {"push": None, "workflow_dispatch": None}
    assert workflow["permissions"] == {"contents": "read"}
    assert "secrets." not in WORKFLOW.read_text()
    assert "on every push, and by hand (workflow_dispatch)" in readme_table()["when"]


def test_the_matrix_and_the_images_are_the_ones_readme_documents() -> None:
    job, table = the_job(), readme_table()
    apis = job["strategy"]["matrix"]["api"]
    assert apis == [33, 34, 35, 36]
    assert table["images"].startswith("API " + ", ".join(map(str, apis)) + ";")
    assert job["strategy"]["fail-fast"] is False, "one image's failure does not cancel the others' runs"
    assert (job["env"]["SYSTEM_IMAGE_TAG"], job["env"]["SYSTEM_IMAGE_ABI"]) == ("google_apis", "x86_64")
    assert "`google_apis`; `x86_64`" in table["images"]
    assert job["runs-on"] == "ubuntu-24.04" and f"(`{job['runs-on']}`)" in table["images"]


def test_the_emulator_flags_are_the_ones_readme_documents() -> None:
    command = emulator_command()
    documented = re.search(r"`emulator ([^`]+)`", readme_table()["emulator"])
    assert documented is not None
    assert [w.replace("$API", "NN") for w in command] == documented[1].split()
    assert command[command.index("-grpc") + 1] == "8554" and "-grpc-use-token" in command
    assert command[command.index("-port") + 1] == "5554"


def test_the_target_and_the_host_gates_are_the_ones_readme_documents() -> None:
    env, table = the_job()["env"], readme_table()
    assert env["SERIAL"] == "emulator-5554" and env["MOBILE_AGENT_HOST_GATES"] == "off"
    assert table["target"].startswith("`emulator-5554`, with `MOBILE_AGENT_HOST_GATES=off`")
    for name in ("Run the device tests", "Run the examples", "Run the doctor", "Bench ours beside uiautomator2"):
        assert '"$SERIAL"' in step(name)["run"], name


def test_the_sdk_packages_are_build_envs_pins_and_the_matrixs_image() -> None:
    script = step("Install the pinned SDK packages and the emulator image")["run"]
    assert script.splitlines()[0] == ". agent-android/build.env"
    assert 'image="system-images;android-$API;$SYSTEM_IMAGE_TAG;$SYSTEM_IMAGE_ABI"' in script
    install = shlex.split(script.split("--install", 1)[1].replace("\\\n", " ").splitlines()[0])
    assert install == ["build-tools;$RELEASE_BUILD_TOOLS", "platforms;$RELEASE_PLATFORM", "platform-tools", "emulator",
                       "cmdline-tools;latest", "$image"]
    assert build_env()["RELEASE_PLATFORM"] == "android-36", "the fixture app's compileSdk 36 builds against it"


def test_the_fixture_app_is_built_with_the_gradle_readme_names_and_installed_before_the_tests() -> None:
    (setup,) = [s for s in steps() if s.get("uses", "").startswith("gradle/actions/setup-gradle")]
    version = setup["with"]["gradle-version"]
    assert f"(Gradle {version})" in readme_table()["built"]
    names = [s.get("name") for s in steps()]
    order = ["Build the agent jar", "Build the fixture app", "Boot the emulator", "Install the fixture app",
             "Run the device tests", "Run the examples", "Run the doctor", "Bench ours beside uiautomator2"]
    assert [names.index(n) for n in order] == sorted(names.index(n) for n in order)
    assert str(APK_OUTPUT) in step("Install the fixture app")["run"]


def test_every_action_is_pinned_and_the_results_are_uploaded_pass_or_fail() -> None:
    uses = [s["uses"] for s in steps() if "uses" in s]
    assert all(re.fullmatch(r"[\w-]+/[\w/-]+@v\d+", u) for u in uses), uses
    assert {u.split("@")[0] for u in uses} == {"actions/checkout", "actions/setup-python", "actions/setup-java",
                                               "android-actions/setup-android", "gradle/actions/setup-gradle",
                                               "actions/upload-artifact"}
    (upload,) = [s for s in steps() if s.get("uses", "").startswith("actions/upload-artifact")]
    assert upload["if"] == "always()" and upload["with"]["path"] == "${{ runner.temp }}/results/"
    assert upload["with"]["name"] == "device-results-api-${{ matrix.api }}"
    assert "artifact `device-results-api-NN`" in readme_table()["results"]
    for name in ("Run the examples", "Run the doctor", "Bench ours beside uiautomator2"):
        assert step(name)["if"] == "${{ !cancelled() }}", "runs after an earlier suite failed"
    assert step("Stop the emulator")["if"] == "always()"


def test_every_run_script_is_valid_bash() -> None:
    for each in steps():
        if "run" in each:
            script = re.sub(r"\$\{\{[^}]*\}\}", "x", each["run"])
            checked = subprocess.run(["bash", "-n", "-c", script], capture_output=True, text=True, timeout=30)
            assert checked.returncode == 0, f"{each['name']}: {checked.stderr}"


# --- run: the steps with a fake SDK whose emulator is the virtual device ------------------------------


@dataclass(frozen=True)
class DeviceRun:
    tree: Path
    runner_temp: Path
    tools: Path
    env: dict[str, str]
    outputs: dict[str, dict[str, Any]]  # step name -> status, stdout, stderr

    @property
    def results(self) -> Path:
        return self.runner_temp / "results"

    @property
    def sdk(self) -> Path:
        return self.runner_temp / "android-sdk"


def _environment(root: Path, runner_temp: Path, bin_dirs: list[Path]) -> dict[str, str]:
    """A runner's environment, the job's `env` for its API 36 entry, an adb server port of its own."""
    drop = ("MOBILE_AGENT_", "ANDROID_", "JAVA_HOME", "PYTEST_", "VIRTUAL_ENV", "PYTHONPATH", "TOX_", "XDG_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    for key, value in the_job()["env"].items():
        env[key] = str(value).replace("${{ matrix.api }}", str(VIRTUAL_API))
    env.update(PATH=os.pathsep.join([*map(str, bin_dirs), env.get("PATH", "")]), CI="true",
               RUNNER_TEMP=str(runner_temp), GITHUB_ENV=str(runner_temp / "github_env"),
               GITHUB_PATH=str(runner_temp / "github_path"), HOME=str(root / "home"),
               XDG_CACHE_HOME=str(root / "cache"), ANDROID_ADB_SERVER_PORT=str(free_port()),
               MOBILE_AGENT_AVD_DISCOVERY_DIR=str(root / "discovery"), MOBILE_AGENT_LOCK_DIR=str(root / "locks"),
               PYTHONPATH=str(root / "tree"), PYTEST_ADDOPTS=f"-p no:randomly -k '{RUN_HERE_ONLY}'")
    for directory in ("home", "cache", "discovery", "locks"):
        (root / directory).mkdir(exist_ok=True)
    return env


def _github_files(env: dict[str, str], runner_temp: Path, base_path: str) -> None:
    """What the steps appended to GITHUB_ENV and GITHUB_PATH, for the steps after them."""
    listed = runner_temp / "github_env"
    if listed.exists():
        env.update(dict(line.split("=", 1) for line in listed.read_text().splitlines() if "=" in line))
    paths = runner_temp / "github_path"
    if paths.exists():
        env["PATH"] = os.pathsep.join([*reversed(paths.read_text().split()), base_path])


def run_steps(root: Path) -> DeviceRun:
    jar_tool, adb = shutil.which("jar"), shutil.which("adb")
    if jar_tool is None or adb is None:
        pytest.skip("needs the JDK's jar tool (build.sh) and Debian's adb (the fake platform-tools): "
                    "sudo bash .ci/system-deps")
    tree = copy_tree(root / "tree")
    runner_temp, tools = root / "runner", root / "tools"
    runner_temp.mkdir()
    make_tools(tools)
    jdk = make_jdk(root / "jdk")
    (jdk / "bin" / "jar").symlink_to(jar_tool)
    env = _environment(root, runner_temp, [tools, jdk / "bin", Path(sys.executable).parent])
    base_path = env["PATH"]
    outputs: dict[str, dict[str, Any]] = {}
    failed = False
    try:
        for each in steps():
            if "uses" in each or each["name"] in NOT_RUN_HERE:
                continue
            if failed and each.get("if") != "always()":
                continue
            done = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-c", each["run"]], cwd=tree, env=env,
                                  capture_output=True, text=True, timeout=900, check=False)
            outputs[each["name"]] = {"status": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
            failed = failed or done.returncode != 0
            _github_files(env, runner_temp, base_path)
    finally:
        _stop_the_emulator(env)
    return DeviceRun(tree, runner_temp, tools, env, outputs)


def _stop_the_emulator(env: dict[str, str]) -> None:
    """The fake emulator the run started, if a step left it running (by the pid the workflow kept)."""
    pid = env.get("EMULATOR_PID")
    if pid:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)


@pytest.fixture(scope="module")
def device_run(tmp_path_factory: pytest.TempPathFactory) -> DeviceRun:
    return run_steps(tmp_path_factory.mktemp("device-workflow"))


def test_every_step_runs_here_or_says_why_not_and_every_one_that_ran_passed(device_run: DeviceRun) -> None:
    runs = [s["name"] for s in steps() if "run" in s]
    assert set(NOT_RUN_HERE) <= set(runs)
    assert list(device_run.outputs) == [name for name in runs if name not in NOT_RUN_HERE]
    for name, output in device_run.outputs.items():
        assert output["status"] == 0, f"{name}:\n{output['stdout'][-3000:]}\n{output['stderr'][-3000:]}"


def test_the_sdk_holds_the_pins_and_the_image_and_the_emulator_ran_with_the_controllers_flags(
        device_run: DeviceRun) -> None:
    pins, sdk = build_env(), device_run.sdk
    _, install = calls(device_run.tools / "sdkmanager")
    assert install == [f"--sdk_root={sdk}", "--install", f"build-tools;{pins['RELEASE_BUILD_TOOLS']}",
                       f"platforms;{pins['RELEASE_PLATFORM']}", "platform-tools", "emulator", "cmdline-tools;latest",
                       f"system-images;android-{VIRTUAL_API};google_apis;x86_64"]
    (avd,) = calls(sdk / "cmdline-tools" / "latest" / "bin" / "avdmanager")
    assert avd[avd.index("--package") + 1] == f"system-images;android-{VIRTUAL_API};google_apis;x86_64"
    (emulator,) = calls(sdk / "emulator" / "emulator")
    assert emulator == [w.replace("$API", str(VIRTUAL_API)) for w in emulator_command()]
    (d8,) = calls(sdk / "build-tools" / pins["RELEASE_BUILD_TOOLS"] / "d8")
    assert d8[d8.index("--lib") + 1] == str(sdk / "platforms" / pins["RELEASE_PLATFORM"] / "android.jar")
    assert controller_port(device_run) > 0


def controller_port(device_run: DeviceRun) -> int:
    """The port the fake emulator's controller took: `-grpc 8554`'s, or a free one where another
    process on this shared machine has 8554 (the controller double's rule)."""
    said = re.search(r"emulator-5554: emulator controller on 127\.0\.0\.1:(\d+) \(with a token",
                     (device_run.results / "emulator.log").read_text())
    assert said is not None, "the fake emulator started no controller for -grpc"
    return int(said[1])


def test_the_fixture_app_built_from_fixture_app_is_the_one_installed(device_run: DeviceRun) -> None:
    (gradle,) = calls(device_run.tools / "gradle")
    assert gradle[:3] == ["-p", "fixture-app", "assembleDebug"]
    assert (device_run.tree / "fixture-app" / APK_OUTPUT).is_file()
    assert "Success" in device_run.outputs["Install the fixture app"]["stdout"]


def test_the_suites_ran_against_emulator_5554_with_the_host_gates_off_and_wrote_their_junit(
        device_run: DeviceRun) -> None:
    chosen = {"device-tests": {"test_shell_round_trip", "test_a_toast_the_app_shows_is_waited_for_and_listed",
                               "test_with_the_controller_taps_and_frames_use_it_and_the_status_names_the_fast_path"},
              "examples": {"test_signing_in_greets_the_user_and_updates_the_status"}}
    for suite, wanted in chosen.items():
        junit = ET.parse(device_run.results / f"junit-{suite}.xml").getroot()
        cases = {case.get("name", "").split("[")[0]: case for case in junit.iter("testcase")}
        assert set(cases) == wanted, suite
        assert not [c for c in cases.values() if c.find("failure") is not None or c.find("skipped") is not None]
    junit = ET.parse(device_run.results / "junit-device-tests.xml").getroot()
    (round_trip,) = [case for case in junit.iter("testcase") if case.get("name") == "test_shell_round_trip"]
    said = round_trip.findtext("system-out") or ""
    assert "host gates off (MOBILE_AGENT_HOST_GATES=off), not asserted" in said, "the gate printed its figure"


def test_the_doctor_wrote_its_report_and_the_bench_its_figures_into_the_uploaded_directory(
        device_run: DeviceRun) -> None:
    report = json.loads((device_run.results / f"doctor-api-{VIRTUAL_API}.json").read_text())
    assert report["serial"] == "emulator-5554" and report["ok"] is True and report["device"]["api"] == VIRTUAL_API
    by = {c["check"]: c for c in report["checks"]}
    assert by["agent jar"]["detail"].startswith(str(device_run.runner_temp / "agent" / "mobile-agent-android.jar"))
    assert by["controller"]["detail"].startswith(f"http://127.0.0.1:{controller_port(device_run)}: a ")
    bench = json.loads((device_run.results / f"bench-api-{VIRTUAL_API}.json").read_text())
    assert set(bench["ours"]) == {"full tree read, Big tab", "tap to the next screen's tree", "typing unicode text"}
    assert all(figures["n"] == 20 for figures in bench["ours"].values())
    assert bench["theirs"] is None and bench["theirs_skipped"].startswith("uiautomator2 cannot reach the virtual")
    assert (device_run.results / "logcat.txt").stat().st_size > 0
