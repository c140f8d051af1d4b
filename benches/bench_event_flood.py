"""Request latency on an agent connection while the agent floods it with events.

    python3 benches/bench_event_flood.py [--rate 2900] [--requests 300]

A peer speaking protocol 1 (a scripted agent: no real agent floods on demand) on one end of a
socketpair, or on the virtual device's abstract socket behind its adb front (`--transport virtual`)
or behind Debian's adb server with the virtual adbd endpoint attached (`--transport real-adb`),
completes the handshake, then sends `window_changed` events at `--rate` a second, in 10 ms batches,
while it answers every request at once. The host is the real `agent.Connection` with the
session's event stream as its sink, drained by a consumer thread as the mirror drains it. The test
thread sends `--requests` requests, 10 ms apart, and the line gives their round trips (p50, p95,
max), the events delivered and the rate achieved.

Target (issue 19): p95 under 20 ms at 2,900 events a second.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from timing import summary

from pytest_mobile_agent.agent.connection import Connection
from pytest_mobile_agent.agent.protocol import FrameDecoder, encode
from pytest_mobile_agent.session.events import EventStream

TOKEN = "0123456789abcdef0123456789abcdef"
HELLO = {"type": "hello", "agent": "mobile-agent-android", "version": "0.1.0", "build": "7fec0cb05341",
         "protocols": [1], "capabilities": ["events"], "pid": 4242, "socket": "mobile-agent-bench"}
BATCH_S = 0.010
SOCKET = "mobile-agent-bench-flood"


class FloodingAgent:
    """The handshake, then events at `rate` a second and an answer to every request, over
    `send(bytes)` and `recv() -> bytes` (b"" at the end)."""

    def __init__(self, rate: float, send: Callable[[bytes], None], recv: Callable[[], bytes],
                 close: Callable[[], None]) -> None:
        self._rate = rate
        self._send_raw, self._recv, self._close = send, recv, close
        self._send_lock = threading.Lock()
        self._welcomed = threading.Event()
        self._stop = threading.Event()
        self.sent_events = 0
        self._threads = [threading.Thread(target=self._serve, name="bench-agent", daemon=True),
                         threading.Thread(target=self._flood, name="bench-flood", daemon=True)]

    def start(self) -> FloodingAgent:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        with contextlib.suppress(Exception):
            self._close()
        for thread in self._threads:
            thread.join(2.0)

    def _send(self, data: bytes) -> None:
        with self._send_lock:
            self._send_raw(data)

    def _serve(self) -> None:
        decoder = FrameDecoder()
        with contextlib.suppress(Exception):
            while not self._stop.is_set():
                data = self._recv()
                if not data:
                    return
                for message in decoder.feed(data):
                    self._answer(message)

    def _answer(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "auth":
            self._send(encode(HELLO))
        elif kind == "welcome":
            self._welcomed.set()
        elif kind == "ping":
            self._send(encode({"type": "pong", "nonce": message["nonce"]}))
        elif kind == "request":
            self._send(encode({"type": "response", "id": message["id"], "result": {"accepted": True}}))

    def _flood(self) -> None:
        self._welcomed.wait(10.0)
        if self._rate <= 0:
            return
        per_batch = max(1, round(self._rate * BATCH_S))
        seq = 0
        next_at = time.monotonic()
        with contextlib.suppress(Exception):
            while not self._stop.is_set():
                frames = []
                for _ in range(per_batch):
                    seq += 1
                    frames.append(encode({"type": "event", "seq": seq, "name": "window_changed",
                                          "data": {"window": 12, "nodes": [57, 58], "kinds": ["text"]}}))
                self._send(b"".join(frames))
                self.sent_events = seq
                next_at += BATCH_S
                time.sleep(max(0.0, next_at - time.monotonic()))


@contextlib.contextmanager
def transport(kind: str, rate: float) -> Iterator[tuple[FloodingAgent, Any]]:
    """The flooding agent and the host's end of the stream to it: a socketpair, or the virtual
    device's abstract socket reached through its adb front (`virtual`) or Debian's adb server
    with the virtual adbd endpoint attached (`real-adb`)."""
    if kind == "socketpair":
        host_end, agent_end = socket.socketpair()
        agent = FloodingAgent(rate, agent_end.sendall, lambda: agent_end.recv(65536), agent_end.close).start()
        try:
            yield agent, host_end
        finally:
            agent.stop()
        return
    from pytest_mobile_agent.adb import AdbServer
    from pytest_mobile_agent.virtual import VirtualLab

    lab = VirtualLab.start(1, real_adb=kind == "real-adb")
    try:
        serial = lab.serials[0]
        listener = lab.device(serial).sockets.listen_abstract(SOCKET, owner_pid=1)
        accepted: list[Any] = []
        ready = threading.Event()

        def accept() -> None:
            accepted.append(listener.accept(10.0)[0])
            ready.set()

        threading.Thread(target=accept, daemon=True).start()
        host_end = AdbServer(host="127.0.0.1", port=lab.adb_port).device(serial).open_abstract(SOCKET)
        if not ready.wait(10.0):
            raise SystemExit("the flooding agent's socket was never connected")
        stream = accepted[0]
        agent = FloodingAgent(rate, stream.send, lambda: stream.recv(None), stream.close).start()
        try:
            yield agent, host_end
        finally:
            agent.stop()
            listener.close()
    finally:
        lab.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=float, default=2900.0, help="events per second")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--transport", choices=("socketpair", "virtual", "real-adb"), default="socketpair")
    args = parser.parse_args()
    with transport(args.transport, args.rate) as (agent, host_end):
        return measure(agent, host_end, args)


def measure(agent: FloodingAgent, host_end: Any, args: argparse.Namespace) -> int:
    stream = EventStream()
    delivered = 0
    done = threading.Event()

    def consume() -> None:
        nonlocal delivered
        while not done.is_set():
            if stream.next_event(0.05) is not None:
                delivered += 1 + len(stream.drain())

    consumer = threading.Thread(target=consume, name="bench-consumer", daemon=True)
    conn = Connection.open(host_end, TOKEN, timeout=5.0, name="bench")
    conn.set_sink(stream.sink)
    consumer.start()
    try:
        time.sleep(0.5)  # the flood under way
        started = time.monotonic()
        sent_before = agent.sent_events
        latencies = []
        for _ in range(args.requests):
            t0 = time.perf_counter()
            conn.request("tap", {"x": 1, "y": 1, "hold_ms": 0}, timeout=5.0)
            latencies.append((time.perf_counter() - t0) * 1000)
            time.sleep(0.010)
        took = time.monotonic() - started
        rate = (agent.sent_events - sent_before) / took
    finally:
        done.set()
        conn.close()
        consumer.join(2.0)
    print(f"{args.transport}: request round trips under {rate:.0f} events/s (asked {args.rate:.0f}), load average "
          f"{os.getloadavg()[0]:.2f}: {summary(latencies)}; {delivered} events delivered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
