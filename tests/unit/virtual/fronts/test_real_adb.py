"""Debian's own adb server attaches the virtual device's adbd endpoint, and its client drives it."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.virtual.fronts.loopback import ADBD_PORTS
from pytest_mobile_agent.virtual.lab import VirtualLab, adb_binary
from tests.support.polling import wait_until
from tests.support.smart_socket import exchange

ADB = adb_binary()
pytestmark = pytest.mark.skipif(ADB is None, reason="no adb binary (/usr/bin/adb): apt-get install adb")


def adb(lab: VirtualLab, *args: str, timeout: float = 10.0) -> subprocess.CompletedProcess[bytes]:
    assert ADB is not None
    return subprocess.run([ADB, "-P", str(lab.adb_port), *args], capture_output=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def lab() -> Iterator[VirtualLab]:
    with VirtualLab.start(1, real_adb=True) as started:
        yield started


def test_the_real_server_attaches_the_adbd_endpoint_as_an_emulator(lab: VirtualLab) -> None:
    serial = lab.serials[0]
    port = lab.adbd_port(serial)
    assert port in ADBD_PORTS
    # emulator-5554 on 127.0.0.1:5555 unless another lab holds that port.
    assert serial == f"emulator-{port - 1}"
    listing = adb(lab, "devices", "-l").stdout.decode()
    line = next(line for line in listing.splitlines() if line.startswith(serial))
    assert line.split()[1] == "device"
    assert "model:" in line and "transport_id:" in line


def test_adb_shell_runs_through_the_real_server(lab: VirtualLab) -> None:
    result = adb(lab, "-s", lab.serials[0], "shell", "echo", "ok")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"ok\n", b"")
    status = adb(lab, "-s", lab.serials[0], "shell", "echo err >&2; exit 7")
    assert (status.returncode, status.stdout, status.stderr) == (7, b"", b"err\n")


def test_adb_push_through_the_real_server(lab: VirtualLab, tmp_path: Path) -> None:
    local = tmp_path / "payload.bin"
    local.write_bytes(bytes(range(256)) * 4096)
    local.chmod(0o644)
    remote = "/data/local/tmp/mobile-agent-it-real-push.bin"
    serial = lab.serials[0]
    try:
        pushed = adb(lab, "-s", serial, "push", str(local), remote)
        assert pushed.returncode == 0, pushed.stderr
        back = adb(lab, "-s", serial, "exec-out", f"cat {remote}")
        assert back.stdout == local.read_bytes()
        assert adb(lab, "-s", serial, "shell", f"stat -c %a {remote}").stdout == b"666\n"
    finally:
        adb(lab, "-s", serial, "shell", f"rm -f {remote}")


def test_without_a_free_emulator_port_the_device_attaches_through_adb_connect() -> None:
    with VirtualLab.start(1, real_adb=True, emulator_ports=range(0)) as lab:
        serial = lab.serials[0]
        assert serial == f"127.0.0.1:{lab.adbd_port(serial)}"
        result = adb(lab, "-s", serial, "shell", "echo", "connected")
        assert (result.returncode, result.stdout) == (0, b"connected\n")


def test_several_devices_behind_the_real_server() -> None:
    with VirtualLab.start(2, real_adb=True) as lab:
        assert len(set(lab.serials)) == 2
        for serial in lab.serials:
            result = adb(lab, "-s", serial, "shell", "getprop", "ro.build.version.sdk")
            assert (result.returncode, result.stdout) == (0, b"36\n")


def _differential_cases(serial: str) -> list[tuple[str, ...]]:
    transport = f"host:transport:{serial}"
    return [
        ("host:version",),
        ("host:transport:mobile-agent-it-nope",),
        ("host:tport:serial:mobile-agent-it-nope",),
        ("host-serial:mobile-agent-it-nope:get-state",),
        ("host:transport-id:999",),
        ("host:frobnicate",),
        ("host:emulator:1",),
        ("shell:echo no transport",),
        (f"host-serial:{serial}:get-state",),
        (f"host-serial:{serial}:get-serialno",),
        (f"host-serial:{serial}:wait-for-any-device",),
        (f"host-serial:{serial}:killforward:tcp:1",),
        (f"host-serial:{serial}:forward:tcp:1",),
        (f"host-serial:{serial}:forward:norebind:tcp:1;",),
        (f"host-serial:{serial}:list-forward",),
        ("host:killforward-all",),
        (transport, "localabstract:mobile-agent-it-missing"),
        (transport, "bogus:service"),
        (transport, "shell,v2,raw:echo ok; echo e >&2; exit 4"),
        (transport, "shell:echo legacy"),
        (transport, "exec:echo x"),
        (transport, "sync:"),
        (transport, "reverse:list-forward"),
        (transport, "reverse:killforward:tcp:5"),
        (transport, "reverse:forward:tcp:1"),
        (transport, "host:version"),
        (transport, f"host-serial:{serial}:get-state"),
    ]


def test_the_builtin_endpoint_answers_byte_for_byte_as_the_real_server(lab: VirtualLab) -> None:
    serial = lab.serials[0]
    for case in _differential_cases(serial):
        real = exchange(lab.adb_port, *case)
        builtin = exchange(lab.builtin_adb_port, *case)
        assert builtin == real, f"{case}: the real server said {real!r}, the built-in endpoint {builtin!r}"
    features = exchange(lab.adb_port, f"host-serial:{serial}:features")
    assert set(features[8:].split(b",")) == set(
        exchange(lab.builtin_adb_port, f"host-serial:{serial}:features")[8:].split(b",")
    )


def test_a_transport_that_goes_takes_its_reverse_rules_with_it(lab: VirtualLab) -> None:
    serial = lab.serials[0]
    model = lab.device(serial)
    client = AdbServer(host="127.0.0.1", port=lab.adb_port).device(serial)
    remote = "localabstract:mobile-agent-it-transport-gone"
    client.reverse(remote, "tcp:9")
    assert remote in model.reverse_rules
    endpoint = lab.adbd_endpoint(serial)
    assert endpoint is not None
    before = transport_id(lab, serial)
    for conn in endpoint.connections():  # a cable pulled: adbd drops the transport's listeners
        conn.stop()
    assert wait_until(lambda: remote not in model.reverse_rules)
    # The real server attaches the emulator again (it retries a kicked emulator port a second later), as
    # a transport of its own: until it has noticed the drop, the old one is still listed as a device.
    assert wait_until(lambda: transport_id(lab, serial) not in (None, before), timeout=10.0)


def transport_id(lab: VirtualLab, serial: str) -> str | None:
    """The real server's transport id for `serial` while it is a device (`adb devices -l`), else None."""
    for line in adb(lab, "devices", "-l").stdout.decode().splitlines():
        words = line.split()
        if words[:2] == [serial, "device"]:
            return next((word for word in words if word.startswith("transport_id:")), None)
    return None


def test_the_builtin_server_killed_takes_the_reverse_rules_through_it() -> None:
    with VirtualLab.start(1) as lab:
        serial = lab.serials[0]
        client = AdbServer(host="127.0.0.1", port=lab.adb_port).device(serial)
        client.reverse("localabstract:mobile-agent-it-killed", "tcp:9")
        assert "localabstract:mobile-agent-it-killed" in lab.device(serial).reverse_rules
        client.server.kill()
        assert wait_until(lambda: not lab.device(serial).reverse_rules)


def test_a_lab_killed_outright_takes_its_adb_server_along(tmp_path: Path) -> None:
    script = (
        "import sys, threading, time\n"
        "from pytest_mobile_agent.virtual.lab import VirtualLab\n"
        "def start():\n"
        "    lab = VirtualLab.start(1, real_adb=True)\n"
        "    print(lab.real.pid, flush=True)\n"
        "worker = threading.Thread(target=start)\n"  # started on a worker that ends: the server stays
        "worker.start(); worker.join()\n"
        "time.sleep(60)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        pid = int(process.stdout.readline())
        time.sleep(0.3)
        os.kill(pid, 0)  # still serving after the thread that started it ended
    finally:
        process.kill()  # SIGKILL: no atexit, no stop()
        process.wait(5)
    assert wait_until(lambda: not _alive(pid), timeout=5.0), f"adb server {pid} outlived its lab"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError), open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(") ", 1)[1][0] != "Z"  # a zombie has ended
    return True


# --- the shell commands people type, through Google's adb client on both fronts -------------------
#
# Each expected output is the real tool's: toybox 0.8.x (run natively on Debian to read its
# formats: cmp, du, uniq -c, od -c, md5sum...), iproute2, the framework services' dump formats
# (DisplayViewport.toString, PowerManagerService.dumpInternal), adbd's ShellService (TERM "dumb"
# unless the client sends TERM=), uiautomator's DumpCommand (its own "hierchary").

ADBUTILS_DISPLAY_RE = re.compile(
    r".*DisplayViewport{.*?valid=true, .*?orientation=(?P<orientation>\d+), .*?deviceWidth=(?P<width>\d+), "
    r"deviceHeight=(?P<height>\d+).*")  # adbutils.shell._DISPLAY_RE
TMP = "/data/local/tmp"

SHELL_CASES: list[tuple[str, str, bytes | re.Pattern[bytes]]] = [
    ("term_default", "echo $TERM", b"dumb\n"),
    ("head_c", "printf 'a\\nb\\nc\\n' | head -c 3", b"a\nb"),
    ("wc_c", "echo abc | wc -c", b"4\n"),
    ("sed", "echo hello world | sed 's/world/there/'", b"hello there\n"),
    ("awk", "printf '1 a\\n2 b\\n3 c\\n' | awk '{s+=$1} END {print s, NR}'", b"6 3\n"),
    ("cut", "echo a:b:c | cut -d: -f2,3", b"b:c\n"),
    ("tr", "echo hello | tr a-z A-Z", b"HELLO\n"),
    ("tail", "seq 5 | tail -n 2", b"4\n5\n"),
    ("sort", "printf 'b\\na\\nc\\n' | sort -r", b"c\nb\na\n"),
    ("uniq", "printf 'x\\nx\\ny\\n' | uniq -c", b"      2 x\n      1 y\n"),
    ("xargs", "printf 'a b\\nc\\n' | xargs -n 2 echo", b"a b\nc\n"),
    ("find", f"cd {TMP} && rm -rf dt && mkdir -p dt/s && touch dt/f dt/s/g && find dt -type f", b"dt/f\ndt/s/g\n"),
    (
        "cp_mv_ln",
        f"cd {TMP} && rm -rf cm && mkdir cm && cd cm && echo x > a && cp a b && mv b m && ln -s m l && cat l && ls",
        b"x\na\nl\nm\n",
    ),
    ("md5sum", "echo abc | md5sum", b"0bee89b07a248e27c83fc3d5951213c1  -\n"),
    ("sha256sum", "echo abc | sha256sum", b"edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb  -\n"),
    ("base64", "echo hi | base64 && echo aGkK | base64 -d", b"aGkK\nhi\n"),
    ("od", "echo ab | od -c", b"0000000   a   b  \\n\n0000003\n"),
    ("dd", "echo abcdef | dd bs=2 count=2 2>/dev/null", b"abcd"),
    (
        "dd_summary",
        "dd if=/dev/zero of=/dev/null bs=512 count=3 2>&1 | head -n 2",
        b"3+0 records in\n3+0 records out\n",
    ),
    (
        "df",
        "df /data",
        re.compile(
            rb"^Filesystem +1K-blocks +Used +Available +Use% +Mounted on\n"
            rb"/dev/block/dm-5 +\d+ +\d+ +\d+ +\d+% /data\n$"
        ),
    ),
    ("du", f"cd {TMP} && rm -rf du && mkdir du && echo x > du/f && du du", b"8\tdu\n"),
    ("tee", f"echo t | tee {TMP}/tee1 && cat {TMP}/tee1", b"t\nt\n"),
    ("cmp", f"cd {TMP} && echo a > c1 && echo b > c2 && cmp c1 c2; echo $?", b"c1 c2 differ: char 1, line 1\n1\n"),
    ("mount", "mount | head -n 1", b"/dev/block/dm-0 on / type ext4 (ro,seclabel,relatime)\n"),
    ("nc", "nc 127.0.0.1 1 2>&1; echo $?", b"nc: connect: Connection refused\n1\n"),
    ("toybox", "toybox --version && toybox echo hi", b"toybox 0.8.11-android\nhi\n"),
    ("dumpsys_display", "dumpsys display | grep DisplayViewport", re.compile(ADBUTILS_DISPLAY_RE.pattern.encode())),
    (
        "dumpsys_power",
        "dumpsys power | grep -E 'mWakefulness=|Display Power:'",
        b"  mWakefulness=Awake\nDisplay Power: state=ON\n",
    ),
    ("screen_brightness", "settings get system screen_brightness", b"102\n"),
    ("ip_addr", "ip addr show dev wlan0 | grep 'inet '", b"    inet 10.0.2.16/24 brd 10.0.2.255 scope global wlan0\n"),
    (
        "ip_route",
        "ip route",
        b"10.0.2.0/24 dev eth0 proto kernel scope link src 10.0.2.15 \n"
        b"10.0.2.0/24 dev wlan0 proto kernel scope link src 10.0.2.16 \n",
    ),
    (
        "proc_version",
        "cat /proc/version",
        re.compile(rb"^Linux version 6\.6\.\S+-android15\S* \(.*\) #1 SMP PREEMPT .+\n$"),
    ),
    (
        "logcat_start_lines",
        "am start -W -n dev.mobileagent.fixture/.MainActivity > /dev/null; "
        "logcat -d | grep -c 'ActivityManager: Start proc [0-9]*:dev.mobileagent.fixture/u0a'",
        re.compile(rb"^[1-9]\d*\n$"),
    ),
    ("uiautomator_dump", "uiautomator dump", b"UI hierchary dumped to: /sdcard/window_dump.xml\n"),
    ("ls_total", f"cd {TMP} && rm -rf lt && mkdir lt && echo x > lt/f && ls -l lt | head -n 1", b"total 4\n"),
    (
        "system_bin",
        "ls -l /system/bin/sh /system/bin/ls | awk '{print $1, $3, $4, $8, $9, $10}'; "
        "[ -f /system/bin/mksh ] && echo mksh is there",  # toybox sorts its arguments
        b"lrwxr-xr-x root shell /system/bin/ls -> toybox\nlrwxr-xr-x root shell /system/bin/sh -> mksh\nmksh is "
        b"there\n",
    ),
]


def attached(lab: VirtualLab) -> None:
    """Until the real server has the device again (tests of this module drop its transport)."""
    assert lab.real is not None
    lab.real.wait_for(lab.serials, time.monotonic() + 10.0)


def adb_shell(port: int, serial: str, command: str, **env: str) -> tuple[int, bytes, bytes]:
    assert ADB is not None
    environment = {k: v for k, v in os.environ.items() if k != "TERM"} | env
    result = subprocess.run([ADB, "-P", str(port), "-s", serial, "shell", command], capture_output=True,
                            env=environment, timeout=30, check=False)
    return result.returncode, result.stdout, result.stderr


@pytest.mark.parametrize(("name", "command", "expected"), SHELL_CASES, ids=[case[0] for case in SHELL_CASES])
def test_a_command_answers_as_the_real_tool_on_both_fronts(lab: VirtualLab, name: str, command: str,
                                                            expected: bytes | re.Pattern[bytes]) -> None:
    serial = lab.serials[0]
    attached(lab)
    real = adb_shell(lab.adb_port, serial, command)
    builtin = adb_shell(lab.builtin_adb_port, serial, command)
    assert builtin == real, f"{name}: the real server gave {real!r}, the built-in endpoint {builtin!r}"
    status, out, err = real
    assert (status, err) == (0, b""), f"{name}: {real!r}"
    if isinstance(expected, re.Pattern):
        assert expected.fullmatch(out) or expected.match(out), f"{name}: {out!r} does not match {expected.pattern!r}"
    else:
        assert out == expected, f"{name}: {out!r}"


def test_term_comes_from_the_client_on_both_fronts_for_raw_shells_too(lab: VirtualLab) -> None:
    serial = lab.serials[0]
    attached(lab)
    for port in (lab.adb_port, lab.builtin_adb_port):
        assert adb_shell(port, serial, "echo $TERM", TERM="vt100") == (0, b"vt100\n", b"")


def test_ps_shows_each_process_its_own_memory_and_wait_channel_on_both_fronts(lab: VirtualLab) -> None:
    serial = lab.serials[0]
    command = "ps -A | grep -E ' (init|zygote64|system_server|logd)$'"
    attached(lab)
    real = adb_shell(lab.adb_port, serial, command)
    assert adb_shell(lab.builtin_adb_port, serial, command) == real
    rows = [line.split() for line in real[1].decode().splitlines()]
    assert len(rows) == 4
    assert len({row[3] for row in rows}) == 4 and len({row[4] for row in rows}) == 4  # VSZ, RSS
    assert {row[5] for row in rows} >= {"do_epoll_wait", "do_sys_poll"}  # WCHAN


def test_adb_root_restarts_adbd_as_root_and_unroot_undoes_it_on_both_fronts(lab: VirtualLab) -> None:
    assert ADB is not None
    serial = lab.serials[0]

    def adb_at(port: int, *args: str) -> tuple[int, bytes]:
        result = subprocess.run(
            [ADB, "-P", str(port), "-s", serial, *args], capture_output=True, timeout=30, check=False
        )
        return result.returncode, result.stdout

    attached(lab)
    for port in (lab.adb_port, lab.builtin_adb_port):
        assert adb_at(port, "root") == (0, b"restarting adbd as root\n")  # restart_service.cpp's texts
        # the old adbd starts nothing more ("error: closed"), the new one runs shells as root
        assert wait_until(lambda p=port: adb_at(p, "shell", "id -u") == (0, b"0\n"), timeout=10.0)
        assert adb_at(port, "root") == (0, b"adbd is already running as root\n")
        assert adb_at(port, "unroot") == (0, b"restarting adbd as non root\n")
        assert wait_until(lambda p=port: adb_at(p, "shell", "id -u") == (0, b"2000\n"), timeout=10.0)
