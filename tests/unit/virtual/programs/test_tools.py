"""The tools people type on the device: the real toybox and awk on staged copies (never a host
path), and the ones written against the device's files and processes (cp, mv, ln, tee, dd, du, df,
mount, find, xargs, tr, nc, ip, ifconfig, ls, ps), with the real tools' outputs and messages."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.kernel import confine
from pytest_mobile_agent.virtual.kernel.creds import ROOT
from pytest_mobile_agent.virtual.programs import hosttools, sedscript
from tests.support.virtual_shell import run_shell as run

TMP = "/data/local/tmp"
needs_toybox = pytest.mark.skipif(
    hosttools.locate(hosttools.TOYBOX) is None, reason="no toybox: apt-get install toybox"
)
needs_awk = pytest.mark.skipif(hosttools.locate(hosttools.AWK) is None or confine.available() is None,
                               reason="awk needs original-awk and Landlock")


# --- the real toybox on staged copies ------------------------------------------------------------


@needs_toybox
def test_file_arguments_come_from_the_device_and_relative_names_stay_as_given(vdev: VirtualDevice) -> None:
    vdev.shell(f"printf 'b\\na\\n' > {TMP}/f")
    digest = _md5(b"b\na\n")
    assert run(vdev, f"cd {TMP}; sort f; md5sum f; md5sum {TMP}/f") == (
        0,
        f"a\nb\n{digest}  f\n{digest}  {TMP}/f\n",
        "",
    )


def _md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()  # the digest md5sum prints


@needs_toybox
def test_a_missing_or_unreadable_file_gets_the_tools_own_message(vdev: VirtualDevice) -> None:
    assert run(vdev, "sed p /nope") == (1, "", "sed: /nope: No such file or directory\n")
    vdev.fs.add_file("/data/local/tmp/secret", b"x", 0o600, 0, 0)  # root's, unreadable for the shell user
    assert run(vdev, f"cut -c1 {TMP}/secret") == (1, "", f"cut: {TMP}/secret: Permission denied\n")


@needs_toybox
def test_what_a_tool_writes_goes_back_to_the_device_with_the_callers_rights(vdev: VirtualDevice) -> None:
    vdev.shell(f"printf 'x\\ny\\n' > {TMP}/f")
    assert run(vdev, f"cd {TMP}; sed -i s/x/X/ f; sort -r -o g f; cat f g") == (0, "X\ny\ny\nX\n", "")
    assert run(vdev, 'sed "w /data/local/tmp/w" /data/local/tmp/f > /dev/null; cat /data/local/tmp/w') == (
        0,
        "X\ny\n",
        "",
    )
    before = vdev.fs.read_file("/system/build.prop", ROOT)
    status, _, err = run(vdev, "sed -i s/a/b/ /system/build.prop")
    assert status == 1 and err.startswith("sed: ")
    assert vdev.fs.read_file("/system/build.prop", ROOT) == before


@needs_toybox
def test_no_host_path_reaches_a_tool(vdev: VirtualDevice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stagings: list[str] = []
    original = hosttools.Staging.__init__

    def recording(self: hosttools.Staging, *args: object) -> None:
        original(self, *args)  # type: ignore[arg-type]
        stagings.append(self.base)

    monkeypatch.setattr(hosttools.Staging, "__init__", recording)
    host_file = tmp_path / "host-only"
    host_file.write_text("host secret\n")
    # absolute names, names climbing above /, and sed's r and w commands all stay on the device
    for command in (f"cat {host_file} | wc -c", f"sort {host_file}", f"cd {TMP}; sort ../../../../../../..{host_file}",
                    f"echo x | sed 'r {host_file}'", f"echo leak | sed 'w {tmp_path}/written'"):
        status, out, err = run(vdev, command)
        assert "host secret" not in out and "host secret" not in err, command
    assert not (tmp_path / "written").exists()
    assert run(vdev, f"sort {host_file}") == (2, "", f"sort: {host_file}: No such file or directory\n")  # ARGFAIL(2)
    assert stagings and not [base for base in stagings if os.path.exists(base)]  # every staging removed


@needs_toybox
def test_a_tool_given_files_leaves_the_loops_input_alone(vdev: VirtualDevice) -> None:
    vdev.shell(f"echo content > {TMP}/f")
    assert run(vdev, f"printf '1\\n2\\n' | while read n; do echo $n $(md5sum {TMP}/f | cut -c1-4); done") == (
        0, f"1 {_md5(b'content' + bytes([10]))[:4]}\n2 {_md5(b'content' + bytes([10]))[:4]}\n", "")


@needs_toybox
def test_tail_f_of_a_device_file_is_refused_not_faked(vdev: VirtualDevice) -> None:
    vdev.shell(f"echo x > {TMP}/f")
    assert run(vdev, f"tail -f {TMP}/f") == (1, "", "tail: -f of a file on the virtual device is not modelled "
                                                   "(its staged copy never grows)\n")


def test_without_the_binary_a_tool_exits_127_naming_the_package(
    vdev: VirtualDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hosttools, "locate", lambda binary: None)
    status, out, err = run(vdev, "echo a | sed s/a/b/")
    assert (status, out) == (127, "")
    assert "apt-get install toybox" in err and err.startswith("sed: ")
    status, _, err = run(vdev, "echo 1 | awk '{print}'")
    assert status == 127 and "apt-get install original-awk" in err


@needs_awk
def test_awk_runs_confined_no_command_no_host_file(vdev: VirtualDevice, tmp_path: Path) -> None:
    (tmp_path / "host").write_text("host secret\n")
    program = (f'BEGIN {{ print system("id"); n = (getline line < "{tmp_path}/host"); print n; '
               f'print "x" > "{tmp_path}/out"; print "done" }}')
    status, out, _ = run(vdev, f"awk '{program}'")
    assert "host secret" not in out and not (tmp_path / "out").exists()
    assert out.splitlines()[0] != "0"  # system() could not run a command
    assert run(vdev, "printf '1 a\\n2 b\\n' | awk '$1 > 1 {print $2}'") == (0, "b\n", "")


def test_the_sed_walk_finds_the_file_commands_as_toybox_parses_them() -> None:
    def names(script: str) -> list[tuple[str, str]]:
        return [(n.command, script[n.start : n.end]) for n in sedscript.file_names(script)]

    assert names("s/a/b/gw /data/x") == [("w", "/data/x")]
    assert names("/x/r /etc/passwd") == [("r", "/etc/passwd")]
    assert names("1,/[/]w/d;s,/,x,") == []  # a delimiter inside a bracket range does not count
    assert names("a\\\nhello w x") == []  # a, i, c take text
    assert names("y/abc/xyz/;p") == []
    with pytest.raises(ValueError, match="'e'"):
        sedscript.file_names("e ls")


# --- the tools written against the device ---------------------------------------------------------


def test_head_c_and_wc_count_as_toybox(vdev: VirtualDevice) -> None:
    assert run(vdev, "printf 'a\\nb\\nc\\n' | head -c 3; echo; echo abc | wc -c; echo abc | wc") == (
        0, "a\nb\n4\n      1       1       4\n", "")
    assert run(vdev, "seq 100000 | head -n 2") == (0, "1\n2\n", "")


@needs_toybox  # its pipeline's cut runs the host's toybox
def test_cp_mv_ln_and_their_messages(vdev: VirtualDevice) -> None:
    status, out, err = run(
        vdev,
        f"cd {TMP}; echo hi > a; cp nope x; cp a; cp a b; mkdir d; cp d e; cp -r d e; mv nope x; "
        "ln -s a l; ln -s a l; ln a h; ls -l a | cut -c11-12; cp a /system/x; mv b m; ls",
    )
    assert out == " 2\na\nd\ne\nh\nl\nm\n"
    assert err == ("cp: bad 'nope': No such file or directory\ncp: Needs 2 arguments\n"
                   "cp: Skipped dir 'e': No such file or directory\nmv: bad 'nope': No such file or directory\n"
                   "ln: cannot create symbolic link from 'a' to 'l': File exists\n"
                   "cp: /system/x: Read-only file system\n")
    assert status == 0


@needs_toybox  # its pipeline's cut runs the host's toybox
def test_tee_dd_du_df_and_mount(vdev: VirtualDevice) -> None:
    assert run(vdev, f"echo t | tee {TMP}/t1 {TMP}/t2 >/dev/null; cat {TMP}/t2; echo x | tee /system/x") == (
        1, "t\nx\n", "tee: /system/x: Read-only file system\n")
    status, out, err = run(vdev, f"dd if=/dev/zero of={TMP}/z bs=4k count=2; stat -c %s {TMP}/z")
    assert (status, out) == (0, "8192\n") and err.startswith(
        "2+0 records in\n2+0 records out\n8192 bytes (8.0 K) copied, "
    )
    assert run(vdev, f"cd {TMP}; mkdir -p q/r; echo x > q/r/f; du q") == (0, "8\tq/r\n12\tq\n", "")
    assert run(vdev, "df /data | tail -n 1 | cut -c1-15; mount | grep ' /data '") == (
        0,
        "/dev/block/dm-5\n/dev/block/dm-5 on /data type ext4 "
        "(rw,seclabel,nosuid,nodev,noatime,resgid=1065,errors=panic)\n",
        "",
    )


def test_find_and_xargs_run_device_programs(vdev: VirtualDevice) -> None:
    vdev.shell(f"cd {TMP}; mkdir -p q/r; touch q/a q/r/b")
    assert run(
        vdev,
        f"cd {TMP}; find q; find q -name b; find q -type f -exec echo X {{}} \\;; find q -type f -exec echo {{}} +",
    ) == (0, "q\nq/a\nq/r\nq/r/b\nq/r/b\nX q/a\nX q/r/b\nq/a q/r/b\n", "")
    assert run(vdev, "find /nope; find /data -maxdepth 1") == (
        1, "/data\n", "find: '/nope': No such file or directory\nfind: '/data': Permission denied\n")
    assert run(
        vdev, "printf 'a b\\nc\\n' | xargs -n 2 echo; echo x | xargs nope; echo $?; printf '' | xargs -r echo no"
    ) == (0, "a b\nc\n127\n", "xargs: exec nope: No such file or directory\n")


def test_tr_as_toybox_builds_it(vdev: VirtualDevice) -> None:
    assert run(
        vdev, "echo Hello | tr a-z A-Z; echo hello | tr -d l; echo 'a  b' | tr -s ' '; echo abc | tr -c a x; echo"
    ) == (0, "HELLO\nheo\na b\naxxx\n", "")
    assert run(vdev, "echo ab | tr '[:lower:]' '[:upper:]'; echo x | tr z-a q") == (
        1,
        "AB\n",
        "tr: reverse colating order\n",
    )


def test_the_network_as_iproute2_and_toybox_show_it(vdev: VirtualDevice) -> None:
    status, out, _ = run(vdev, "ifconfig wlan0")
    assert status == 0 and "inet addr:10.0.2.16  Bcast:10.0.2.255  Mask:255.255.255.0 \n" in out
    assert run(vdev, "ip addr show dev nope; ip foo") == (
        255,
        "",
        'Device "nope" does not exist.\nObject "foo" is unknown, try "ip help".\n',
    )
    assert run(vdev, "nc 127.0.0.1 1; nc 8.8.8.8 53") == (
        1,
        "",
        "nc: connect: Connection refused\nnc: connect: Network is unreachable\n",
    )


def test_nc_reaches_a_listener_of_the_device(vdev: VirtualDevice) -> None:
    import threading

    listener = vdev.sockets.listen_tcp(7001, 1)

    def serve() -> None:
        stream, _ = listener.accept(5)
        stream.send(b"hello from the device\n")
        stream.close()

    threading.Thread(target=serve, daemon=True).start()
    assert run(vdev, "nc 127.0.0.1 7001") == (0, "hello from the device\n", "")
    listener.close()


def test_ls_long_lists_with_toyboxs_total_and_columns(vdev: VirtualDevice) -> None:
    vdev.shell(f"cd {TMP}; mkdir lt; echo x > lt/f; mkdir lt/d")
    status, out, _ = run(vdev, f"ls -l {TMP}/lt")
    lines = out.splitlines()
    assert status == 0 and lines[0] == "total 8"
    assert lines[1].startswith("drwxrwxrwx 2 shell shell 4096 ") and lines[1].endswith(" d")
    assert lines[2].startswith("-rw-rw-rw- 1 shell shell    2 ") and lines[2].endswith(" f")
    assert run(vdev, "ls -l /system/bin/sh") == (
        0,
        "lrwxr-xr-x 1 root shell 4 2009-01-01 00:00 /system/bin/sh -> mksh\n",
        "",
    )


@needs_toybox  # its pipeline's cut runs the host's toybox
def test_ps_columns_follow_toybox_show_ps(vdev: VirtualDevice) -> None:
    status, out, _ = run(vdev, "ps -A -o PID,VSZ,RSS,WCHAN,NAME | head -n 3")
    assert status == 0
    assert out.splitlines()[0] == "  PID     VSZ    RSS WCHAN  " + "NAME".ljust(27)
    assert out.splitlines()[1].split() == ["1", "10943540", "12808", "do_epoll_wait", "init"]
    # a sleeper that ps sees before it ends; the shell's run waits for it, so 1 s rather than 5
    assert run(vdev, "sleep 1 & ps -o PID,WCHAN,NAME | grep sleep | cut -c7-")[1] == "hrtimer_nanosleep sleep\n"
    assert run(vdev, "ps -o PID,BOGUS") == (1, "", "ps: bad -o 'PID,BOGUS'\n                ^\n")


def test_toybox_runs_its_applets_and_lists_them(vdev: VirtualDevice) -> None:
    assert run(vdev, "toybox echo hi; toybox --version; toybox nope; echo $?") == (
        0, "hi\ntoybox 0.8.11-android\n127\n", 'toybox: Unknown command nope (see "toybox --help")\n')
    assert "sed" in run(vdev, "toybox")[1].split()


def test_the_procfs_device_files(vdev: VirtualDevice) -> None:
    status, out, _ = run(vdev, "cat /proc/version; uname -a")
    version, uname = out.splitlines()
    assert status == 0 and version.startswith(f"Linux version {vdev.kernel_release} (")
    assert uname == f"Linux localhost {vdev.kernel_release} {vdev.kernel_build} x86_64 Toybox"
    assert run(vdev, "head -n 1 /proc/mounts")[1] == "/dev/block/dm-0 / ext4 ro,seclabel,relatime 0 0\n"


def test_sleep_reads_ascii_digits_and_a_fraction_as_toybox_xparsetime_does(vdev: VirtualDevice) -> None:
    assert run(vdev, "sleep 0.01 .01 0.01s; echo $?") == (0, "0\n", "")
    for odd in ("٣", "1e3", "inf", "0x1"):
        assert run(vdev, f"sleep {odd}") == (1, "", f"sleep: Not a number '{odd}'\n")
