"""Every code block of README.md runs (issue 28 item 1), or, where it cannot run here, is checked.

* Python blocks (found by pytest-examples) are linted by ruff through pytest-examples, and together
  they are a test suite (`# conftest.py`, `# test_app.py`, and each unnamed block a test file of its
  own) that passes as README's `pytest --android-serial virtual` runs it, every test of it, none
  skipped; the shell blocks' run leaves that line to this test.
* Shell blocks run line by line in a project made of those files, with the app under test's APK at
  `build/app-debug.apk` (the fixture app's package, which the virtual device shows with its UI) and a
  virtual device served as `emulator-5554` on the default adb server, so a line naming that serial
  runs as it would against an emulator. A line marked `not run in CI` (a device farm, a package
  index, an SDK) is parsed by bash, and the pytest and command-line options it names must exist; a
  line .ci/run runs verbatim is CI's own; a line marked `until Ctrl-C` is a server, interrupted when
  its block is done, which must then exit 0.

tests/docs/readme_blocks.py reads the blocks; a block of another language fails here until this
test knows how to run it.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from pytest_examples import CodeExample, EvalExample

from pytest_mobile_agent.stack.virtual_lab import DISCOVERY_ENV
from tests.docs.readme_blocks import (
    REPO,
    Block,
    Command,
    blocks,
    commands,
    count_tests,
    file_name,
    python_examples,
)
from tests.support.apks import fixture_apk, write
from tests.support.inner_runs import INNER_RUNS_SKIP

pytest_plugins = ["pytester"]

LANGUAGES = {"python", "sh"}
COMMAND_TIMEOUT = 600.0
SERVER_READY_TIMEOUT = 120.0
CI_RUN = (REPO / ".ci" / "run").read_text()
SHELL_BLOCKS = [block for block in blocks() if block.language == "sh"]
SUITE_COMMAND = "pytest --android-serial virtual"
"""README's line that runs its Python blocks as a suite on the virtual device: the suite's test below
runs it and asserts that every test passed, so the shell block's run leaves it to that test."""


# --- the blocks, and their languages ------------------------------------------------------------------


def test_every_block_is_one_this_test_runs() -> None:
    found = blocks()
    assert found, "README.md has code blocks"
    strangers = [f"{block.where}: ```{block.language}" for block in found if block.language not in LANGUAGES]
    assert not strangers, f"blocks of a language tests/docs/test_readme.py does not run: {strangers}"
    python = sorted(block.line for block in found if block.language == "python")
    assert python == sorted(example.start_line for example in python_examples()), \
        "pytest-examples finds the same Python blocks as the fences"


@pytest.mark.parametrize("example", python_examples(), ids=str)
def test_a_python_block_passes_ruff(example: CodeExample, eval_example: EvalExample) -> None:
    eval_example.set_config(ruff_line_length=120, ruff_select=["E", "F", "W", "B", "UP", "SIM"],
                            target_version="py310")
    eval_example.lint_ruff(example)


# --- the Python blocks: a test suite on the virtual device ---------------------------------------------


def readme_project(directory: Path) -> int:
    """README's Python blocks written as the files they are, and `build/app-debug.apk`; returns how
    many test functions the files pytest collects on its own (`test_*.py`) define. A block named
    otherwise (`two_phones.py`, which needs two devices) is run by the shell line that names it."""
    tests = 0
    for example in python_examples():
        path = directory / file_name(example)
        assert not path.exists(), f"two README blocks are {path.name}"
        path.write_text(example.source)
        if path.name.startswith("test_"):
            tests += count_tests(example.source)
    (directory / "build").mkdir(exist_ok=True)
    write(directory / "build" / "app-debug.apk", fixture_apk(2))
    return tests


def test_readmes_python_blocks_pass_as_a_suite_on_the_virtual_device(pytester: pytest.Pytester,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    assert SUITE_COMMAND in [command.text for block in SHELL_BLOCKS for command in commands(block)]
    for name in ("MOBILE_AGENT_ANDROID_SERIAL", "MOBILE_AGENT_RECORDS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MOBILE_AGENT_APP_APK", "build/app-debug.apk")  # as the shell blocks' sandbox has it
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(pytester.path / "cache"))
    tests = readme_project(pytester.path)
    assert tests >= 3, "README shows a test file and an app's suite"
    result = pytester.runpytest_subprocess(*SUITE_COMMAND.split()[1:])
    result.assert_outcomes(passed=tests)


# --- the shell blocks -----------------------------------------------------------------------------------


@dataclass
class Sandbox:
    """A user's project made of README's files, with a virtual device served as the default adb
    server's emulator-5554 (its emulator controller double found as an emulator's is), and the
    environment a user's shell would have."""

    directory: Path
    env: dict[str, str]
    servers: list[subprocess.Popen[str]] = field(default_factory=list)

    def run(self, command: Command, extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", command.text], cwd=self.directory, env={**self.env, **extra},
                              capture_output=True, text=True, timeout=COMMAND_TIMEOUT, check=False)

    def serve(self, command: Command, extra: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
        with _interruptible_children():
            server = subprocess.Popen(["bash", "-c", f"exec {command.text}"], cwd=self.directory,
                                      env={**self.env, **extra}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True, start_new_session=True)
        self.servers.append(server)
        return server, _ready_output(server)

    def stop_servers(self) -> list[str]:
        """Interrupt each server (Ctrl-C); what went wrong, if anything."""
        problems = []
        for server in self.servers:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGINT)
            try:
                code = server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                code = server.wait()
                problems.append(f"{server.args[-1]} did not stop on Ctrl-C")
            if code != 0:
                problems.append(f"{server.args[-1]} exited {code} on Ctrl-C")
        self.servers.clear()
        return problems


@contextlib.contextmanager
def _interruptible_children() -> Iterator[None]:
    """A server started here takes Ctrl-C as it does from a user's terminal, even when this run was
    started with SIGINT ignored (a background job: `cmd &` in a script), which children would inherit
    and Python would then honour. A handled signal is reset to its default across exec."""
    in_main_thread = threading.current_thread() is threading.main_thread()
    ignored = in_main_thread and signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def _ready_output(server: subprocess.Popen[str]) -> str:
    """What a server printed once it has printed and then gone quiet for a second."""
    output = server.stdout
    assert output is not None
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(output.readline, "")), daemon=True)
    reader.start()
    deadline = time.monotonic() + SERVER_READY_TIMEOUT
    seen, quiet_since = 0, time.monotonic()
    while time.monotonic() < deadline:
        if server.poll() is not None:
            reader.join(5)
            raise AssertionError(f"{server.args[-1]} exited {server.returncode} at once: {''.join(lines)}")
        if len(lines) != seen:
            seen, quiet_since = len(lines), time.monotonic()
        elif seen and time.monotonic() - quiet_since > 1.0:
            return "".join(lines)
        time.sleep(0.05)
    raise AssertionError(f"{server.args[-1]} printed nothing within {SERVER_READY_TIMEOUT:.0f} s")


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    from pytest_mobile_agent.stack.virtual_lab import start_lab

    directory = tmp_path_factory.mktemp("readme-project")
    readme_project(directory)
    home = tmp_path_factory.mktemp("readme-home")  # its own: the module's sandbox may be made twice in a worker
    saved_discovery = os.environ.get(DISCOVERY_ENV)
    lab = start_lab(1, real_adb=False, controllers=True)  # sets DISCOVERY_ENV in this process
    try:
        env = {key: value for key, value in os.environ.items()
               # a user's shell has no tox in it: under tox, pytest keeps its cache in $TOX_ENV_DIR
               if not key.startswith(("MOBILE_AGENT_", "PYTEST_", "ANDROID_", "ADB_", "VIRTUAL_ENV", "TOX_"))}
        env.update({
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
            "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"),
            "ANDROID_ADB_SERVER_PORT": str(lab.lab.adb_port),
            DISCOVERY_ENV: os.environ[DISCOVERY_ENV],
            "MOBILE_AGENT_LOCK_DIR": str(directory.parent / "locks"),
            "MOBILE_AGENT_APP_APK": "build/app-debug.apk",
            "PYTEST_ADDOPTS": " ".join(INNER_RUNS_SKIP),  # the dev env's plugins a user's project has not
        })
        yield Sandbox(directory, env)
    finally:
        lab.stop()
        if saved_discovery is not None:
            os.environ[DISCOVERY_ENV] = saved_discovery


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=lambda block: block.where)
def test_a_shell_block_parses(block: Block) -> None:
    checked = subprocess.run(["bash", "-n"], input=block.source, capture_output=True, text=True, check=False)
    assert checked.returncode == 0, f"{block.where}: {checked.stderr}"


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=lambda block: block.where)
def test_a_shell_block_runs_or_names_only_real_options(block: Block, sandbox: Sandbox) -> None:
    extra: dict[str, str] = {}
    earlier: list[str] = []  # what the block's earlier lines printed, for a later line's failure
    try:
        for command in commands(block):
            if command.text in CI_RUN or command.text == SUITE_COMMAND:
                continue  # .ci/run runs it, as README says; or the suite's test above does
            try:
                _run_one(command, sandbox, extra, earlier)
            except AssertionError as failure:
                raise AssertionError("\n".join([str(failure), *earlier])) from None
    finally:
        problems = sandbox.stop_servers()
    assert not problems, problems


def _run_one(command: Command, sandbox: Sandbox, extra: dict[str, str], earlier: list[str]) -> None:
    if command.not_run:
        _check_options(command, sandbox)
    elif command.server:
        server, printed = sandbox.serve(command, extra)
        extra.update(_what_it_serves(command, printed, sandbox.directory))
    else:
        done = sandbox.run(command, extra)
        printed = f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
        assert done.returncode == 0, f"README.md:{command.line}: `{command.text}` exited {done.returncode}\n{printed}"
        earlier.append(f"--- before it, README.md:{command.line}: `{command.text}` printed:\n{printed}")


def _what_it_serves(command: Command, printed: str, directory: Path) -> dict[str, str]:
    """A served adb server's port as PORT for the block's later lines, which see no emulator controller
    (the sandbox's double is another device's, of the same AVD name); a served page answers."""
    found: dict[str, str] = {}
    port = re.search(r"adb server: 127\.0\.0\.1:(\d+)", printed)
    if port:
        found["PORT"] = port[1]
        found[DISCOVERY_ENV] = tempfile.mkdtemp(prefix="readme-no-emulators-", dir=directory)  # the test's own
    url = re.search(r"https?://127\.0\.0\.1:\d+/\S*", printed)
    if url:
        with urllib.request.urlopen(url[0], timeout=30) as page:  # noqa: S310 - our own loopback server
            assert page.status == 200, f"README.md:{command.line}: {url[0]} answered {page.status}"
    assert found or url, f"README.md:{command.line}: the server printed no port or URL: {printed}"
    return found


_HELP: dict[tuple[str, ...], str] = {}


def _help(argv: tuple[str, ...], sandbox: Sandbox) -> str:
    if argv not in _HELP:
        done = subprocess.run([*argv, "--help"], cwd=sandbox.directory, env=sandbox.env, capture_output=True,
                              text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        _HELP[argv] = done.stdout
    return _HELP[argv]


def _check_options(command: Command, sandbox: Sandbox) -> None:
    """Every option a command names that pytest or our command line knows exists there."""
    words = command.words()
    while words and "=" in words[0] and not words[0].startswith("-"):
        words = words[1:]  # VAR=value before the command
    if not words:
        return
    if words[0] == "pytest":
        argv: tuple[str, ...] = (sys.executable, "-m", "pytest")
    elif words[:3] == ["python", "-m", "pytest_mobile_agent"] and len(words) > 3:
        argv = (sys.executable, "-m", "pytest_mobile_agent", words[3])
        if words[3] == "agent" and len(words) > 4:
            argv = (*argv, words[4])
    else:
        return  # bootstrap.py, pip: tools of their own
    known = _help(argv, sandbox)
    for word in words:
        option = word.split("=", 1)[0]
        if option.startswith("-") and option != "-":
            assert re.search(rf"(^|[\s,]){re.escape(option)}([\s,=]|$)", known, re.M), \
                f"README.md:{command.line}: `{' '.join(argv[2:])}` has no option {option}"
