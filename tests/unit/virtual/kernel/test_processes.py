"""The process model: parents, reparenting, signals, ignore masks, stream close, /proc."""

from __future__ import annotations

import time

from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.kernel import process as pm
from tests.support.polling import wait_until
from tests.support.virtual_shell import ShellClient

LAUNCH = (
    "read -r t && (trap '' HUP PIPE; MOBILE_AGENT_TOKEN=\"$t\" CLASSPATH=/data/local/tmp/x.jar "
    "exec app_process / dev.mobileagent.agent.Main serve --socket S --idle-exit-ms 10000 </dev/null &)"
)
TOKEN = "0123456789abcdef0123456789abcdef"


def status_field(vdev: VirtualDevice, pid: int, name: str) -> str:
    text = vdev.fs.read_file(f"/proc/{pid}/status", device_cred()).decode()
    for line in text.splitlines():
        key, _, value = line.partition(":\t")
        if key == name:
            return value
    raise AssertionError(f"{name} not in /proc/{pid}/status")


def device_cred():  # noqa: ANN201 - the shell user's credentials
    from pytest_mobile_agent.virtual.kernel.creds import Cred

    return Cred(2000)


def pids_named(vdev: VirtualDevice, text: str) -> list[int]:
    return [p.pid for p in vdev.processes.processes() if p.args_line() == text]


def install_agent_stand_in(vdev: VirtualDevice, seen: dict[str, object]) -> None:
    """A main class that behaves as the agent does at the process level: rename, print, serve."""

    def main(proc: pm.Process, args: list[str]) -> int:
        socket = args[args.index("--socket") + 1]
        proc.set_name(f"mobile-agent {socket}")
        seen["token"] = proc.env.get("MOBILE_AGENT_TOKEN")
        listener = vdev.sockets.listen_abstract(socket, proc.pid)
        proc.stdout.write(f"ready {proc.pid}\n")
        while True:
            try:
                stream, uid = listener.accept(None, waiter=proc)
            except Exception:  # noqa: BLE001 - the listener closed
                return 0
            try:
                proc.stdout.write(f"refused uid {uid}\n" if uid == 0 else "client\n")
                seen.setdefault("writes", []).append("ok")  # type: ignore[union-attr]
            except BrokenPipeError:
                seen.setdefault("writes", []).append("EPIPE")  # type: ignore[union-attr]
            stream.close()

    vdev.app_process_mains["dev.mobileagent.agent.Main"] = main
    vdev.fs.add_file("/data/local/tmp/x.jar", b"PK\x03\x04", 0o444, 2000, 2000)


def test_the_agent_launch_line_detaches_ignores_hup_and_pipe_and_hides_the_token(vdev: VirtualDevice) -> None:
    seen: dict[str, object] = {}
    install_agent_stand_in(vdev, seen)
    client = ShellClient(vdev, LAUNCH)
    client.write(TOKEN.encode() + b"\n")
    out = client.read_until(b"\n").decode()
    pid = int(out.split()[1])
    client.close()  # dropping the stream: SIGHUP to the shell, which has exited already
    time.sleep(0.05)
    proc = vdev.processes.get(pid)
    assert proc is not None and not proc.dead
    assert status_field(vdev, pid, "PPid") == "1"
    assert status_field(vdev, pid, "SigIgn") == "0000000000001001"
    assert status_field(vdev, pid, "SigBlk") == "0000000080001204"
    assert seen["token"] == TOKEN
    cmdline = vdev.fs.read_file(f"/proc/{pid}/cmdline", device_cred())
    assert cmdline.rstrip(b"\0") == b"mobile-agent S" and TOKEN.encode() not in cmdline
    environ = vdev.fs.read_file(f"/proc/{pid}/environ", device_cred())  # its owner may read it
    assert f"MOBILE_AGENT_TOKEN={TOKEN}\0".encode() in environ
    status, ps, _ = vdev.shell("ps -A -o PID,ARGS")
    assert f"{pid:>5} mobile-agent S\n".encode() in ps
    # a root peer makes it print on the closed stdout: EPIPE, and it keeps serving
    vdev.sockets.connect_abstract("S", peer_uid=0).close()
    assert wait_until(lambda: seen.get("writes") == ["EPIPE"])
    assert vdev.processes.get(pid) is not None
    vdev.sockets.connect_abstract("S", peer_uid=2000).close()
    assert wait_until(lambda: seen.get("writes") == ["EPIPE", "EPIPE"])


def test_a_background_process_outlives_its_shell_and_is_reparented_to_init(vdev: VirtualDevice) -> None:
    status, out, _ = vdev.shell("(sleep 30 </dev/null >/dev/null 2>&1 &); echo started")
    assert (status, out) == (0, b"started\n")
    [pid] = pids_named(vdev, "sleep 30")
    assert vdev.processes.get(pid).ppid == 1  # type: ignore[union-attr]
    assert status_field(vdev, pid, "PPid") == "1"


def test_environ_is_readable_by_its_owner_only(vdev: VirtualDevice) -> None:
    assert vdev.shell("cat /proc/1/environ") == (1, b"", b"cat: /proc/1/environ: Permission denied\n")
    assert vdev.shell("X=y sh -c 'cat /proc/self/environ'")[1].split(b"\0").count(b"X=y") == 1


def test_trap_ignore_hup_pipe_shows_in_sigign(vdev: VirtualDevice) -> None:
    status, out, _ = vdev.shell("trap '' HUP PIPE; cat /proc/self/status")
    assert status == 0
    assert b"SigIgn:\t0000000000001001\n" in out


def test_closing_a_shell_stream_ends_its_foreground_sleep_with_sighup(vdev: VirtualDevice) -> None:
    client = ShellClient(vdev, "sleep 60")
    assert wait_until(lambda: bool(pids_named(vdev, "sleep 60")))
    [pid] = pids_named(vdev, "sleep 60")
    proc = vdev.processes.get(pid)
    assert proc is not None
    client.close()
    assert wait_until(lambda: proc.dead, 1.0)
    assert proc.exit_status == 128 + pm.SIGHUP


def test_a_command_with_hup_ignored_survives_the_stream_close(vdev: VirtualDevice) -> None:
    client = ShellClient(vdev, "trap '' HUP; sleep 60")
    assert wait_until(lambda: bool(pids_named(vdev, "sleep 60")))
    [pid] = pids_named(vdev, "sleep 60")
    client.close()
    time.sleep(0.05)
    assert vdev.processes.get(pid) is not None


def test_kill_ends_a_process_with_128_plus_the_signal(vdev: VirtualDevice) -> None:
    status, out, _ = vdev.shell(
        "sleep 30 & p=$!; kill -9 $p; wait $p; echo $?; sleep 30 & kill -s TERM $!; wait $!; echo $?"
    )
    assert (status, out) == (0, b"137\n143\n")


def test_kill_of_a_missing_pid_says_no_such_process(vdev: VirtualDevice) -> None:
    status, _, err = vdev.shell("kill 31999")
    assert status == 1 and err == b"/system/bin/sh: kill: 31999: No such process\n"


def test_the_shell_user_may_not_signal_root_processes(vdev: VirtualDevice) -> None:
    status, _, err = vdev.shell("kill -9 1")
    assert status == 1 and err == b"/system/bin/sh: kill: 1: Operation not permitted\n"


def test_stop_and_continue(vdev: VirtualDevice) -> None:
    client = ShellClient(vdev, "sleep 0.5; echo done")
    assert wait_until(lambda: bool(pids_named(vdev, "sleep 0.5")))
    [pid] = pids_named(vdev, "sleep 0.5")
    vdev.processes.kill(pid, pm.SIGSTOP, 2000)
    assert vdev.processes.get(pid).state_letter() == "T"  # type: ignore[union-attr]
    time.sleep(0.6)  # past the sleep's deadline: only SIGCONT lets it end
    assert not client.pump(0.05) or b"done" not in client.stdout
    vdev.processes.kill(pid, pm.SIGCONT, 2000)
    assert client.wait(2.0) == 0 and client.stdout == b"done\n"


def test_a_stream_stays_open_while_a_background_child_holds_stdout(vdev: VirtualDevice) -> None:
    client = ShellClient(vdev, "sleep 0.2 & echo now")
    client.close_stdin()
    client.read_until(b"now\n")
    assert client.status is None and not client.ended
    assert client.wait(2.0) == 0


def test_a_command_reading_stdin_sees_end_of_file(vdev: VirtualDevice) -> None:
    client = ShellClient(vdev, "cat; echo end")
    client.write(b"some input\n")
    client.close_stdin()
    assert client.wait() == 0
    assert client.stdout == b"some input\nend\n"


def test_a_pty_stream_runs_the_command_on_a_terminal(vdev: VirtualDevice) -> None:
    client = ShellClient(vdev, "tty; echo err >&2", pty=True)
    assert client.wait() == 0
    assert client.stdout == b"/dev/pts/0\r\nerr\r\n" and client.stderr == b""


def test_writing_to_a_pipe_without_a_reader_raises_sigpipe_or_epipe_when_ignored(vdev: VirtualDevice) -> None:
    writers: list[pm.Process] = []
    outcomes: list[str] = []

    def spew(proc: pm.Process) -> int:
        writers.append(proc)
        try:
            while True:
                proc.stdout.write(b"x" * 1024)
        except BrokenPipeError:
            outcomes.append("EPIPE")
            return 3

    def closer(proc: pm.Process) -> int:
        proc.stdin.close()
        return 0

    vdev.programs.register("spew", spew)
    vdev.programs.register("closer", closer)
    assert vdev.shell("spew | closer; echo $?") == (0, b"0\n", b"")
    assert writers[0].exit_status == 128 + pm.SIGPIPE and outcomes == []
    assert vdev.shell("trap '' PIPE; spew | closer") == (0, b"", b"")
    assert writers[1].exit_status == 3 and outcomes == ["EPIPE"]


def test_two_devices_have_separate_pids_files_and_serials() -> None:
    a, b = VirtualDevice("emulator-5554"), VirtualDevice("emulator-5556")
    try:
        a.shell("echo a > /data/local/tmp/which")
        assert b.shell("cat /data/local/tmp/which")[0] == 1
        assert a.getprop("ro.serialno") != b.getprop("ro.serialno")
        a.shell("sleep 30 >/dev/null 2>&1 &")
        assert not [p for p in b.processes.processes() if "sleep" in p.args_line()]
    finally:
        a.close()
        b.close()


def test_a_pty_takes_the_window_size_and_ignores_close_stdin(vdev: VirtualDevice) -> None:
    from pytest_mobile_agent.adb.wire import SHELL_WINDOW_SIZE, encode_shell_packet

    client = ShellClient(vdev, "cat", pty=True)
    client.stream.send(encode_shell_packet(SHELL_WINDOW_SIZE, b"50x132,0x0\0"))
    client.close_stdin()  # adbd: "PTYs can't close just input"
    assert not client.pump(0.1) and client.status is None
    pty = client.stream.pty  # type: ignore[attr-defined]
    assert (pty.rows, pty.cols) == (50, 132)
    client.write(b"typed\r")
    assert client.read_until(b"typed\r\ntyped\r\n")  # the terminal's echo, then cat's copy


def test_kill_0_checks_that_a_process_exists(vdev: VirtualDevice) -> None:
    assert vdev.shell("kill -0 $$; echo $?; kill -0 31999 2>/dev/null; echo $?") == (0, b"0\n1\n", b"")


def test_a_caught_signal_interrupts_a_programs_blocking_call(vdev: VirtualDevice) -> None:
    seen: list[int] = []

    def server(proc: pm.Process) -> int:
        proc.signals.catch(pm.SIGTERM)
        try:
            proc.sleep(30)
        except pm.Interrupted as interrupted:
            seen.append(interrupted.sig)
            return 0
        return 1

    vdev.programs.register("server", server)
    status, out, _ = vdev.shell("server & p=$!; sleep 0.05; kill $p; wait $p; echo $?")
    assert (status, out, seen) == (0, b"0\n", [pm.SIGTERM])


def test_proc_state_is_running_for_the_reader_and_sleeping_for_a_waiting_shell(vdev: VirtualDevice) -> None:
    status, out, _ = vdev.shell("grep State /proc/self/status; ps -o S -p $$")
    assert (status, out) == (0, b"State:\tR (running)\nS\nS\n")
