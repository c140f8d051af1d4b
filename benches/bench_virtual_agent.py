"""The agent double's snapshot of the Big tab (573 nodes), served over one of the device's streams.

Measures, p50/p95/max over --runs each:
- warm: a snapshot request answered from the agent's node cache, request frame to decoded response;
- agent: the agent's side of a warm snapshot alone (the handler and the frame's encoding);
- cold: the same after `evict_event_less` (the Compose window's 563 node dicts built again);
- build: the UI model building the 573 node dicts of every window, no protocol;
- tap+read: a tap on a Big cell and the snapshot after it (the agent's own input re-reads Compose);
- exit (with --exit): an agent process of a virtual device ending, from the host decoding the
  `shutdown` response (or sending `refuse`, or the SIGTERM) to the process being gone from the
  process table (what `ps` lists).

    python3 benches/bench_virtual_agent.py --runs 200
    python3 benches/bench_virtual_agent.py --runs 50 --lab   # through a lab's adb endpoint and the
                                                             # host's Deployer and Connection
    python3 benches/bench_virtual_agent.py --runs 50 --exit  # shutdown to the process gone
    python3 benches/bench_virtual_agent.py --runs 30 --read 5000   # a full read of a Big tab grown to
                                                                   # about 5,000 nodes, as the mirror reads
- read (with --read N): the Big tab grown to about N nodes (its cells, ten a row), read as the
  mirror reads it through a lab (the agent's `snapshot` over the adb endpoint's stream, the host's
  Connection, `AgentTree.read`: the frame decoded straight into typed nodes), from the agent's
  cache (EVENT) and with the Compose window evicted (POLL: the agent reads the window again),
  beside `json.loads` alone of the same response's bytes (the host's floor), and the agent's side
  of a warm read alone (its handler, and the frame's encoding: `encode_plain`, what the double
  sends with, beside the stdlib's `encode`), in process.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository, for tests.support

from timing import stamp, timed, timed_once  # noqa: E402

from pytest_mobile_agent.agent import protocol as wire  # noqa: E402
from pytest_mobile_agent.virtual.kernel.streams import Kernel  # noqa: E402
from pytest_mobile_agent.virtual.ui import EmulatorUi as UiModel  # noqa: E402
from pytest_mobile_agent.virtual.ui.fixture import COMPOSE_MS, LAUNCH_MS  # noqa: E402
from tests.support.agent_host import TOKEN, Host, make_core  # noqa: E402


def report(name: str, samples: list[float]) -> None:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    print(f"  {name:<10} p50 {statistics.median(ordered):7.2f} ms  p95 {p95:7.2f} ms  max {ordered[-1]:7.2f} ms"
          f"  (n={len(ordered)})")


def through_the_lab(runs: int) -> None:
    """The same snapshot as a test suite gets it: adb endpoint, service stream, host Connection."""
    from pytest_mobile_agent.adb import AdbServer
    from pytest_mobile_agent.agent import AgentJar, Deployer, DeployOptions
    from pytest_mobile_agent.virtual.lab import VirtualLab

    lab = VirtualLab.start(count=1)
    try:
        device = AdbServer(port=lab.adb_port).device(lab.serials[0])
        device.shell("am start -W -S -n dev.mobileagent.fixture/.MainActivity --es tab Big")
        attached = Deployer(device, AgentJar.stand_in(), options=DeployOptions(idle_exit_ms=10_000)).attach()
        conn = attached.connection
        assert conn.request("snapshot", {}, 5.0)["node_count"] == 573
        print(f"through the lab's adb endpoint and the host's Connection, {runs} runs each")
        report("warm", timed(lambda: conn.request("snapshot", {}, 5.0), runs))
        report("cold", timed(lambda: conn.request("snapshot", {"evict_event_less": True}, 5.0), runs))
        report("bounds", timed(lambda: conn.request("bounds", {"ids": [1]}, 5.0), runs))
        attached.stop()
    finally:
        lab.stop()


def grown_big_tab(nodes: int) -> int:
    """Grow the fixture's Big tab to about `nodes` nodes (ten cells a row; 23 nodes besides the
    grid's); the count of cells."""
    from pytest_mobile_agent.virtual.ui import fixture

    rows = (nodes - 23) // 11
    fixture.BIG_CELLS = rows * fixture.BIG_COLUMNS
    return fixture.BIG_CELLS


def full_read(runs: int, nodes: int) -> None:
    """A full read of about `nodes` nodes as the mirror reads it, through a lab."""
    import json

    from pytest_mobile_agent.adb import AdbServer
    from pytest_mobile_agent.agent import AgentJar, Deployer, DeployOptions
    from pytest_mobile_agent.session.backends import ReadReason
    from pytest_mobile_agent.session.tree import AgentTree
    from pytest_mobile_agent.virtual.lab import VirtualLab

    cells = grown_big_tab(nodes)
    lab = VirtualLab.start(count=1)
    try:
        device = AdbServer(port=lab.adb_port).device(lab.serials[0])
        device.shell("am start -W -S -n dev.mobileagent.fixture/.MainActivity --es tab Big")
        attached = Deployer(device, AgentJar.stand_in(), options=DeployOptions(idle_exit_ms=30_000)).attach()
        conn = attached.connection
        tree = AgentTree(conn, lambda: 2.625, capabilities=conn.hello.capabilities)
        deadline = time.monotonic() + 10
        while (count := tree.read(ReadReason.POLL).node_count) < cells:
            assert time.monotonic() < deadline, f"the Big tab shows {count} nodes, not its {cells} cells yet"
            time.sleep(0.2)
        raw = bytes(conn.request_raw("snapshot", {"idle_timeout_ms": 0}, 10.0))
        print(f"{stamp()}; a full read of {count} nodes ({len(raw) // 1024} KB), {runs} runs each, "
              "through a lab's adb endpoint")
        samples = {"read, warm": [], "read, evicted": [], "json.loads": []}
        for _ in range(runs):  # in turns: a change of the host's load falls on all alike
            samples["read, warm"].append(timed_once(lambda: tree.read(ReadReason.EVENT))[0])
            samples["read, evicted"].append(timed_once(lambda: tree.read(ReadReason.POLL))[0])
            samples["json.loads"].append(timed_once(lambda: json.loads(raw))[0])
        for name, values in samples.items():
            report(name, values)
        attached.stop()
    finally:
        lab.stop()


def agent_side_of_a_read(runs: int, nodes: int) -> None:
    """The agent double's side of a warm read of about `nodes` nodes: its handler and the frame's encoding."""
    cells = grown_big_tab(nodes)
    ui = UiModel()
    ui.start_app({"tab": "Big"})
    time.sleep((LAUNCH_MS + COMPOSE_MS["Big"] + 50) / 1000)
    core, _ = make_core(ui)
    host = Host(core, Kernel())
    host.handshake()
    assert host.result("snapshot")["node_count"] >= cells
    def handler() -> dict[str, Any]:
        return core._snapshot({}, time.monotonic() + 5)
    result = handler()
    report("handler", timed(handler, runs))
    message = {"type": "response", "id": 1, "result": result}
    report("encode_plain", timed(lambda: wire.encode_plain(message), runs))  # what the double sends with
    report("encode", timed(lambda: wire.encode(message), runs))  # the stdlib's json.dumps
    host.close()
    core.stop()


def _frame(stream: Any, decoder: wire.FrameDecoder, kind: str) -> dict[str, Any]:
    while True:
        for message in decoder.feed(stream.recv(3.0)):
            if message["type"] == kind:
                return message


def _end_one(device: Any, socket: str, ending: str) -> float:
    """Launch an agent, end it by `ending`; ms from the host's last step to the process gone."""
    from pytest_mobile_agent.virtual import agent as double
    from pytest_mobile_agent.virtual.kernel.streams import NullFile

    words = ["serve", "--socket", socket, "--idle-exit-ms", "10000"]
    proc = device.processes.fork(device.adbd, argv=["app_process", "/", double.MAIN_CLASS, *words],
                                 fds={0: NullFile(), 1: NullFile(), 2: NullFile()})
    proc.env = {"CLASSPATH": "/data/local/tmp/bench.jar", "MOBILE_AGENT_TOKEN": TOKEN}
    proc.start(lambda p: double.main(device, p, words))
    deadline = time.monotonic() + 3.0
    while socket not in device.sockets.abstract_names():
        assert time.monotonic() < deadline, "the agent never listened"
        time.sleep(0.001)
    stream = device.sockets.connect_abstract(socket, 2000)
    decoder = wire.FrameDecoder()
    stream.send(wire.encode({"type": "auth", "token": TOKEN}))
    _frame(stream, decoder, "hello")
    if ending == "shutdown":
        stream.send(wire.encode({"type": "welcome", "protocol": 1, "host": "bench"}))
        stream.send(wire.encode({"type": "request", "id": 1, "method": "shutdown", "deadline_ms": 3000,
                                 "params": {}}))
        _frame(stream, decoder, "response")  # the response decoded: the clock starts
        since = time.perf_counter()
    elif ending == "refuse":
        since = time.perf_counter()
        stream.send(wire.encode({"type": "refuse", "code": "version_mismatch", "message": "host speaks [2]"}))
    else:
        since = time.perf_counter()
        proc.deliver(15)  # SIGTERM
    while device.processes.get(proc.pid) is not None:
        assert time.perf_counter() - since < 3.0, "the agent did not exit"
        time.sleep(0.0005)
    stream.close()
    return (time.perf_counter() - since) * 1000


def exit_latency(runs: int) -> None:
    """`shutdown` answered (or the version refused, or SIGTERM) to the agent's process gone from the
    device's process table, what `ps` lists."""
    from pytest_mobile_agent.virtual.device import VirtualDevice

    device = VirtualDevice("emulator-5590")
    jar = b"PK\x03\x04 classes.dex mobile-agent-android 0.1.0\x00 dev/mobileagent/agent/Main"
    device.fs.add_file("/data/local/tmp/bench.jar", jar, mode=0o444, uid=2000, gid=2000)
    try:
        print(f"agent double, the end of a connected agent to its process gone, {runs} runs each")
        for k, ending in enumerate(("shutdown", "refuse", "SIGTERM")):
            samples = [_end_one(device, f"mobile-agent-0.1.0-p1-aaaaaaaaaaaa-{k:02x}{i:010x}", ending)
                       for i in range(runs)]
            report(ending, samples)
    finally:
        device.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--lab", action="store_true")
    parser.add_argument("--exit", action="store_true")
    parser.add_argument("--read", type=int, metavar="NODES", help="a full read of a Big tab grown to NODES")
    options = parser.parse_args()
    runs = options.runs
    if options.read:
        full_read(runs, options.read)
        agent_side_of_a_read(runs, options.read)
        return
    if options.exit:
        exit_latency(runs)
        return
    if options.lab:
        through_the_lab(runs)
        return
    ui = UiModel()
    ui.start_app({"tab": "Big"})
    time.sleep((LAUNCH_MS + COMPOSE_MS["Big"] + 50) / 1000)
    core, _ = make_core(ui)
    host = Host(core, Kernel())
    host.handshake()
    snap = host.result("snapshot")
    assert snap["node_count"] == 573, snap["node_count"]
    cell = next(n for n in snap["windows"][-1]["nodes"] if n["res"] == "cell_250")
    x, y = (cell["bounds"][0] + cell["bounds"][2]) // 2, (cell["bounds"][1] + cell["bounds"][3]) // 2
    print(f"agent double, Big tab snapshot ({snap['node_count']} nodes), {runs} runs each")
    report("warm", timed(lambda: host.result("snapshot"), runs))
    def agent_side() -> None:  # the handler and the frame's encoding, without the host's decode
        result = core._snapshot({}, time.monotonic() + 5)
        wire.encode({"type": "response", "id": 1, "result": result})

    report("agent", timed(agent_side, runs))
    report("cold", timed(lambda: host.result("snapshot", {"evict_event_less": True}), runs))

    def build() -> None:
        for w in ui.windows():
            w.changed()
            w.read()

    report("build", timed(build, runs))

    def tap_and_read() -> None:
        host.result("tap", {"x": x, "y": y})
        host.result("snapshot")

    report("tap+read", timed(tap_and_read, max(10, runs // 10)))
    host.close()
    core.stop()


if __name__ == "__main__":
    main()
