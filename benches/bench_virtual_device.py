"""The device model's own costs, on its seam (no sockets, no fronts): what the virtual device adds
to every request the fronts relay.

* `echo ok` as `adb shell` runs it: open `shell,v2,raw:echo ok`, close stdin, read to the exit
  packet (100 runs: p50, p95, max);
* a command that forks (`echo a; cat /proc/self/cmdline`, two processes);
* the agent launch line of the seed up to the ready line, with a stand-in main class;
* a 16 MiB push through `sync:` in 64 KiB DATA chunks (best of 3, MiB/s);
* a pipeline into the real toybox on a staged copy (`echo a | sed s/a/b/`: staging, a Landlock-
  confined spawn, the output), beside the same into a tool of the model (`echo a | tr a b`).

    python3 benches/bench_virtual_device.py [--runs 100] [--push-mib 16]
"""

from __future__ import annotations

import argparse
import statistics

from timing import timed

from pytest_mobile_agent.adb.wire import (
    SHELL_CLOSE_STDIN,
    SHELL_EXIT,
    SHELL_STDIN,
    SHELL_STDOUT,
    ShellPacketDecoder,
    encode_shell_packet,
    encode_sync,
)
from pytest_mobile_agent.virtual.device import VirtualDevice

LAUNCH = (
    "read -r t && (trap '' HUP PIPE; MOBILE_AGENT_TOKEN=\"$t\" CLASSPATH=/data/local/tmp/x.jar "
    "exec app_process / dev.mobileagent.agent.Main serve --socket S{n} --idle-exit-ms 10000 </dev/null &)"
)


def shell_round_trip(device: VirtualDevice, command: str) -> None:
    stream = device.open_service(f"shell,v2,raw:{command}")
    stream.send(encode_shell_packet(SHELL_CLOSE_STDIN, b""))
    decoder = ShellPacketDecoder()
    while True:
        data = stream.recv(5.0)
        if not data or any(kind == SHELL_EXIT for kind, _ in decoder.feed(data)):
            break
    stream.close()


def launch(device: VirtualDevice, n: int) -> None:
    stream = device.open_service("shell,v2,raw:" + LAUNCH.format(n=n))
    stream.send(encode_shell_packet(SHELL_STDIN, b"0123456789abcdef\n"))
    decoder = ShellPacketDecoder()
    while True:
        data = stream.recv(5.0)
        if any(kind == SHELL_STDOUT and b"ready" in payload for kind, payload in decoder.feed(data)):
            break
    stream.close()


def push(device: VirtualDevice, data: bytes) -> None:
    stream = device.open_service("sync:")
    stream.send(encode_sync(b"SEND", b"/data/local/tmp/mobile-agent-bench.bin,33188"))
    for start in range(0, len(data), 65536):
        stream.send(encode_sync(b"DATA", data[start : start + 65536]))
    stream.send(encode_sync(b"DONE", 0))
    assert stream.recv(5.0)[:4] == b"OKAY"
    stream.close()




def report(name: str, samples: list[float]) -> None:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    print(
        f"{name:<44} p50 {statistics.median(ordered):7.3f} ms  p95 {p95:7.3f} ms  max {ordered[-1]:7.3f} ms  "
        f"n={len(ordered)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--push-mib", type=int, default=16)
    args = parser.parse_args()
    device = VirtualDevice()

    def stand_in(proc, main_args):  # noqa: ANN001, ANN202 - the agent's process-level behaviour
        proc.set_name("mobile-agent " + main_args[main_args.index("--socket") + 1])
        proc.stdout.write(f"ready {proc.pid}\n")
        return 0

    device.app_process_mains["dev.mobileagent.agent.Main"] = stand_in
    device.fs.add_file("/data/local/tmp/x.jar", b"PK", 0o444, 2000, 2000)
    try:
        report("shell v2 `echo ok` on the seam", timed(lambda: shell_round_trip(device, "echo ok"), args.runs))
        report("shell v2, a fork and /proc (`echo a; cat ...`)", timed(
            lambda: shell_round_trip(device, "echo a; cat /proc/self/cmdline"), args.runs))
        report(
            "`echo a | sed s/a/b/` (the real toybox)",
            timed(lambda: shell_round_trip(device, "echo a | sed s/a/b/"), args.runs),
        )
        report(
            "`echo a | tr a b` (a tool of the model)",
            timed(lambda: shell_round_trip(device, "echo a | tr a b"), args.runs),
        )
        counter = iter(range(1_000_000))
        report("agent launch line to the ready line", timed(lambda: launch(device, next(counter)), min(args.runs, 50)))
        data = bytes(range(256)) * (args.push_mib * 4096)
        best = min(timed(lambda: push(device, data), 3))
        print(
            f"{'sync push of ' + str(args.push_mib) + ' MiB':<44} best {best:7.1f} ms  "
            f"{args.push_mib / (best / 1000):8.1f} MiB/s"
        )
    finally:
        device.close()


if __name__ == "__main__":
    main()
