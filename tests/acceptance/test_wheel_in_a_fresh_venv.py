"""An app team's suite, end to end: the wheel built once, installed into a fresh venv, and a one-file
app suite in a temp dir run against (a) `virtual`, (b) a served virtual device by serial with no jar
named, (c) a device that does not say it is virtual, with a fake SDK: this wheel bundles no jar (only
the release build stages one: test_release_workflow.py), so the agent is built on first use and the
cached jar reused on the second run. Each run installs the app's APK through `app`.

Costly: the wheel build and the venv's install take about 20 s with pip's cache warm (longer cold:
grpcio, numpy and Pillow come from the package index); each suite run a few seconds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent.virtual import VirtualLab
from tests.acceptance.support import copy_tree, pytest_in, run, shared_dir, user_environment
from tests.support.fake_sdk import calls, make_jdk, make_sdk

pytestmark = pytest.mark.acceptance


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built once per session from a copy of the source tree (xdist workers share it)."""
    # This session's own temp root: under xdist each worker's basetemp is a directory of it; without
    # xdist the basetemp is the root itself (its parent is shared by every session of this user).
    basetemp = tmp_path_factory.getbasetemp()
    base = basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp
    directory, lock = shared_dir(base, "acceptance-wheel")
    with lock:
        built = sorted(directory.glob("*.whl"))
        if built:
            return built[0]
        tree = copy_tree(tmp_path_factory.mktemp("tree"))
        done = run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(directory), str(tree)],
                   timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        return next(directory.glob("*.whl"))


@pytest.fixture(scope="session")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed (its dependencies from pip's cache or the index)."""
    root = tmp_path_factory.mktemp("venv")
    assert run([sys.executable, "-m", "venv", str(root)], timeout=300).returncode == 0
    # --no-compile: the interpreter writes bytecode for what it imports; compiling every file of every
    # dependency up front tests nothing here and cost 8 s of CPU of this install's 19 s (18.4 against
    # 10.6 s of user CPU, 2026-12-06)
    done = run(
        [str(root / "bin" / "pip"), "install", "--quiet", "--no-compile", "--disable-pip-version-check", str(wheel)],
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return root


def test_the_wheel_carries_the_agents_sources_and_its_build_definition(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    inside = "pytest_mobile_agent/agent/agent-android/"
    for name in ("build.env", "build.sh", "VERSION", "Version.java.in", "src/dev/mobileagent/agent/Main.java"):
        assert inside + name in names, name
    assert not any("/dist/" in n or n.endswith(".class") for n in names), "no build output"
    assert not any("agent/prebuilt/" in n for n in names), "no jar: only the release build stages one"


def test_the_sdist_carries_agent_android_at_the_top(tmp_path: Path) -> None:
    tree = copy_tree(tmp_path / "tree")
    done = run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path / "sdist")], cwd=tree, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (archive,) = (tmp_path / "sdist").glob("*.tar.gz")
    with tarfile.open(archive) as sdist:
        names = sdist.getnames()
    top = names[0].split("/", 1)[0]
    for name in (
        "agent-android/build.env",
        "agent-android/build.sh",
        "agent-android/src/dev/mobileagent/agent/Main.java",
        "setup.py",
        "MANIFEST.in",
    ):
        assert f"{top}/{name}" in names, name


def test_a_on_the_virtual_device(venv: Path, project: Path, tmp_path: Path) -> None:
    done = pytest_in(venv, project, user_environment(tmp_path), "--android-serial", "virtual")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout


@pytest.fixture
def served(venv: Path, tmp_path: Path) -> Iterator[int]:
    """README's recipe: `python -m pytest_mobile_agent.virtual` from the venv; its adb port."""
    server = subprocess.Popen(
        [str(venv / "bin" / "python"), "-m", "pytest_mobile_agent.virtual"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=user_environment(tmp_path),
    )
    try:
        port = None
        assert server.stdout is not None
        for line in server.stdout:
            if line.strip().startswith("export ANDROID_ADB_SERVER_PORT="):
                port = int(line.split("=", 1)[1])
            if "serving until interrupted" in line:
                break
        assert port is not None, server.stderr.read() if server.stderr else "no output"
        yield port
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def test_b_on_a_served_virtual_device_by_serial_with_no_jar(
    venv: Path, project: Path, served: int, tmp_path: Path
) -> None:
    env = user_environment(tmp_path, ANDROID_ADB_SERVER_PORT=str(served))
    done = pytest_in(venv, project, env, "--android-serial", "emulator-5554")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout
    assert "built the agent jar" not in done.stdout, "the served virtual device runs the stand-in"


def test_c_with_an_sdk_the_agent_is_built_on_first_use_and_reused(venv: Path, project: Path, tmp_path: Path,
                                                                  unmarked_device: VirtualLab) -> None:
    sdk = make_sdk(tmp_path / "sdk")
    jdk = make_jdk(tmp_path / "jdk")
    env = user_environment(tmp_path, ANDROID_ADB_SERVER_PORT=str(unmarked_device.adb_port), ANDROID_HOME=str(sdk),
                           JAVA_HOME=str(jdk))
    first = pytest_in(venv, project, env, "--android-serial", unmarked_device.serials[0])
    assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-2000:]
    cache = tmp_path / "cache" / "pytest-mobile-agent" / "agent"
    (jar,) = cache.glob("*/mobile-agent-android.jar")
    assert f"built the agent jar: {jar}" in first.stdout, "it says where it put the jar"
    assert len(calls(sdk / "build-tools" / "36.0.0" / "d8")) == 1
    second = pytest_in(venv, project, env, "--android-serial", unmarked_device.serials[0])
    assert second.returncode == 0, second.stdout[-4000:] + second.stderr[-2000:]
    assert "built the agent jar" not in second.stdout
    assert len(calls(sdk / "build-tools" / "36.0.0" / "d8")) == 1, "the second run reused the cached jar"
    command = run([str(venv / "bin" / "python"), "-m", "pytest_mobile_agent", "agent", "build"], env=env, timeout=120,
                  cwd=project)  # not the checkout, whose pytest_mobile_agent `-m` would import first
    assert command.returncode == 0 and command.stdout.strip() == str(jar), command.stderr
