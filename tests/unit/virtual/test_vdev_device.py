"""The device's properties and Android tools: getprop, wm, am, pm, ps, su, app_process, screencap, logcat."""

from __future__ import annotations

import io

from PIL import Image

from pytest_mobile_agent.virtual import process as pm
from pytest_mobile_agent.virtual.activity import App
from pytest_mobile_agent.virtual.device import VirtualDevice


def run(device: VirtualDevice, command: str) -> tuple[int, str, str]:
    status, out, err = device.shell(command, timeout=3)
    return status, out.decode(errors="replace"), err.decode()


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


def test_the_properties_are_those_of_an_api_36_emulator(device: VirtualDevice) -> None:
    status, out, _ = run(device, "getprop ro.build.version.sdk; getprop ro.kernel.qemu; getprop ro.product.cpu.abi; getprop ro.build.version.release; getprop no.such default")
    assert out == "36\n1\nx86_64\n16\ndefault\n"
    assert device.getprop("ro.product.model") == "sdk_gphone64_x86_64"
    assert "[ro.build.version.sdk]: [36]\n" in run(device, "getprop")[1]


def test_wm_density_reports_the_override_after_the_physical_one(device: VirtualDevice) -> None:
    assert run(device, "wm density") == (0, "Physical density: 420\n", "")
    assert run(device, "wm density 560 && wm density") == (0, "Physical density: 420\nOverride density: 560\n", "")
    assert device.display.density == 560
    assert run(device, "wm density reset; wm density; wm size") == (0, "Physical density: 420\nPhysical size: 1080x2400\n", "")


def test_am_start_w_s_launches_an_installed_app_and_force_stop_stops_it(device: VirtualDevice) -> None:
    app = FixtureApp()
    assert isinstance(app, App)
    device.activity.install(app)
    status, out, err = run(device, "am start -W -S -n dev.mobileagent.fixture/.MainActivity --es tab Big")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "Starting: Intent { cmp=dev.mobileagent.fixture/.MainActivity (has extras) }"
    assert lines[1:4] == ["Status: ok", "LaunchState: COLD", "Activity: dev.mobileagent.fixture/.MainActivity"]
    assert lines[4].startswith("TotalTime: ") and lines[6] == "Complete"
    assert app.started == [("dev.mobileagent.fixture.MainActivity", {"tab": "Big"})]
    assert device.activity.foreground() == "dev.mobileagent.fixture/.MainActivity"
    assert run(device, "am force-stop dev.mobileagent.fixture") == (0, "", "")
    assert app.stops >= 1 and device.activity.foreground() != "dev.mobileagent.fixture/.MainActivity"


def test_am_start_of_a_missing_activity_fails_as_am_does(device: VirtualDevice) -> None:
    status, out, err = run(device, "am start -n com.example.none/.Main")
    assert status == 1
    assert out == "Starting: Intent { cmp=com.example.none/.Main }\n"
    assert err == "Error type 3\nError: Activity class {com.example.none/com.example.none.Main} does not exist.\n"


def test_pm_lists_system_packages_and_installed_apps(device: VirtualDevice) -> None:
    device.activity.install(FixtureApp())
    _, out, _ = run(device, "pm list packages")
    names = [line.removeprefix("package:") for line in out.splitlines()]
    assert "com.android.systemui" in names and "dev.mobileagent.fixture" in names and len(names) > 50
    assert run(device, "pm list packages -3") == (0, "package:dev.mobileagent.fixture\n", "")


def test_ps_shows_toybox_columns(device: VirtualDevice) -> None:
    _, out, _ = run(device, "ps -A -o PID,ARGS")
    lines = out.splitlines()
    assert lines[0] == "  PID ARGS"
    assert "    1 /system/bin/init second_stage" in lines
    assert any(line.endswith(" ps -A -o PID,ARGS") for line in lines)
    _, plain, _ = run(device, "true; ps")
    assert plain.splitlines()[0].split() == ["USER", "PID", "PPID", "VSZ", "RSS", "WCHAN", "ADDR", "S", "NAME"]
    assert [line.split()[-1] for line in plain.splitlines()[1:]] == ["sh", "ps"]


def test_su_0_runs_the_command_as_root(device: VirtualDevice) -> None:
    assert run(device, "su 0 id -u; id -u") == (0, "0\n2000\n", "")
    assert run(device, "su 0 sh -c 'echo x > /data/rootfile'; su 0 cat /data/rootfile") == (0, "x\n", "")


def test_app_process_dispatches_on_the_main_class_with_the_classpath(device: VirtualDevice) -> None:
    seen: dict[str, object] = {}

    def main(proc: pm.Process, args: list[str]) -> int:
        seen.update(args=args, classpath=proc.env.get("CLASSPATH"), blocked=proc.signals.blocked)
        return 5

    device.app_process_mains["dev.example.Main"] = main
    device.fs.add_file("/data/local/tmp/app.jar", b"PK", 0o444, 2000, 2000)
    status, _, _ = run(device, "CLASSPATH=/data/local/tmp/app.jar app_process / dev.example.Main serve --x 1")
    assert status == 5
    assert seen == {"args": ["serve", "--x", "1"], "classpath": "/data/local/tmp/app.jar", "blocked": pm.ART_SIGBLK}


def test_app_process_without_the_class_fails_as_art_does(device: VirtualDevice) -> None:
    status, _, err = run(device, "CLASSPATH=/data/local/tmp/none.jar app_process / dev.example.Missing")
    assert status == 1
    assert err.splitlines()[0] == (
        'java.lang.ClassNotFoundException: Didn\'t find class "dev.example.Missing" on path: '
        'DexPathList[[zip file "/data/local/tmp/none.jar"],nativeLibraryDirectories=[/system/lib64, /system_ext/lib64]]'
    )
    assert "ERROR: could not find class 'dev.example.Missing'" in run(device, "logcat -d")[1]


def test_screencap_p_is_a_png_of_the_display(device: VirtualDevice) -> None:
    status, out, _ = device.shell("screencap -p")
    image = Image.open(io.BytesIO(out))
    assert status == 0 and image.format == "PNG" and image.size == (1080, 2400)


def test_logcat_d_prints_what_the_device_logged(device: VirtualDevice) -> None:
    device.log("MobileAgent", "hello from the model")
    _, out, _ = run(device, "logcat -d")
    assert out.splitlines()[0] == "--------- beginning of main"
    assert out.splitlines()[-1].endswith(" I MobileAgent: hello from the model")
    assert run(device, "logcat -c; logcat -d") == (0, "--------- beginning of main\n", "")


def test_display_render_delegates_to_the_content_provider(device: VirtualDevice) -> None:
    class Content:
        def render(self, width: int, height: int) -> Image.Image:
            return Image.new("RGB", (width, height), (255, 0, 0))

    before = device.display.change_count
    idle = device.display.render()
    assert idle.getpixel((540, 1200)) != (255, 0, 0)
    device.display.set_content(Content())
    assert device.display.render().getpixel((540, 1200)) == (255, 0, 0)
    assert device.display.wait_change(before, 0.1) == before + 1


def test_abb_exec_runs_the_binder_call_through_cmd(device: VirtualDevice) -> None:
    stream = device.open_service("abb_exec:package\0list\0packages\0com.android.shell")
    data = b""
    while chunk := stream.recv(2.0):
        data += chunk
    assert data == b"package:com.android.shell\n"


def test_su_refuses_as_aosps_su_does(device: VirtualDevice) -> None:
    assert run(device, "su -c id") == (1, "", "su: invalid uid/gid '-c'\n")
    assert run(device, "su 0 nosuch") == (1, "", "su: failed to exec nosuch: No such file or directory\n")
    assert run(device, "su 2000,2000 id -u; su root sh -c 'echo $USER'") == (0, "2000\nroot\n", "")
