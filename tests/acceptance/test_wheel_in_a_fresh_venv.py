"""An app team's suite, end to end: the wheel built once, installed into a fresh venv, and a one-file
app suite in a temp dir run against (a) `virtual`, (b) a served virtual device by serial with no jar
named, (c) a device that does not say it is virtual, with a fake SDK: the agent built on first use,
the cached jar reused on the second run. Each run installs the app's APK through `app`.

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
from tests.acceptance.support import copy_tree, run, shared_dir
from tests.support.apks import fixture_apk, write
from tests.support.fake_sdk import calls, make_jdk, make_sdk

pytestmark = pytest.mark.acceptance

APP_SUITE = '''
import pytest


def test_signing_in_greets_the_user(compose_fixture, screen):
    compose_fixture(tab="Login")
    screen.find(id="username").type_text("ada")
    screen.find(id="password").type_text("correct horse")
    screen.find(text="Login", class_name="android.widget.Button").tap()
    assert screen.wait_for(id="alert_message", timeout=5).text == "Welcome, ada"


@pytest.mark.app(permissions=["android.permission.CAMERA"])
def test_the_app_under_test_is_installed_and_starts_on_a_tab(app, screen, device):
    assert device.package_version(app.package).code == 2, "our APK, not the image's"
    app.start(extras={"tab": "List"})
    assert screen.wait_for(text="Item 1", timeout=10)
'''


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
    done = run([str(root / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", str(wheel)], timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An app team's project: one test file and the app's APK (the fixture app, versionCode 2)."""
    root = tmp_path / "app-project"
    root.mkdir()
    (root / "test_app.py").write_text(APP_SUITE)
    write(root / "app.apk", fixture_apk(2))
    return root


def user_environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A user with no SDK, no jar named, and a home and caches of their own."""
    drop = ("MOBILE_AGENT_", "ANDROID_", "JAVA_HOME", "PYTEST_", "VIRTUAL_ENV", "PYTHONPATH", "TOX_", "XDG_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "cache"),
               MOBILE_AGENT_LOCK_DIR=str(tmp_path / "locks"), **extra)
    return env


def pytest_in(venv: Path, project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run([str(venv / "bin" / "pytest"), "-p", "no:cacheprovider", "-q", "-rA", "--app-apk=app.apk", *args],
               cwd=project, env=env, timeout=300)


def test_the_wheel_carries_the_agents_sources_and_its_build_definition(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    inside = "pytest_mobile_agent/agent/agent-android/"
    for name in ("build.env", "build.sh", "VERSION", "Version.java.in", "src/dev/mobileagent/agent/Main.java"):
        assert inside + name in names, name
    assert not any("/dist/" in n or n.endswith(".class") for n in names), "no build output"


def test_the_sdist_carries_agent_android_at_the_top(tmp_path: Path) -> None:
    tree = copy_tree(tmp_path / "tree")
    done = run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path / "sdist")], cwd=tree, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (archive,) = (tmp_path / "sdist").glob("*.tar.gz")
    with tarfile.open(archive) as sdist:
        names = sdist.getnames()
    top = names[0].split("/", 1)[0]
    for name in ("agent-android/build.env", "agent-android/build.sh", "agent-android/src/dev/mobileagent/agent/Main.java",
                 "setup.py", "MANIFEST.in"):
        assert f"{top}/{name}" in names, name


def test_a_on_the_virtual_device(venv: Path, project: Path, tmp_path: Path) -> None:
    done = pytest_in(venv, project, user_environment(tmp_path), "--android-serial", "virtual")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout


@pytest.fixture
def served(venv: Path, tmp_path: Path) -> Iterator[int]:
    """README's recipe: `python -m pytest_mobile_agent.virtual` from the venv; its adb port."""
    server = subprocess.Popen([str(venv / "bin" / "python"), "-m", "pytest_mobile_agent.virtual"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=user_environment(tmp_path))
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


def test_b_on_a_served_virtual_device_by_serial_with_no_jar(venv: Path, project: Path, served: int, tmp_path: Path) -> None:
    env = user_environment(tmp_path, ANDROID_ADB_SERVER_PORT=str(served))
    done = pytest_in(venv, project, env, "--android-serial", "emulator-5554")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout
    assert "built the agent jar" not in done.stdout, "the served virtual device runs the stand-in"


@pytest.fixture
def unmarked_device() -> Iterator[VirtualLab]:
    """A virtual device served from this process that does not say it is virtual, as a real one
    would not: the plugin must deploy a real build of the agent to it."""
    from pytest_mobile_agent.adb.wire import VIRTUAL_DEVICE_PROPERTY

    lab = VirtualLab.start(1)
    lab.device(lab.serials[0]).properties.pop(VIRTUAL_DEVICE_PROPERTY)
    try:
        yield lab
    finally:
        lab.stop()


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
