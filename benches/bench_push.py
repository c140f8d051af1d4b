"""Push throughput: 16 MiB through `Device.push_bytes` beside adbutils, to the same sink, in one run.

The sink is a scripted adb server in its own process (so that it shares no GIL with the clients):
it answers host:version, host:transport / host:tport, `sync:`, and speaks the sync protocol,
counting the DATA bytes and answering DONE with OKAY only when every byte arrived (FAIL otherwise,
which fails the run). Rounds alternate between the clients so that both see the same machine.

    python3 benches/bench_push.py [--rounds 7] [--size-mib 16]

Prints, per client, the p50/p95/max of the push time and MB/s at the p50, then the ratio.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time

SERIAL = "bench-0001"
REMOTE = "/data/local/tmp/mobile-agent-bench"
_HEADER = struct.Struct("<4sI")


# --- the sink (child process) --------------------------------------------------------------------


class _Reader:
    """Buffered reads from a socket; skip() discards payload without keeping it."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = bytearray(1 << 20)
        self.view = memoryview(self.buffer)
        self.start = 0
        self.end = 0

    def _fill(self) -> bool:
        if self.start == self.end:
            self.start = self.end = 0
        elif self.end == len(self.buffer):
            size = self.end - self.start
            self.buffer[:size] = self.buffer[self.start : self.end]
            self.start, self.end = 0, size
        count = self.sock.recv_into(self.view[self.end :])
        self.end += count
        return count > 0

    def read(self, count: int) -> bytes:
        while self.end - self.start < count:
            if not self._fill():
                raise EOFError
        data = bytes(self.view[self.start : self.start + count])
        self.start += count
        return data

    def skip(self, count: int) -> None:
        while count:
            if self.start == self.end and not self._fill():
                raise EOFError
            step = min(count, self.end - self.start)
            self.start += step
            count -= step


def _lp(text: bytes) -> bytes:
    return b"%04x" % len(text) + text


def _serve(sock: socket.socket, expected: int) -> None:
    reader = _Reader(sock)
    try:
        while True:
            request = reader.read(int(reader.read(4), 16))
            if request == b"host:version":
                sock.sendall(b"OKAY" + _lp(b"0029"))
                return
            if request.startswith(b"host:tport:serial:"):
                sock.sendall(b"OKAY" + struct.pack("<Q", 1))
            elif request.startswith(b"host:transport:"):
                sock.sendall(b"OKAY")
            elif request == b"sync:":
                sock.sendall(b"OKAY")
                _sync(sock, reader, expected)
                return
            else:
                sock.sendall(b"FAIL" + _lp(b"bench sink: unexpected " + request))
                return
    except (EOFError, OSError):
        return
    finally:
        sock.close()


def _sync(sock: socket.socket, reader: _Reader, expected: int) -> None:
    received = 0
    while True:
        ident, word = _HEADER.unpack(reader.read(8))
        if ident == b"SEND":
            reader.skip(word)
        elif ident == b"STAT":  # adbutils stats the destination first: answer "no such file"
            reader.skip(word)
            sock.sendall(b"STAT" + bytes(12))
        elif ident == b"DATA":
            reader.skip(word)
            received += word
        elif ident == b"DONE":
            if received == expected:
                sock.sendall(b"OKAY\x00\x00\x00\x00")
            else:
                message = f"bench sink: got {received} bytes, expected {expected}".encode()
                sock.sendall(_HEADER.pack(b"FAIL", len(message)) + message)
            received = 0
        elif ident == b"QUIT":
            return
        else:
            return


def sink_main(expected: int) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    print(listener.getsockname()[1], flush=True)
    listener.settimeout(1.0)
    while True:
        try:
            sock, _ = listener.accept()
        except TimeoutError:
            if sys.stdin.closed or os.getppid() == 1:
                return
            continue
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=_serve, args=(sock, expected), daemon=True).start()


# --- the clients ---------------------------------------------------------------------------------


def push_ours(port: int, data: bytes) -> None:
    from pytest_mobile_agent.adb import AdbServer

    AdbServer(host="127.0.0.1", port=port).device(SERIAL).push_bytes(data, REMOTE, mode=0o644)


def push_adbutils(port: int, data: bytes) -> None:
    import adbutils

    adbutils.AdbClient(host="127.0.0.1", port=port).device(serial=SERIAL).sync.push(data, REMOTE, mode=0o644)


def push_adbutils_transfer_only(port: int, data: bytes) -> None:
    """adbutils without the STAT its public push makes first: the transfer alone."""
    import adbutils

    adbutils.AdbClient(host="127.0.0.1", port=port).device(serial=SERIAL).sync._push_file(data, REMOTE, mode=0o644)


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--size-mib", type=int, default=16)
    parser.add_argument("--sink", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    size = args.size_mib * 1024 * 1024
    if args.sink:
        sink_main(size)
        return 0

    sink = subprocess.Popen([sys.executable, __file__, "--sink", "--size-mib", str(args.size_mib)],
                            stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
    try:
        assert sink.stdout is not None
        port = int(sink.stdout.readline())
        data = os.urandom(size)
        clients = {"pytest_mobile_agent": push_ours, "adbutils": push_adbutils,
                   "adbutils _push_file": push_adbutils_transfer_only}
        for push in clients.values():  # warm up: imports, first connections
            push(port, data)
        times: dict[str, list[float]] = {name: [] for name in clients}
        for _ in range(args.rounds):
            for name, push in clients.items():
                started = time.perf_counter()
                push(port, data)
                times[name].append(time.perf_counter() - started)
    finally:
        sink.terminate()
        sink.wait(5)

    megabytes = size / 1e6
    rates = {}
    print(f"push of {args.size_mib} MiB to a loopback sync sink, {args.rounds} rounds each")
    for name, samples in times.items():
        p50, p95, worst = statistics.median(samples), _percentile(samples, 0.95), max(samples)
        rates[name] = megabytes / p50
        print(f"  {name:<20} time p50 {p50 * 1000:7.1f} ms  p95 {p95 * 1000:7.1f} ms  max {worst * 1000:7.1f} ms"
              f"   {rates[name]:7.1f} MB/s at p50")
    ratio = rates["pytest_mobile_agent"] / rates["adbutils"]
    transfer_ratio = rates["pytest_mobile_agent"] / rates["adbutils _push_file"]
    print(f"  ratio (ours / adbutils sync.push) {ratio:.2f}x, (ours / adbutils transfer only) {transfer_ratio:.2f}x;"
          f"  target >= 1.00x: {'met' if min(ratio, transfer_ratio) >= 1 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
