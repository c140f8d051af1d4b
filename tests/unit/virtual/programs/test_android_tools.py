"""The device's properties and Android tools: getprop, wm, am, pm, ps, su, app_process, screencap, logcat."""

from __future__ import annotations

import io

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.android.activity import App
from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.kernel import process as pm
from tests.support.virtual_shell import run_shell as run


class FixtureApp:
    package = "dev.mobileagent.fixture"

    def __init__(self) -> None:
        self.started: list[tuple[str, dict[str, str]]] = []
        self.stops = 0

    def has_activity(self, activity: str) -> bool:
        return activity == "dev.mobileagent.fixture.MainActivity"

    def start(self, activity: str, extras: dict[str, str]) -> None:
        self.started.append((activity, extras))

    def stop(self) -> None:
        self.stops += 1


def test_the_properties_are_those_of_an_api_36_emulator(vdev: VirtualDevice) -> None:
    status, out, _ = run(
        vdev,
        "getprop ro.build.version.sdk; getprop ro.kernel.qemu; getprop ro.product.cpu.abi; getprop "
        "ro.build.version.release; getprop no.such default",
    )
    assert out == "36\n1\nx86_64\n16\ndefault\n"
    assert vdev.getprop("ro.product.model") == "sdk_gphone64_x86_64"
    assert "[ro.build.version.sdk]: [36]\n" in run(vdev, "getprop")[1]


def test_wm_density_reports_the_override_after_the_physical_one(vdev: VirtualDevice) -> None:
    assert run(vdev, "wm density") == (0, "Physical density: 420\n", "")
    assert run(vdev, "wm density 560 && wm density") == (0, "Physical density: 420\nOverride density: 560\n", "")
    assert vdev.display.density == 560
    assert run(vdev, "wm density reset; wm density; wm size") == (
        0,
        "Physical density: 420\nPhysical size: 1080x2400\n",
        "",
    )


def test_am_start_w_s_launches_an_installed_app_and_force_stop_stops_it(vdev: VirtualDevice) -> None:
    app = FixtureApp()
    assert isinstance(app, App)
    vdev.activity.install(app)
    status, out, err = run(vdev, "am start -W -S -n dev.mobileagent.fixture/.MainActivity --es tab Big")
    assert status == 0, err
    lines = out.splitlines()
    # runStartActivity: with -S, "Stopping: PKG" before the start
    assert lines[:2] == ["Stopping: dev.mobileagent.fixture",
                         "Starting: Intent { cmp=dev.mobileagent.fixture/.MainActivity (has extras) }"]
    assert lines[2:5] == ["Status: ok", "LaunchState: COLD", "Activity: dev.mobileagent.fixture/.MainActivity"]
    assert lines[5].startswith("TotalTime: ") and lines[7] == "Complete"
    assert app.started == [("dev.mobileagent.fixture.MainActivity", {"tab": "Big"})]
    assert vdev.activity.foreground() == "dev.mobileagent.fixture/.MainActivity"
    assert run(vdev, "am force-stop dev.mobileagent.fixture") == (0, "", "")
    assert app.stops >= 1 and vdev.activity.foreground() != "dev.mobileagent.fixture/.MainActivity"


def test_am_start_of_a_missing_activity_fails_as_am_does(vdev: VirtualDevice) -> None:
    status, out, err = run(vdev, "am start -n com.example.none/.Main")
    assert status == 1
    assert out == "Starting: Intent { cmp=com.example.none/.Main }\n"
    assert err == "Error type 3\nError: Activity class {com.example.none/com.example.none.Main} does not exist.\n"


def test_am_start_w_prints_its_error_on_stdout_as_am_does(vdev: VirtualDevice) -> None:
    """ActivityManagerShellCommand.runStartActivity: `out = mWaitOption ? pw : getErrPrintWriter()`,
    and a failed start returns 1."""
    status, out, err = run(vdev, "am start -W -S -n com.example.none/.Main")
    assert (status, err) == (1, "")
    assert out == ("Stopping: com.example.none\nStarting: Intent { cmp=com.example.none/.Main }\n"
                   "Error type 3\nError: Activity class {com.example.none/com.example.none.Main} does not exist.\n")


def test_am_crash_kills_the_app_and_its_fatal_exception_is_in_the_crash_buffer(vdev: VirtualDevice) -> None:
    app = FixtureApp()
    vdev.activity.install(app)
    assert run(vdev, "logcat -b crash -d") == (0, "", "")  # an empty crash buffer prints nothing
    run(vdev, "am start -W -n dev.mobileagent.fixture/.MainActivity")
    pid = vdev.activity.pid_of("dev.mobileagent.fixture")
    assert run(vdev, "am crash dev.mobileagent.fixture") == (0, "", "")
    assert not vdev.activity.is_running("dev.mobileagent.fixture") and app.stops == 1
    assert vdev.activity.foreground() == "com.google.android.apps.nexuslauncher/.NexusLauncherActivity"
    lines = run(vdev, "logcat -b crash -d")[1].splitlines()
    assert lines[0] == "--------- beginning of crash"
    # RuntimeInit.logUncaught's message and the stack, one entry (one header) per line
    bodies = [line.split(" E AndroidRuntime: ", 1)[1] for line in lines[1:]]
    assert all(f" {pid:5} {pid:5} E AndroidRuntime: " in line for line in lines[1:])
    assert bodies[:3] == ["FATAL EXCEPTION: main", f"Process: dev.mobileagent.fixture, PID: {pid}",
                          "android.app.RemoteServiceException$CrashedByAdbException: shell-induced crash"]
    assert bodies[3].startswith("\tat android.app.ActivityThread.")


def test_am_crash_of_nothing_running_is_silent_and_an_app_process_tools_crash_has_no_process_name(
    vdev: VirtualDevice,
) -> None:
    assert run(vdev, "am crash dev.nothing") == (0, "", "")
    assert run(vdev, "logcat -b crash -d")[1] == ""
    assert vdev.automation.acquire(620, "another automation client")  # a live holder
    assert run(vdev, "uiautomator dump /dev/null")[0] == 137  # it dies: the slot is taken
    bodies = [line.split(" E AndroidRuntime: ", 1)[1] for line in run(vdev, "logcat -b crash -d")[1].splitlines()[1:]]
    assert bodies[0] == "FATAL EXCEPTION: main" and bodies[1].startswith("PID: ")
    assert bodies[2].startswith("java.lang.IllegalStateException: UiAutomationService")


def test_pm_lists_system_packages_and_installed_apps(vdev: VirtualDevice) -> None:
    vdev.activity.install(FixtureApp())
    _, out, _ = run(vdev, "pm list packages")
    names = [line.removeprefix("package:") for line in out.splitlines()]
    assert "com.android.systemui" in names and "dev.mobileagent.fixture" in names and len(names) > 50
    assert run(vdev, "pm list packages -3") == (0, "package:dev.mobileagent.fixture\n", "")


def test_ps_shows_toybox_columns(vdev: VirtualDevice) -> None:
    _, out, _ = run(vdev, "ps -A -o PID,ARGS")
    lines = out.splitlines()
    assert lines[0] == "  PID " + "ARGS".ljust(27)  # get_headers pads a left-justified title, the last too
    assert "    1 init second_stage" in lines  # ARGS drops argv[0]'s path (CMDLINE keeps it)
    assert any(line.endswith(" ps -A -o PID,ARGS") for line in lines)
    _, plain, _ = run(vdev, "true; ps")
    assert plain.splitlines()[0].split() == ["USER", "PID", "PPID", "VSZ", "RSS", "WCHAN", "ADDR", "S", "NAME"]
    assert [line.split()[-1] for line in plain.splitlines()[1:]] == ["sh", "ps"]


def test_su_0_runs_the_command_as_root(vdev: VirtualDevice) -> None:
    assert run(vdev, "su 0 id -u; id -u") == (0, "0\n2000\n", "")
    assert run(vdev, "su 0 sh -c 'echo x > /data/rootfile'; su 0 cat /data/rootfile") == (0, "x\n", "")


def test_app_process_dispatches_on_the_main_class_with_the_classpath(vdev: VirtualDevice) -> None:
    seen: dict[str, object] = {}

    def main(proc: pm.Process, args: list[str]) -> int:
        seen.update(args=args, classpath=proc.env.get("CLASSPATH"), blocked=proc.signals.blocked)
        return 5

    vdev.app_process_mains["dev.example.Main"] = main
    vdev.fs.add_file("/data/local/tmp/app.jar", b"PK", 0o444, 2000, 2000)
    status, _, _ = run(vdev, "CLASSPATH=/data/local/tmp/app.jar app_process / dev.example.Main serve --x 1")
    assert status == 5
    assert seen == {"args": ["serve", "--x", "1"], "classpath": "/data/local/tmp/app.jar", "blocked": pm.ART_SIGBLK}


def test_app_process_without_the_class_fails_as_art_does(vdev: VirtualDevice) -> None:
    status, _, err = run(vdev, "CLASSPATH=/data/local/tmp/none.jar app_process / dev.example.Missing")
    assert status == 1
    assert err.splitlines()[0] == (
        'java.lang.ClassNotFoundException: Didn\'t find class "dev.example.Missing" on path: '
        'DexPathList[[zip file "/data/local/tmp/none.jar"],nativeLibraryDirectories=[/system/lib64, /system_ext/lib64]]'
    )
    assert "ERROR: could not find class 'dev.example.Missing'" in run(vdev, "logcat -d")[1]


def test_screencap_p_is_a_png_of_the_display(vdev: VirtualDevice) -> None:
    status, out, _ = vdev.shell("screencap -p")
    image = Image.open(io.BytesIO(out))
    assert status == 0 and image.format == "PNG" and image.size == (1080, 2400)


def test_logcat_d_prints_what_the_device_logged(vdev: VirtualDevice) -> None:
    vdev.log("MobileAgent", "hello from the model")
    _, out, _ = run(vdev, "logcat -d")
    assert out.splitlines()[0] == "--------- beginning of main"
    assert out.splitlines()[-1].endswith(" I MobileAgent: hello from the model")
    assert run(vdev, "logcat -c; logcat -d") == (0, "--------- beginning of main\n", "")


def test_abb_exec_runs_the_binder_call_through_cmd(vdev: VirtualDevice) -> None:
    stream = vdev.open_service("abb_exec:package\0list\0packages\0com.android.shell")
    data = b""
    while chunk := stream.recv(2.0):
        data += chunk
    assert data == b"package:com.android.shell\n"


def test_su_refuses_as_aosps_su_does(vdev: VirtualDevice) -> None:
    assert run(vdev, "su -c id") == (1, "", "su: invalid uid/gid '-c'\n")
    assert run(vdev, "su 0 nosuch") == (1, "", "su: failed to exec nosuch: No such file or directory\n")
    assert run(vdev, "su 2000,2000 id -u; su root sh -c 'echo $USER'") == (0, "2000\nroot\n", "")


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(
    st.text(max_size=60),
    st.sampled_from(["shell", "shell,v2", "exec:", "sync:", "tcp:", "localabstract:", "reverse:", "abb:"]).flatmap(
        lambda prefix: st.text(max_size=40).map(lambda rest: prefix + rest)),
))
def test_any_service_name_opens_a_stream_or_fails_with_a_package_error(vdev: VirtualDevice, service: str) -> None:
    try:
        stream = vdev.open_service(service)
    except errors.MobileAgentError:
        return
    stream.close()


def test_pidof_pgrep_and_the_resumed_activity(vdev: VirtualDevice) -> None:
    vdev.activity.install(FixtureApp())
    run(vdev, "am start -n dev.mobileagent.fixture/.MainActivity")
    status, out, _ = run(vdev, "pidof adbd; pgrep surfaceflinger; dumpsys activity activities | grep mResumedActivity")
    lines = out.splitlines()
    assert lines[:2] == ["412", "380"]
    assert lines[2].endswith(" u0 dev.mobileagent.fixture/.MainActivity t12}")
    assert run(vdev, "input keyevent KEYCODE_HOME") == (0, "", "")
    assert vdev.activity.foreground() == "com.google.android.apps.nexuslauncher/.NexusLauncherActivity"
    assert vdev.activity.is_running("dev.mobileagent.fixture")
    assert "LaunchState: WARM" in run(vdev, "am start -W -n dev.mobileagent.fixture/.MainActivity")[1]


def test_logcat_follows_new_lines_until_killed(vdev: VirtualDevice) -> None:
    from tests.support.polling import wait_until
    from tests.support.virtual_shell import ShellClient

    for n in range(2100):  # past the ring buffer's 2000 lines
        vdev.log("Filler", f"line {n}")
    client = ShellClient(vdev, "logcat")
    client.read_until(b"line 2099\n")
    assert b"line 99\n" not in client.stdout
    assert wait_until(lambda: any(p.argv == ["logcat"] for p in vdev.processes.processes()))
    vdev.log("Fresh", "after the start")
    client.read_until(b"I Fresh: after the start\n")


def test_timeout_nohup_setsid_and_small_tools(vdev: VirtualDevice) -> None:
    status, out, err = run(vdev, (
        "timeout 0.2 sleep 5; echo $?; timeout 1 echo hi; seq 3; basename /a/b.txt .txt; dirname /a/b; "
        "nohup sh -c 'grep SigIgn /proc/self/status'; setsid sh -c 'ps -o PGID -p $$' | head -n 2"
    ))
    lines = out.splitlines()
    assert lines[:8] == ["124", "hi", "1", "2", "3", "b", "/a", "SigIgn:\t0000000000000001"]
    assert lines[8] == " PGID" and lines[9].strip().isdigit() and err == ""  # toybox has no SID field
