"""What the kernel synthesizes in the file system: `/proc` and `/dev/tty`.

`mount_procfs(fs, processes, booted, sockets)` gives the file system its providers: per process
`/proc/<pid>/cmdline`, `status`, `stat`, `comm` and `environ` (readable by the owner only), the
device-wide `/proc/version` (a GKI 6.6 kernel's line, as `uname -a` reports it too), `/proc/mounts`,
`/proc/uptime` and, given the socket namespace, `/proc/net/unix` (kernel/net_unix.py), and
`/dev/tty`, the asking process's controlling terminal (ENXIO without one).
"""

from __future__ import annotations

import errno
import os
import time

from pytest_mobile_agent.virtual.kernel import mounts
from pytest_mobile_agent.virtual.kernel.creds import Cred
from pytest_mobile_agent.virtual.kernel.fs import FileSystem
from pytest_mobile_agent.virtual.kernel.net_unix import proc_net_unix
from pytest_mobile_agent.virtual.kernel.process import Process, ProcessTable, mask_of
from pytest_mobile_agent.virtual.kernel.sockets import SocketNamespace
from pytest_mobile_agent.virtual.kernel.streams import OpenFile

KERNEL_RELEASE = "6.6.66-android15-8-g3b8e3f1f9a4e-ab13086044"
KERNEL_BUILD = "#1 SMP PREEMPT Fri Mar 14 03:52:47 UTC 2025"
KERNEL_COMPILER = ("(kleaf@build-host) (Android (12833971, +pgo, +bolt, +lto, +mlgo, based on r536225) clang version "
                   "19.0.1 (https://android.googlesource.com/toolchain/llvm-project "
                   "b3a530ec6537146650e42be89f1089e9a3588460), "
                   "LLD 19.0.1)")


def mount_procfs(fs: FileSystem, processes: ProcessTable, booted: float,
                 sockets: SocketNamespace | None = None) -> None:
    """Serve /proc from the process table and /dev/tty from the asking process's fds; `booted` is
    the monotonic time the device booted at (/proc/uptime)."""
    fs.proc_provider = lambda pid: process_files(processes, pid)
    fs.proc_globals = lambda: global_files(booted, sockets)
    fs.proc_owner = lambda pid: proc.uid if (proc := processes.get(pid)) is not None else 0
    fs.pid_lister = lambda: [p.pid for p in processes.processes()]
    fs.tty_opener = lambda cred: open_controlling_tty(processes, cred)


def open_controlling_tty(processes: ProcessTable, cred: Cred) -> OpenFile:
    proc = processes.get(cred.pid)
    tty_file = None
    if proc is not None and proc.tty is not None:
        for file in proc.fds.values():
            if file.isatty():
                tty_file = file
                break
    if tty_file is None:
        raise OSError(errno.ENXIO, os.strerror(errno.ENXIO), "/dev/tty")
    return tty_file.dup()


def process_files(processes: ProcessTable, pid: int) -> dict[str, bytes] | None:
    proc = processes.get(pid)
    if proc is None:
        return None
    return {
        "cmdline": proc.cmdline_bytes(),
        "status": proc_status(proc).encode(),
        "stat": proc_stat(proc).encode(),
        "comm": (proc.comm + "\n").encode(),
        "environ": b"".join(f"{k}={v}".encode() + b"\0" for k, v in proc.env.items()),
    }


def global_files(booted: float, sockets: SocketNamespace | None = None) -> dict[str, bytes]:
    """/proc/version, /proc/mounts, /proc/uptime, /proc/net/unix."""
    uptime = time.monotonic() - booted
    files = {
        "version": f"Linux version {KERNEL_RELEASE} {KERNEL_COMPILER} {KERNEL_BUILD}\n".encode(),
        "mounts": mounts.proc_mounts(),
        "uptime": f"{uptime:.2f} {uptime * 1.7:.2f}\n".encode(),
    }
    if sockets is not None:
        files["net/unix"] = proc_net_unix(sockets)
    return files


def proc_status(proc: Process) -> str:
    state = {"S": "S (sleeping)", "T": "T (stopped)", "Z": "Z (zombie)", "R": "R (running)"}[proc.state_letter()]
    sig = proc.signals
    uid = proc.uid
    groups = "" if uid != 2000 else "1004 1007 1011 1015 1028 3001 3002 3003 3006 3009 3011 "
    return (
        f"Name:\t{proc.comm}\n"
        "Umask:\t0000\n"
        f"State:\t{state}\n"
        f"Tgid:\t{proc.pid}\n"
        "Ngid:\t0\n"
        f"Pid:\t{proc.pid}\n"
        f"PPid:\t{proc.ppid}\n"
        "TracerPid:\t0\n"
        f"Uid:\t{uid}\t{uid}\t{uid}\t{uid}\n"
        f"Gid:\t{proc.gid}\t{proc.gid}\t{proc.gid}\t{proc.gid}\n"
        "FDSize:\t64\n"
        f"Groups:\t{groups}\n"
        f"VmPeak:\t{proc.memory[0] + 4096:8} kB\nVmSize:\t{proc.memory[0]:8} kB\nVmRSS:\t{proc.memory[1]:8} kB\n"
        f"Threads:\t{1 if proc.thread is None else 1}\n"
        "SigQ:\t0/63197\n"
        f"SigPnd:\t{0:016x}\n"
        f"ShdPnd:\t{mask_of(sig.blocked_pending):016x}\n"
        f"SigBlk:\t{sig.blocked:016x}\n"
        f"SigIgn:\t{mask_of(sig.ignored):016x}\n"
        f"SigCgt:\t{mask_of(sig.caught):016x}\n"
        "CapInh:\t0000000000000000\n"
        f"CapPrm:\t{'000001ffffffffff' if uid == 0 else '0000000000000000'}\n"
        f"CapEff:\t{'000001ffffffffff' if uid == 0 else '0000000000000000'}\n"
        "CapBnd:\t00000000000000c0\n"
        "CapAmb:\t0000000000000000\n"
        "NoNewPrivs:\t0\n"
        "Seccomp:\t0\n"
        "Cpus_allowed_list:\t0-1\n"
        "voluntary_ctxt_switches:\t1\n"
        "nonvoluntary_ctxt_switches:\t0\n"
    )


def proc_stat(proc: Process) -> str:
    """fs/proc/array.c do_task_stat's fields; utime and stime (the 14th and 15th) in clock ticks of
    10 ms (CLK_TCK 100), the process's CPU time split four to one between user and system."""
    ticks = int(proc.cpu_ms // 10)
    utime = ticks * 4 // 5
    return (f"{proc.pid} ({proc.comm}) {proc.state_letter()} {proc.ppid} {proc.pgid} {proc.sid} "
            f"0 -1 4194560 0 0 0 0 {utime} {ticks - utime} 0 0 20 0 1 0 0 0 0\n")
