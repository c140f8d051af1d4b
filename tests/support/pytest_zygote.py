"""Inner pytest runs forked from a warmed interpreter (a zygote) rather than started afresh.

`pytester.runpytest_subprocess` starts a new interpreter per inner run, which then imports pytest,
every installed plugin and this package before it runs anything: about 1.3 s of CPU a run, and the
suite makes some hundreds. A zygote is one process per xdist worker that has imported all of it
once, the way pytest would (through pytest's assertion-rewriting import hook), and then forks a
child per run. The child is a process of its own, as a subprocess is: its own working directory,
environment, `sys.path` (the run's directory first, then PYTHONPATH, as `python -m pytest` has it),
standard streams (files, read back as pytester reads a subprocess's), exit status and interpreter
exit (atexit handlers and thread joins run). Only the imports are shared.

The zygote stays single-threaded, so forking it is safe; it has opened no socket, channel or
device before a fork. A test that must see a fresh interpreter (what importing the plugin loads,
say) asks for `@pytest.mark.fresh_interpreter` and gets pytester's own subprocess.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from pytest import ExitCode

REPO = Path(__file__).resolve().parents[2]
READY = b"zygote ready\n"
WARM_UP_CONFTEST = """\
import pytest_mobile_agent.cli.main
import pytest_mobile_agent.plugin.fixtures
import pytest_mobile_agent.virtual.lab
import pytest_mobile_agent.stack.virtual_lab
"""
"""What a device run imports beyond the plugin itself, imported by the warm-up under pytest's
assertion-rewriting hook, as the plugin's own modules are in a real run."""

_BASE_ENV = dict(os.environ)
"""The worker's environment as it started, before any test changed it: the zygote's own."""


# --- the zygote's side ------------------------------------------------------------------------------


def serve(control_fd: int) -> dict[str, Any]:
    """Warm up, then fork a child per request until the client goes; returns only in a child, with
    the request that child runs."""
    _warm_up()
    control = socket.socket(fileno=control_fd)
    control.setblocking(False)
    selector = selectors.DefaultSelector()
    selector.register(control, selectors.EVENT_READ)
    children: dict[int, None] = {}
    buffer = b""
    os.write(1, READY)
    while True:
        for key, _ in selector.select(timeout=0.02):
            data = control.recv(65536)
            if not data:  # the client is gone: so are its runs
                for pid in children:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                os._exit(0)
            buffer += data
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            request = json.loads(line)
            pid = os.fork()
            if pid == 0:
                selector.close()
                control.close()
                return request
            children[pid] = None
            control.sendall(json.dumps({"started": request["id"], "pid": pid}).encode() + b"\n")
        for pid in list(children):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                del children[pid]
                code = os.waitstatus_to_exitcode(status)
                control.sendall(json.dumps({"ended": pid, "code": code}).encode() + b"\n")


def _warm_up() -> None:
    """One collection in an empty project whose conftest imports the rest: the plugins load by their
    entry points under pytest's import hook, as each run would load them."""
    with tempfile.TemporaryDirectory(prefix="pytest-zygote-") as directory:
        Path(directory, "conftest.py").write_text(WARM_UP_CONFTEST)
        with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "--rootdir", directory, directory])
        sys.modules.pop("conftest", None)
    if threading.active_count() != 1:
        raise SystemExit(f"the warm-up left threads running: {threading.enumerate()}")


def run_child(request: dict[str, Any]) -> None:
    """In the forked child: become the run's process, then run pytest as `python -m pytest` does."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    python_path = [p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = [request["cwd"], *python_path, *request["site_path"]]
    sys.argv = [pytest.__file__, *request["args"]]
    raise SystemExit(pytest.console_main())


# --- the client's side ------------------------------------------------------------------------------


class Zygote:
    """A warmed interpreter for this process's inner runs, started at the first one."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        script = (
            "import sys; from tests.support.pytest_zygote import serve, run_child; "
            f"run_child(serve({theirs.fileno()}))"
        )
        env = {key: value for key, value in _BASE_ENV.items() if key != "PYTHONPATH"}
        env["PYTHONPATH"] = str(REPO)
        self._process = subprocess.Popen(
            [sys.executable, "-c", script], cwd=REPO, env=env, pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        theirs.close()
        assert self._process.stdout is not None
        ready = self._process.stdout.readline()
        if ready != READY:
            _, err = self._process.communicate(timeout=30)
            raise RuntimeError(f"the pytest zygote did not start: {ready!r} {err.decode(errors='replace')}")
        self._control = ours
        self._file = ours.makefile("rb")
        self._lock = threading.Lock()
        self._next_id = 0
        # the zygote's sys.path without PYTHONPATH's entries, which each run sets from its own environment
        self._site_path = [p for p in _site_path() if p != str(REPO)]

    def run(self, args: list[str], cwd: str, env: dict[str, str], stdout: Path, stderr: Path,
            timeout: float | None) -> int | None:
        """Run `pytest ARGS` in a child; its exit code (negative: the signal that ended it), or None
        when another thread's run is in flight (its caller then starts a subprocess)."""
        if not self._lock.acquire(blocking=False):
            return None
        try:
            self._next_id += 1
            request = {"id": self._next_id, "args": args, "cwd": cwd, "env": env, "stdout": str(stdout),
                       "stderr": str(stderr), "site_path": self._site_path}
            self._control.sendall(json.dumps(request).encode() + b"\n")
            started = json.loads(self._file.readline())
            pid = started["pid"]
            deadline = None if timeout is None else time.monotonic() + timeout
            while True:
                if deadline is not None:
                    self._control.settimeout(max(0.0, deadline - time.monotonic()))
                try:
                    line = self._file.readline()
                except TimeoutError:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                    self._control.settimeout(None)
                    self._file.readline()  # its end
                    raise
                finally:
                    self._control.settimeout(None)
                if not line:
                    raise RuntimeError("the pytest zygote went away during a run")
                message = json.loads(line)
                if message.get("ended") == pid:
                    return int(message["code"])
        finally:
            self._lock.release()

    def close(self) -> None:
        self._control.close()
        self._process.wait(timeout=30)


def _site_path() -> list[str]:
    """This interpreter's sys.path as a fresh `python -m pytest` would have it, minus the run's own
    directory and PYTHONPATH (each run adds its own)."""
    done = subprocess.run([sys.executable, "-c", "import sys, json; print(json.dumps(sys.path[1:]))"],
                          env={k: v for k, v in _BASE_ENV.items() if k != "PYTHONPATH"}, capture_output=True,
                          text=True, check=True)
    return list(json.loads(done.stdout))


_zygote: Zygote | None = None


def zygote() -> Zygote:
    global _zygote
    if _zygote is None:
        _zygote = Zygote()
    return _zygote


def runpytest_forked(pytester: pytest.Pytester, *args: str | os.PathLike[str],
                     timeout: float | None = None) -> pytest.RunResult:
    """`pytester.runpytest_subprocess`, its arguments and result the same, run in a zygote's child."""
    from _pytest.pathlib import make_numbered_dir

    __tracebackhide__ = True
    basetemp = make_numbered_dir(root=pytester.path, prefix="runpytest-", mode=0o700)
    argv: list[str] = [f"--basetemp={basetemp}", *map(str, args)]
    for plugin in pytester.plugins:
        if not isinstance(plugin, str):
            raise ValueError(f"plugins as objects cannot go to a child process: {plugin}")
        argv = ["-p", plugin, *argv]
    cwd = os.getcwd()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [cwd, env.get("PYTHONPATH", "")]))
    stdout, stderr = pytester.path / "stdout", pytester.path / "stderr"
    print("running: pytest (forked from a zygote)", *argv)
    print("     in:", cwd)
    started = time.monotonic()
    try:
        code = zygote().run(argv, cwd, env, stdout, stderr, timeout)
    except TimeoutError:
        raise pytester.TimeoutExpired(f"{timeout} second timeout expired running: pytest {argv}") from None
    if code is None:
        return _original_runpytest_subprocess(pytester, *args, timeout=timeout)
    duration = time.monotonic() - started
    out = stdout.read_text(encoding="utf8").splitlines()
    err = stderr.read_text(encoding="utf8").splitlines()
    print("\n".join(out))
    print("\n".join(err), file=sys.stderr)
    ret: int | ExitCode = code
    with contextlib.suppress(ValueError):
        ret = ExitCode(code)
    return pytest.RunResult(ret, out, err, duration)


_original_runpytest_subprocess = pytest.Pytester.runpytest_subprocess
