"""The emulator's network as `ip` (iproute2, /system/bin/ip), `ifconfig` and `nc` (toybox) show
and reach it.

The interfaces follow the emulator's documented address plan (developer.android.com/studio/run/
emulator-networking: "10.0.2.15: the emulated device network when connected using Ethernet;
10.0.2.16: ... when connected using Wi-Fi"; the router 10.0.2.1 and the host alias 10.0.2.2
are outside the device): `lo`, `eth0` with 10.0.2.15/24 and `wlan0` with 10.0.2.16/24, the
MAC addresses QEMU and the virtio Wi-Fi give them. Formats are iproute2's (`ip addr`: the index,
flags, `link/ether`, `inet A/N brd B scope global IF`, `valid_lft forever preferred_lft forever`;
`ip route`: the main table's connected routes, each line ending in a blank as iproute2 prints
it) and toybox ifconfig's (display_ifconfig: `Link encap:Ethernet  HWaddr`, `inet addr:A
Bcast:B  Mask:M `, the flags with MTU and Metric, the counters).

`nc HOST PORT` connects to a listener of the device's own loopback (127.0.0.1, localhost, ::1):
the rest of the network is not modelled ("nc: connect: Network is unreachable"); a refused port
is "nc: connect: Connection refused", status 1. Standard input goes to the socket, the socket's
data to standard output, until the peer closes.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.streams import DeviceStream
from pytest_mobile_agent.virtual.kernel.system import System, SystemProgram


@dataclass(frozen=True)
class Interface:
    index: int
    name: str
    flags: str  # iproute2's <...> list
    mtu: int
    qdisc: str
    state: str
    qlen: int
    mac: str
    ipv4: str | None  # address/prefix
    broadcast: str | None
    ipv6: str  # address/prefix
    ipv6_scope: str
    rx_packets: int
    tx_packets: int
    rx_bytes: int
    tx_bytes: int

    @property
    def address(self) -> str | None:
        return self.ipv4.split("/", 1)[0] if self.ipv4 else None


INTERFACES: tuple[Interface, ...] = (
    Interface(1, "lo", "LOOPBACK,UP,LOWER_UP", 65536, "noqueue", "UNKNOWN", 1000, "00:00:00:00:00:00",
              "127.0.0.1/8", None, "::1/128", "host", 48, 48, 3360, 3360),
    Interface(3, "eth0", "BROADCAST,MULTICAST,UP,LOWER_UP", 1500, "mq", "UP", 1000, "52:54:00:12:34:56",
              "10.0.2.15/24", "10.0.2.255", "fe80::5054:ff:fe12:3456/64", "link", 1533, 1601, 182349, 214023),
    Interface(4, "wlan0", "BROADCAST,MULTICAST,UP,LOWER_UP", 1500, "mq", "UP", 3000, "02:15:b2:00:00:00",
              "10.0.2.16/24", "10.0.2.255", "fe80::15:b2ff:fe00:0/64", "link", 8251, 5977, 10315932, 773412),
)
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0"})


def _mask(prefix: int) -> str:
    bits = (0xFFFFFFFF << (32 - prefix)) & 0xFFFFFFFF
    return ".".join(str((bits >> shift) & 0xFF) for shift in (24, 16, 8, 0))


def ip_addr_lines(interface: Interface, *, family: str | None = None) -> list[str]:
    kind = "loopback" if interface.name == "lo" else "ether"
    lines = [
        f"{interface.index}: {interface.name}: <{interface.flags}> mtu {interface.mtu} qdisc {interface.qdisc} "
        f"state {interface.state} group default qlen {interface.qlen}",
        f"    link/{kind} {interface.mac} brd {'00:00:00:00:00:00' if kind == 'loopback' else 'ff:ff:ff:ff:ff:ff'}",
    ]
    if interface.ipv4 and family in (None, "inet"):
        scope = "host" if interface.name == "lo" else "global"
        brd = f" brd {interface.broadcast}" if interface.broadcast else ""
        lines += [f"    inet {interface.ipv4}{brd} scope {scope} {interface.name}",
                  "       valid_lft forever preferred_lft forever"]
    if family in (None, "inet6"):
        lines += [f"    inet6 {interface.ipv6} scope {interface.ipv6_scope} ",
                  "       valid_lft forever preferred_lft forever"]
    return lines


def ip_route_lines() -> list[str]:
    out = []
    for interface in INTERFACES:
        if interface.name == "lo" or not interface.ipv4:
            continue
        address, prefix = interface.ipv4.split("/")
        network = ".".join(address.split(".")[:3]) + ".0"
        out.append(f"{network}/{prefix} dev {interface.name} proto kernel scope link src {address} ")
    return out


def ifconfig_lines(interface: Interface) -> list[str]:
    if interface.name == "lo":
        head = f"{interface.name:<9} Link encap:Local Loopback  "
        inet = f"          inet addr:{interface.address}  Mask:{_mask(8)} "
        flags = "UP LOOPBACK RUNNING"
    else:
        head = f"{interface.name:<9} Link encap:Ethernet  HWaddr {interface.mac}  Driver virtio_net"
        prefix = int((interface.ipv4 or "/24").split("/")[1])
        inet = f"          inet addr:{interface.address}  Bcast:{interface.broadcast}  Mask:{_mask(prefix)} "
        flags = "UP BROADCAST RUNNING MULTICAST"
    scope = {"host": "Host", "link": "Link"}[interface.ipv6_scope]
    return [
        head,
        inet,
        f"          inet6 addr: {interface.ipv6} Scope: {scope}",
        f"          {flags}  MTU:{interface.mtu}  Metric:1",
        f"          RX packets:{interface.rx_packets} errors:0 dropped:0 overruns:0 frame:0 ",
        f"          TX packets:{interface.tx_packets} errors:0 dropped:0 overruns:0 carrier:0 ",
        f"          collisions:0 txqueuelen:{interface.qlen} ",
        f"          RX bytes:{interface.rx_bytes} TX bytes:{interface.tx_bytes} ",
        "",
    ]


def _interface(name: str) -> Interface | None:
    return next((i for i in INTERFACES if i.name == name), None)


def ip(system: System, proc: pm.Process) -> int:
    args = proc.argv[1:]
    family = None
    while args and args[0].startswith("-"):
        option = args.pop(0)
        family = {"-4": "inet", "-6": "inet6"}.get(option, family)
    if not args:
        proc.stderr.write("Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }\n")
        return 255
    obj, rest = args[0], [a for a in args[1:] if a not in ("show", "list", "dev")]
    if "address".startswith(obj) or obj == "addr":
        chosen = list(INTERFACES)
        if rest:
            found = _interface(rest[0])
            if found is None:
                proc.stderr.write(f'Device "{rest[0]}" does not exist.\n')
                return 1
            chosen = [found]
        proc.stdout.write("".join(line + "\n" for i in chosen for line in ip_addr_lines(i, family=family)))
        return 0
    if "route".startswith(obj):
        proc.stdout.write("".join(line + "\n" for line in ip_route_lines()))
        return 0
    if "link".startswith(obj):
        chosen = [i for i in INTERFACES if not rest or i.name == rest[0]]
        proc.stdout.write("".join(line + "\n" for i in chosen for line in ip_addr_lines(i)[:2]))
        return 0
    proc.stderr.write(f'Object "{obj}" is unknown, try "ip help".\n')
    return 255


def ifconfig(system: System, proc: pm.Process) -> int:
    names = [a for a in proc.argv[1:] if not a.startswith("-")]
    if len(names) > 1:
        proc.stderr.write("ifconfig: SIOCSIFFLAGS: Permission denied\n" if proc.uid else "ifconfig: not modelled\n")
        return 1
    chosen = list(INTERFACES) if not names else [i for i in INTERFACES if i.name == names[0]]
    if names and not chosen:
        proc.stderr.write(f"ifconfig: {names[0]}: No such device\n")
        return 1
    proc.stdout.write("".join(line + "\n" for i in chosen for line in ifconfig_lines(i)))
    return 0


def nc(system: System, proc: pm.Process) -> int:
    operands = [a for a in proc.argv[1:] if not a.startswith("-")]
    if len(operands) != 2 or not is_decimal(operands[1]):
        proc.stderr.write('nc: bad argument count (see "nc --help")\n')
        return 1
    host, port = operands[0], int(operands[1])
    if host not in LOOPBACK_HOSTS:
        proc.stderr.write("nc: connect: Network is unreachable\n")
        return 1
    try:
        stream = system.sockets.connect_tcp(port, proc.uid)
    except errors.Closed:
        proc.stderr.write("nc: connect: Connection refused\n")
        return 1
    try:
        _relay(proc, stream)
    finally:
        stream.close()
    return 0


def _relay(proc: pm.Process, stream: DeviceStream) -> None:
    """stdin to the socket, the socket to stdout, until the peer closes."""
    source = proc.fd(0)
    stdin_open = True
    while True:
        if stdin_open:
            data = source.read(65536, proc, time.monotonic() + 0.01)
            if data == b"":
                stdin_open = False
            elif data:
                stream.send(data)
        try:
            chunk = stream.recv(0.01 if stdin_open else 0.05)
        except errors.Timeout:
            proc.checkpoint()
            continue
        except errors.Closed:
            return
        if not chunk:
            return
        with contextlib.suppress(BrokenPipeError):
            proc.stdout.write(chunk)


PROGRAMS: dict[str, SystemProgram] = {"ip": ip, "ifconfig": ifconfig, "nc": nc, "netcat": nc}
