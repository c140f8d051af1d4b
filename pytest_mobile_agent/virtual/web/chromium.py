"""The host's chromium, started headless for one device process (see the package's docstring).

`Chromium.start(...)` runs the host's headless chromium (`chromium_binary()`) with a profile folder of
its own (virtual/web/profiles.py: reaped by the next start when its owner was killed), DevTools
on a free loopback port (`--remote-debugging-port=0`, read back from the profile's
`DevToolsActivePort` file) and on a pipe for the double's own client (`--remote-debugging-pipe`:
fds 3 and 4). The process leads a session of its own, so `stop()` kills it and its helpers (zygote,
GPU, network, renderers) by its pid's group, then removes the folder. It is tied to ours: a small
interpreter asks for SIGKILL when its parent thread ends (PR_SET_PDEATHSIG) and execs chromium in
its place, the parent thread being a keeper that lives until `stop()`. Chromium also ends on its
own when the DevTools pipe's far end closes, which the kernel does when our process dies; either
way a test process killed outright leaves no chromium running. No preexec_fn: subprocess then
starts the child with vfork, which runs no fork handler (grpc's among them: kernel/spawn.py says
why that matters).

Which chromium: Debian's `chromium-headless-shell` where it is installed, else its `chromium`
(`--headless=new`), or the one `MOBILE_AGENT_CHROMIUM` names. The headless shell is the same
Chromium release built on the content layer alone (//headless over //content), as Android's WebView
is (//android_webview over //content), without the desktop browser's //chrome layer; it is the
headless chromium Playwright runs. The shell started and rendered the web sign-in tests' ten pages
in 3.0 to 3.6 s of CPU against 13.4 to 15.5 s for `chromium --headless=new` (docs/performance.md).

Without either on the PATH, `ChromiumMissing` names the package to install.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.web.profiles import LOG_FILE, make_profile

log = logging.getLogger("pytest_mobile_agent.virtual")

PR_SET_PDEATHSIG = 1
START_TIMEOUT_S = 20.0
UNIX_PATH_MAX = 108  # sockaddr_un.sun_path on Linux, the terminating NUL included
INSTALL_ADVICE = "chromium is not installed (apt-get install chromium-headless-shell, or chromium)"
#: Debian's package puts the shell's binary here and a script on the PATH that runs it as a child, not
#: in its place; the binary itself keeps chromium the process `Chromium.start` started and can kill
DEBIAN_HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"

# In the child: ask for SIGKILL when the parent thread ends, check the parent is still us, put the
# pipe's two ends on fds 3 (chromium reads) and 4 (chromium writes), then exec chromium.
_TIED_EXEC = (
    "import ctypes, os, signal, sys; "
    f"ctypes.CDLL(None).prctl({PR_SET_PDEATHSIG}, signal.SIGKILL); "
    "os.getppid() == int(sys.argv[1]) or sys.exit(1); "
    "r, w = os.dup(int(sys.argv[2])), os.dup(int(sys.argv[3])); "
    "os.dup2(r, 3); os.dup2(w, 4); os.set_inheritable(3, True); os.set_inheritable(4, True); "
    "os.execv(sys.argv[4], sys.argv[4:])"
)


class ChromiumMissing(errors.MobileAgentError):
    """The host has no chromium: the virtual device cannot show web content."""


def chromium_binary() -> str | None:
    """The chromium the double runs: `MOBILE_AGENT_CHROMIUM`, else the headless shell, else
    `chromium` on the PATH (the module's docstring says why in that order)."""
    named = os.environ.get("MOBILE_AGENT_CHROMIUM")
    if named:
        return named if os.access(named, os.X_OK) else None
    if os.access(DEBIAN_HEADLESS_SHELL, os.X_OK):
        return DEBIAN_HEADLESS_SHELL
    return shutil.which("chromium-headless-shell") or shutil.which("chromium") or shutil.which("chromium-browser")


def require_chromium() -> str:
    binary = chromium_binary()
    if binary is None:
        raise ChromiumMissing(f"{INSTALL_ADVICE}: the virtual device renders WebViews and Chrome pages "
                              "with a headless chromium on this host")
    return binary


@dataclass(frozen=True)
class Window:
    """The area a page is laid out in: CSS pixels and the device's pixel ratio (each page gets
    its size through `Emulation.setDeviceMetricsOverride`, as a phone's viewport, and the ratio from
    chromium's own scale factor: virtual/web/page.py, `chromium_arguments`)."""

    width_css: int
    height_css: int
    scale: float


class Chromium:
    """One headless chromium process (see the module's docstring)."""

    def __init__(self, process: subprocess.Popen[bytes], release: threading.Event, profile: Path,
                 port: int, browser_path: str, pipe_in: int, pipe_out: int) -> None:
        self.process = process
        self._release = release
        self.profile = profile
        self.port = port
        #: the browser target's path on the DevTools port (`/devtools/browser/<guid>`)
        self.browser_path = browser_path
        #: the pipe's ends on our side: we write to pipe_in, read from pipe_out
        self.pipe_in = pipe_in
        self.pipe_out = pipe_out
        self._stopped = False

    @property
    def pid(self) -> int:
        return self.process.pid

    @classmethod
    def start(cls, user_agent: str, scale: float, *, label: str) -> Chromium:
        """`scale`: the device's pixel ratio, chromium's own (`--force-device-scale-factor`)."""
        binary = require_chromium()
        profile = make_profile()
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        argv = [sys.executable, "-S", "-I", "-c", _TIED_EXEC, str(os.getpid()), str(to_child_r), str(from_child_w),
                binary, *chromium_arguments(profile, user_agent, scale)]
        try:
            process, release = _spawn_tied(argv, pass_fds=(to_child_r, from_child_w), label=label,
                                           log_path=profile / LOG_FILE, env=temp_inside(profile))
        except BaseException:
            for fd in (to_child_r, to_child_w, from_child_r, from_child_w):
                os.close(fd)
            shutil.rmtree(profile, ignore_errors=True)
            raise
        os.close(to_child_r)
        os.close(from_child_w)
        chromium = cls(process, release, profile, 0, "", to_child_w, from_child_r)
        try:
            chromium.port, chromium.browser_path = _wait_for_port(process, profile, time.monotonic() + START_TIMEOUT_S)
        except BaseException:
            chromium.stop()
            raise
        log.debug("chromium %s for %s: DevTools on 127.0.0.1:%s", process.pid, label, chromium.port)
        return chromium

    def alive(self) -> bool:
        return not self._stopped and self.process.poll() is None

    def stop(self) -> None:
        """Kill chromium and its helpers by the process group its pid leads; remove its profile."""
        if self._stopped:
            return
        self._stopped = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5.0)
        _await_group_gone(self.process.pid, deadline=time.monotonic() + 5.0)
        self._release.set()
        for fd in (self.pipe_in, self.pipe_out):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)


def _await_group_gone(group: int, deadline: float) -> None:
    """Until no process of the group still runs (its helpers die a moment after the leader is
    reaped), or the deadline."""
    while live_processes_in_group(group) and time.monotonic() < deadline:
        time.sleep(0.01)


def live_processes_in_group(group: int) -> list[int]:
    """The pids of a process group that still run, from /proc (zombies excluded: a reaped orphan's
    entry lingers until the host's init collects it)."""
    live = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            live.append(int(entry))
    return live


def chromium_arguments(profile: Path, user_agent: str, scale: float) -> list[str]:
    """`--headless=new` is chromium's; the headless shell, headless always, takes it and ignores the
    mode. The device's pixel ratio is chromium's own scale factor, not an emulated one: with an
    emulated factor headless chromium maps input events to the page now in CSS pixels, now in
    device pixels (seen with chromium 156), so a tap would land elsewhere."""
    return [
        "--headless=new", "--no-sandbox", f"--user-data-dir={profile}", f"--force-device-scale-factor={scale}",
        "--remote-debugging-port=0", "--remote-debugging-pipe",
        "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-extensions", "--mute-audio",
        "--disable-features=Translate,MediaRouter,OptimizationHints",
        f"--user-agent={user_agent}",
        "about:blank",
    ]


def temp_inside(profile: Path) -> dict[str, str]:
    """Chromium's environment, its temp folder inside its profile: chromium makes its process
    singleton's socket folder there (`org.chromium.Chromium.XXXXXX`, base::CreateNewTempDirectory
    under TMPDIR), and a chromium killed never removes it, so each start left one in /tmp; the
    profile's removal now takes it. Where that path would make the socket's too long for a unix
    socket (108 bytes), the temp folder is left as it is."""
    temp = profile / "tmp"
    if len(str(temp)) + len("/org.chromium.Chromium.XXXXXX/SingletonSocket") >= UNIX_PATH_MAX:
        return dict(os.environ)
    temp.mkdir(mode=0o700, exist_ok=True)
    return {**os.environ, "TMPDIR": str(temp)}


def _spawn_tied(argv: list[str], *, pass_fds: tuple[int, ...], label: str, log_path: Path,
                env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], threading.Event]:
    """Popen on a keeper thread that lives until the returned event is set (PR_SET_PDEATHSIG
    follows the parent thread, not the process)."""
    started: dict[str, object] = {}
    ready = threading.Event()
    release = threading.Event()

    def keeper() -> None:
        try:
            with open(log_path, "wb") as log_file:
                started["process"] = subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file,
                    pass_fds=pass_fds, start_new_session=True, env=env)
        except BaseException as exc:  # handed to the caller
            started["error"] = exc
        ready.set()
        if "process" in started:
            release.wait()

    threading.Thread(target=keeper, name=f"virtual-chromium-keeper {label}", daemon=True).start()
    if not ready.wait(10.0):
        raise errors.Timeout("starting chromium", 10.0)
    if "error" in started:
        raise errors.MobileAgentError(f"cannot start chromium ({argv[4]}): {started['error']}")
    process = started["process"]
    assert isinstance(process, subprocess.Popen)
    return process, release


def _wait_for_port(process: subprocess.Popen[bytes], profile: Path, deadline: float) -> tuple[int, str]:
    """The DevTools port and browser path chromium writes to `DevToolsActivePort` once listening."""
    port_file = profile / "DevToolsActivePort"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = _tail(profile / LOG_FILE)
            raise errors.MobileAgentError(f"chromium exited with status {process.returncode} before serving "
                                          f"DevTools: {tail or 'it printed nothing'}; run `chromium "
                                          "--headless=new --no-sandbox about:blank` to see more")
        with contextlib.suppress(OSError, ValueError):
            lines = port_file.read_text().split()
            if len(lines) == 2:
                return int(lines[0]), lines[1]
        time.sleep(0.02)
    raise errors.Timeout("chromium's DevTools port (DevToolsActivePort)", START_TIMEOUT_S)


def _tail(path: Path, lines: int = 3) -> str:
    """The last lines chromium printed (its log beside the profile)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return " | ".join(line for line in text.splitlines()[-lines:] if line.strip())
