"""The options a user sets, each written once: its flag, environment variable, ini key, default and
help. The pytest plugin renders the whole table (`plugin/options.py`); the command line renders the
options its commands share with a test run (`cli/main.py`, `doctor` and `inspect`); README's
"Options" table is checked against it (tests/unit/stack/test_option_table.py).

It sits in the stack, below both the plugin and the command line, and imports neither pytest nor
argparse: each renders the table its own way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pytest_mobile_agent.agent.jar import JAR_ENV
from pytest_mobile_agent.automation_lock import DEFAULT_LOCK_WAIT
from pytest_mobile_agent.stack.settings import (
    AUTO,
    DEFAULT_FIXTURE_ACTIVITY,
    DEFAULT_FIXTURE_PACKAGE,
    DEFAULT_IDLE_EXIT,
)

SERIAL_ENV = "MOBILE_AGENT_ANDROID_SERIAL"
REQUIRE_ENV = "MOBILE_AGENT_REQUIRE_DEVICE"
SKIP_UNUSABLE_ENV = "MOBILE_AGENT_SKIP_UNUSABLE"
CONTROLLER_ENV = "MOBILE_AGENT_EMULATOR_CONTROLLER"
IDLE_EXIT_ENV = "MOBILE_AGENT_IDLE_EXIT"
RECORDS_ENV = "MOBILE_AGENT_RECORDS"
APP_APK_ENV = "MOBILE_AGENT_APP_APK"
TRACE_ENV = "MOBILE_AGENT_TRACE"
VIDEO_ENV = "MOBILE_AGENT_VIDEO"
SCREENSHOT_ENV = "MOBILE_AGENT_SCREENSHOT"
UPDATE_SNAPSHOTS_ENV = "MOBILE_AGENT_UPDATE_SNAPSHOTS"
ARTIFACTS_ENV = "MOBILE_AGENT_ARTIFACTS"
A11Y_ENV = "MOBILE_AGENT_A11Y"
A11Y_MODES = ("off", "report", "fail")
RETAIN_MODES = ("off", "on", "retain-on-failure")
SCREENSHOT_MODES = ("off", "on", "only-on-failure")
VIRTUAL_ADB_MODES = ("builtin", "real")
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
"""What an environment variable of an on/off option says to turn it on."""


@dataclass(frozen=True)
class Option:
    """One option. Its destination and ini key are its flag without dashes, underscores for dashes.

    `default` is the value taken when nothing is given (None: no value); `default_text` says what
    happens then when that is not a value (the bundled jar, the launchable activity)."""

    flag: str
    help: str
    env: str | None = None
    default: str | None = None
    default_text: str | None = None
    is_flag: bool = False
    choices: tuple[str, ...] | None = None
    metavar: str | None = None

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    @property
    def ini(self) -> str:
        return self.dest

    @property
    def shown_default(self) -> str:
        """The default as a person reads it: off, the value, what happens instead, or none."""
        if self.is_flag:
            return "off"
        return self.default or self.default_text or "none"

    def from_environment(self, environ: Mapping[str, str]) -> str | None:
        """The option's environment variable, stripped, or None when it has none or it is empty."""
        if self.env is None:
            return None
        return environ.get(self.env, "").strip() or None


OPTIONS = (
    Option(
        "--android-serial",
        "the target: a serial, `auto` (the only online target), `virtual` (a built-in virtual device; "
        "`virtual:N` for N of them in a test run), `tcp:HOST:PORT/SERIAL` for a target on another adb "
        "server, or in a test run a comma list from which each xdist worker takes its own",
        env=SERIAL_ENV,
        metavar="SERIAL",
    ),
    Option(
        "--android-require-device",
        "fail the run, with the target's advice, "
        "when the named target is missing or unusable (instead of skipping its tests)",
        env=REQUIRE_ENV,
        is_flag=True,
    ),
    Option(
        "--android-skip-unusable",
        "a named target that is unknown, unreachable or "
        "not on the adb server skips the device tests with its advice instead of failing the run at its start",
        env=SKIP_UNUSABLE_ENV,
        is_flag=True,
    ),
    Option(
        "--emulator-controller",
        "the emulator's gRPC fast path: `auto` (from the "
        "emulator's discovery file), `off`, or an endpoint URL such as http://127.0.0.1:8554 (its token in "
        "MOBILE_AGENT_EMULATOR_TOKEN, never on the command line: `ps` shows that to every local user)",
        env=CONTROLLER_ENV,
        default=AUTO,
        metavar="auto|off|URL",
    ),
    Option(
        "--agent-jar",
        "the agent jar to deploy; a release wheel's bundled jar is taken only when it was built from the "
        "package's agent sources, and the cached build is made on first use with the Android SDK found",
        env=JAR_ENV,
        default_text="the stand-in on a virtual device, else the jar a release wheel bundles, else the per-user "
                     "cached build",
        metavar="PATH",
    ),
    Option(
        "--agent-force",
        "let the agent stop whatever holds UI automation (uiautomator, "
        "another host's agent) instead of failing with a conflict",
        is_flag=True,
    ),
    Option(
        "--agent-idle-exit",
        "seconds the agent lingers with no host connected (holding "
        "UI automation, so the next test, worker or run reuses it) before it exits",
        env=IDLE_EXIT_ENV,
        default=f"{DEFAULT_IDLE_EXIT:g}",
        metavar="SECONDS",
    ),
    Option(
        "--agent-records",
        "where the agent records live, so consecutive runs, xdist "
        "workers, checkouts, projects and the doctor reuse the running agent",
        env=RECORDS_ENV,
        default_text="<user cache>/pytest-mobile-agent/records",
        metavar="DIR",
    ),
    Option(
        "--quiet-wait",
        "seconds to wait before a device test until no foreign agent runs and nothing holds UI automation",
        default="60",
        metavar="SECONDS",
    ),
    Option(
        "--lock-wait",
        "seconds to wait for the target's automation lock while "
        "another test, worker, run or the inspector holds it",
        default=f"{DEFAULT_LOCK_WAIT:g}",
        metavar="SECONDS",
    ),
    Option(
        "--disturbance-retries",
        "runs in all of a device test that another user of the device disturbs",
        default="3",
        metavar="N",
    ),
    Option(
        "--virtual-adb",
        "with --android-serial virtual: the built-in adb endpoint, "
        "or Debian's adb server with the virtual device's adbd endpoint attached",
        default="builtin",
        choices=VIRTUAL_ADB_MODES,
    ),
    Option(
        "--app-apk",
        "the APK of the app under test, installed when that versionCode and those bytes are not (the `app` "
        "fixture: once per session; the inspector's Record)",
        env=APP_APK_ENV,
        metavar="PATH",
    ),
    Option(
        "--app-package",
        "the app under test when it is already installed (with --app-apk: checked against the APK's package)",
        metavar="PACKAGE",
    ),
    Option(
        "--app-activity",
        "the activity the app under test starts with (`app.start()`, the inspector's Record)",
        default_text="the app's launchable activity",
        metavar="ACTIVITY",
    ),
    Option(
        "--fixture-package",
        "the package compose_fixture starts",
        default=DEFAULT_FIXTURE_PACKAGE,
        metavar="PACKAGE",
    ),
    Option(
        "--fixture-activity",
        "the activity compose_fixture starts",
        default=DEFAULT_FIXTURE_ACTIVITY,
        metavar="ACTIVITY",
    ),
    Option(
        "--android-action-timeout",
        "seconds an action (tap, long_press, type_text, swipe_within, scroll_until) waits by default for its element "
        "to exist, be visible and enabled and hold still; 0: no wait",
        default="5",
        metavar="SECONDS",
    ),
    # the seed's timeouts, tuned for a quiet machine: raise them on a loaded CI runner (README)
    Option(
        "--agent-liveness",
        "seconds a silent agent is still taken for alive (it pings every second)",
        default="3",
        metavar="SECONDS",
    ),
    Option(
        "--controller-connect-timeout",
        "seconds to connect to the emulator's controller before input and frames fall back to the agent",
        default="2",
        metavar="SECONDS",
    ),
    Option(
        "--agent-kill-wait",
        "seconds a SIGKILLed agent may take to go before it counts as having survived SIGKILL",
        default="1",
        metavar="SECONDS",
    ),
    # the evidence of a device test (plugin/evidence.py); named apart from pytest-playwright's
    # --tracing, --video and --screenshot, so both plugins can be installed together
    Option(
        "--android-trace",
        "record each device test's steps (calls, screens, tree, logcat) "
        "into a zip beside its artifacts, opened by `python -m pytest_mobile_agent show-trace`",
        env=TRACE_ENV,
        default="retain-on-failure",
        choices=RETAIN_MODES,
    ),
    Option(
        "--android-video",
        "record each device test's screen: the emulator controller's "
        "frames (needs the video extra, PyAV), else screenrecord on the device",
        env=VIDEO_ENV,
        default="off",
        choices=RETAIN_MODES,
    ),
    Option(
        "--android-video-format",
        "the container and codec of a video encoded from the controller's frames: mp4 (H.264) or webm (VP8)",
        default="mp4",
        choices=("mp4", "webm"),
    ),
    Option(
        "--android-screenshot",
        "a screenshot at each device test's end",
        env=SCREENSHOT_ENV,
        default="only-on-failure",
        choices=SCREENSHOT_MODES,
    ),
    Option(
        "--android-a11y",
        "audit the app's accessibility after every step that changed its screen (Google's Accessibility "
        "Test Framework's rules): report puts the findings in the trace, the report and JUnit; fail also "
        "fails the test at the first new finding of severity error",
        env=A11Y_ENV,
        default="off",
        choices=A11Y_MODES,
    ),
    Option(
        "--android-hide-clipboard-toasts",
        "turn the secure setting clipboard_show_access_notifications off for the session (no \"... pasted "
        "from your clipboard\" toast after a paste or a clipboard read) and put it back at the end",
        is_flag=True,
    ),
    Option(
        "--android-update-snapshots",
        "screen.assert_snapshot writes the baselines instead of comparing with them",
        env=UPDATE_SNAPSHOTS_ENV,
        is_flag=True,
    ),
    Option(
        "--android-artifacts",
        "the folder that keeps each run's artifacts, traces and videos in a folder of its own "
        "(DIR/<run id>/<test>/), and that the reports' paths are relative to: one folder for CI to upload",
        env=ARTIFACTS_ENV,
        default_text="the pytest cache",
        metavar="DIR",
    ),
)

BY_FLAG = {option.flag: option for option in OPTIONS}
BY_DEST = {option.dest: option for option in OPTIONS}


def lookup(flag_or_dest: str) -> Option:
    """The option named by its flag (`--lock-wait`) or its destination and ini key (`lock_wait`)."""
    found = BY_FLAG.get(flag_or_dest) or BY_DEST.get(flag_or_dest)
    if found is None:
        raise KeyError(f"no option {flag_or_dest!r}: the options are {', '.join(BY_FLAG)}")
    return found
