"""The services people query and adbd's own services on the device model: dumpsys display and
power in the framework's layouts, settings, logcat's lines, uiautomator dump, TERM, adb root,
sync v2 (SND2/RCV2)."""

from __future__ import annotations

import re
import struct

from pytest_mobile_agent.virtual.device import VirtualDevice

VIEWPORT = re.compile(r".*DisplayViewport{.*?valid=true, .*?orientation=(?P<orientation>\d+), .*?deviceWidth=(?P<width>\d+), "
                      r"deviceHeight=(?P<height>\d+).*")  # adbutils.shell._DISPLAY_RE


def run(vdev: VirtualDevice, command: str) -> tuple[int, str, str]:
    status, out, err = vdev.shell(command, timeout=10)
    return status, out.decode(), err.decode()


def test_dumpsys_display_gives_the_viewport_adbutils_reads_and_follows_wm_size(vdev: VirtualDevice) -> None:
    status, out, _ = run(vdev, "dumpsys display")
    assert status == 0 and out.startswith("DISPLAY MANAGER (dumpsys display)\n")
    first = next(line for line in out.splitlines() if "orientation=" in line)
    match = VIEWPORT.match(first)
    assert match is not None and match.group("orientation", "width", "height") == ("0", "1080", "2400")
    assert "density 420" in out
    run(vdev, "wm size 720x1600")
    assert "real 720 x 1600" in run(vdev, "dumpsys display")[1]


def test_dumpsys_power_says_awake_and_on(vdev: VirtualDevice) -> None:
    out = run(vdev, "dumpsys power")[1].splitlines()
    assert out[0] == "POWER MANAGER (dumpsys power)"
    assert "  mWakefulness=Awake" in out and "  mHoldingDisplaySuspendBlocker=true" in out
    assert "Display Power: state=ON" in out


def test_settings_screen_brightness_is_the_providers_default(vdev: VirtualDevice) -> None:
    assert run(vdev, "settings get system screen_brightness; settings put system screen_brightness 30; "
                     "settings get system screen_brightness") == (0, "102\n30\n", "")


def test_logcat_holds_the_boot_the_activity_manager_and_the_runtime_lines(vdev: VirtualDevice) -> None:
    run(vdev, "am start -W -n dev.mobileagent.fixture/.MainActivity; am force-stop dev.mobileagent.fixture")
    run(vdev, "app_process / no.such.Main")
    lines = run(vdev, "logcat -d")[1].splitlines()
    assert lines[0] == "--------- beginning of main"
    assert any(" I ActivityManager: System now ready" in line for line in lines)
    start = next(line for line in lines if "ActivityManager: Start proc" in line and "dev.mobileagent.fixture" in line)
    assert re.search(r"   620   620 I ActivityManager: Start proc \d+:dev\.mobileagent\.fixture/u0a\d+ for next-top-activity "
                     r"\{dev\.mobileagent\.fixture/dev\.mobileagent\.fixture\.MainActivity\}$", start)
    assert any(re.search(r"ActivityManager: Force stopping dev\.mobileagent\.fixture appid=\d+ user=0: from pid \d+$", line)
               for line in lines)
    assert any(" D AndroidRuntime: >>>>>> START com.android.internal.os.RuntimeInit uid 2000 <<<<<<" in line for line in lines)


def test_uiautomator_dump_prints_its_line_on_stdout(vdev: VirtualDevice) -> None:
    assert run(vdev, "uiautomator dump") == (0, "UI hierchary dumped to: /sdcard/window_dump.xml\n", "")


def test_term_is_dumb_unless_the_service_names_one_on_raw_and_pty_shells(vdev: VirtualDevice) -> None:
    assert run(vdev, "echo $TERM") == (0, "dumb\n", "")
    for service in ("shell,v2,TERM=xterm-256color,raw:echo $TERM", "shell,v2,TERM=vt100,pty:echo $TERM"):
        data = _read_all(vdev.open_service(service))
        assert (b"xterm-256color" if "raw" in service else b"vt100") in data
    assert _read_all(vdev.open_service("exec:echo [$TERM]")) == b"[]\n"  # exec: sets no TERM (no terminal type)


def _read_all(stream) -> bytes:  # noqa: ANN001 - a DeviceStream
    data = b""
    while chunk := stream.recv(2):
        data += chunk
    return data


def test_root_restarts_adbd_as_root_on_a_userdebug_image_and_user_builds_refuse(vdev: VirtualDevice) -> None:
    restarts: list[int] = []
    vdev.adbd_restart_listeners.append(lambda: restarts.append(vdev.adbd.uid))
    assert _read_all(vdev.open_service("root:")) == b"restarting adbd as root\n"
    assert restarts == [0] and vdev.getprop("service.adb.root") == "1"
    assert _read_all(vdev.open_service("shell:id -u")) == b"0\n"  # what adbd starts now runs as root
    assert _read_all(vdev.open_service("root:")) == b"adbd is already running as root\n"
    assert _read_all(vdev.open_service("unroot:")) == b"restarting adbd as non root\n"
    assert _read_all(vdev.open_service("unroot:")) == b"adbd not running as root\n"
    assert _read_all(vdev.open_service("shell:id -u")) == b"2000\n"
    vdev.setprop("ro.debuggable", "0")
    assert _read_all(vdev.open_service("root:")) == b"adbd cannot run as root in production builds\n"


def _sync(vdev: VirtualDevice, request: bytes, size: int, timeout: float = 2.0) -> bytes:
    stream = vdev.open_service("sync:")
    stream.send(request)
    data = b""
    while len(data) < size:
        data += stream.recv(timeout)
    stream.close()
    return data


def test_snd2_and_rcv2_push_and_pull_and_a_dry_run_writes_nothing(vdev: VirtualDevice) -> None:
    path = b"/data/local/tmp/v2"
    push = (b"SND2" + struct.pack("<I", len(path)) + path + b"SND2" + struct.pack("<II", 0o100644, 0)
            + b"DATA" + struct.pack("<I", 3) + b"abc" + b"DONE" + struct.pack("<I", 1000))
    assert _sync(vdev, push, 8) == b"OKAY\0\0\0\0"
    assert run(vdev, "cat /data/local/tmp/v2; stat -c %a /data/local/tmp/v2") == (0, "abc666\n", "")
    pull = b"RCV2" + struct.pack("<I", len(path)) + path + b"RCV2" + struct.pack("<I", 0)
    assert _sync(vdev, pull, 19) == b"DATA\x03\0\0\0abcDONE\0\0\0\0"
    dry = b"/data/local/tmp/dry"
    trial = (b"SND2" + struct.pack("<I", len(dry)) + dry + b"SND2" + struct.pack("<II", 0o100644, 0x8000_0000)
             + b"DATA" + struct.pack("<I", 1) + b"x" + b"DONE" + struct.pack("<I", 0))
    assert _sync(vdev, trial, 8) == b"OKAY\0\0\0\0"
    assert not vdev.fs.exists("/data/local/tmp/dry")
    brotli = b"RCV2" + struct.pack("<I", len(path)) + path + b"RCV2" + struct.pack("<I", 1)
    assert _sync(vdev, brotli, 8 + len("unsupported compression")) == b"FAIL\x17\0\0\0unsupported compression"
