"""Forward rules (host side, two statuses), reverse rules (adbd's own status), service streams."""

from __future__ import annotations

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import ForwardRule
from tests.support.adb_scripted import Peer, client

SERIAL = "emulator-5554"


def host_serial(command: str, *answers: bytes):
    def handler(peer: Peer) -> None:
        peer.expect(f"host-serial:{SERIAL}:{command}")
        for answer in answers:
            peer.send(answer)

    return handler


def lp(text: str) -> bytes:
    return b"%04x" % len(text.encode()) + text.encode()


def listed(peer: Peer) -> None:
    """The server's listing, which a Device reads once before its first host-serial: request."""
    peer.expect("host:devices-l")
    peer.send(b"OKAY" + lp(f"{SERIAL}          device product:sdk model:sdk device:emu64 transport_id:1\n"))


def test_forward_reads_both_statuses(scripted):
    server = scripted(listed, host_serial("forward:tcp:6000;localabstract:mobile-agent", b"OKAY", b"OKAY"))
    assert client(server).device(SERIAL).forward("tcp:6000", "localabstract:mobile-agent") is None
    assert server.requests() == ["host:devices-l", f"host-serial:{SERIAL}:forward:tcp:6000;localabstract:mobile-agent"]


def test_forward_tcp_0_returns_the_port_the_server_bound(scripted):
    server = scripted(listed, host_serial("forward:tcp:0;localabstract:x", b"OKAY", b"OKAY", lp("41237")))
    assert client(server).device(SERIAL).forward_tcp("localabstract:x") == 41237


def test_forward_tcp_with_a_given_port_returns_it(scripted):
    server = scripted(listed, host_serial("forward:norebind:tcp:7001;tcp:7001", b"OKAY", b"OKAY"))
    assert client(server).device(SERIAL).forward("tcp:7001", "tcp:7001", norebind=True) is None


def test_a_refused_forward_keeps_the_servers_message(scripted):
    message = "cannot bind listener: Address already in use"
    server = scripted(listed, host_serial("forward:tcp:6000;tcp:6000", b"FAIL" + lp(message)))
    with pytest.raises(errors.AdbFailure) as info:
        client(server).device(SERIAL).forward("tcp:6000", "tcp:6000")
    assert info.value.reason == message


def test_a_forward_refused_at_its_second_status_keeps_the_message(scripted):
    message = "cannot rebind existing socket"
    server = scripted(listed, host_serial("forward:norebind:tcp:1;tcp:1", b"OKAY", b"FAIL" + lp(message)))
    with pytest.raises(errors.AdbFailure, match=message):
        client(server).device(SERIAL).forward("tcp:1", "tcp:1", norebind=True)


def test_a_garbage_bound_port_is_a_protocol_error(scripted):
    server = scripted(listed, host_serial("forward:tcp:0;tcp:1", b"OKAY", b"OKAY", lp("port?")))
    with pytest.raises(errors.ProtocolError, match="bound port"):
        client(server).device(SERIAL).forward_tcp("tcp:1")


def test_remove_forward_and_list_forwards(scripted):
    listing = f"{SERIAL} tcp:6000 localabstract:a\nemulator-5556 tcp:6001 tcp:80\n{SERIAL} tcp:6002 tcp:8080\n"
    server = scripted(
        listed,
        host_serial("killforward:tcp:6000", b"OKAY", b"OKAY"),
        host_serial("list-forward", b"OKAY", lp(listing)),
    )
    device = client(server).device(SERIAL)
    device.remove_forward("tcp:6000")
    assert device.forwards() == [
        ForwardRule(SERIAL, "tcp:6000", "localabstract:a"),
        ForwardRule(SERIAL, "tcp:6002", "tcp:8080"),
    ]


def test_removing_a_missing_forward_keeps_the_servers_message(scripted):
    message = "listener 'tcp:6000' not found"
    server = scripted(listed, host_serial("killforward:tcp:6000", b"FAIL" + lp(message)))
    with pytest.raises(errors.AdbFailure, match=message):
        client(server).device(SERIAL).remove_forward("tcp:6000")


def test_a_garbled_forward_listing_is_a_protocol_error(scripted):
    server = scripted(listed, host_serial("list-forward", b"OKAY", lp("just-two fields\n")))
    with pytest.raises(errors.ProtocolError, match="serial, local and remote"):
        client(server).device(SERIAL).forwards()


def test_a_socket_spec_with_a_separator_is_refused(scripted):
    server = scripted()
    device = client(server).device(SERIAL)
    with pytest.raises(errors.InvalidArgument):
        device.forward("tcp:1;tcp:2", "tcp:3")
    with pytest.raises(errors.InvalidArgument):
        device.reverse("", "tcp:3")
    assert server.connections == 0


# --- reverse -------------------------------------------------------------------------------------


def device_service(service: str, *answers: bytes):
    def handler(peer: Peer) -> None:
        peer.expect(f"host:transport:{SERIAL}")
        peer.okay()
        peer.expect(service)
        for answer in answers:
            peer.send(answer)

    return handler


def test_reverse_reads_adbds_own_status(scripted):
    server = scripted(device_service("reverse:forward:localabstract:it;tcp:7000", b"OKAY", b"OKAY"))
    assert client(server).device(SERIAL).reverse("localabstract:it", "tcp:7000") is None


def test_reverse_tcp_0_returns_the_port_adbd_bound(scripted):
    server = scripted(device_service("reverse:forward:tcp:0;tcp:7000", b"OKAY", b"OKAY", lp("38001")))
    assert client(server).device(SERIAL).reverse("tcp:0", "tcp:7000") == 38001


def test_a_reverse_adbd_refuses_reports_its_error(scripted):
    message = "cannot bind listener: Permission denied"
    server = scripted(device_service("reverse:forward:tcp:80;tcp:7000", b"OKAY", b"FAIL" + lp(message)))
    with pytest.raises(errors.AdbFailure) as info:
        client(server).device(SERIAL).reverse("tcp:80", "tcp:7000")
    assert info.value.reason == message


def test_remove_reverse_and_list_reverses(scripted):
    listing = "host-19 localabstract:it tcp:7000\n"
    server = scripted(
        device_service("reverse:killforward:localabstract:it", b"OKAY", b"OKAY"),
        device_service("reverse:list-forward", b"OKAY", lp(listing)),
    )
    device = client(server).device(SERIAL)
    device.remove_reverse("localabstract:it")
    assert device.reverses() == [ForwardRule("host-19", "localabstract:it", "tcp:7000")]


# --- service streams -----------------------------------------------------------------------------


def test_a_service_stream_reaches_a_live_abstract_socket(scripted):
    def echo(peer: Peer) -> None:
        peer.expect(f"host:transport:{SERIAL}")
        peer.okay()
        peer.expect("localabstract:mobile-agent-it")
        peer.okay()
        peer.send(peer.recv_exact(5)[::-1])
        peer.wait_closed()

    server = scripted(echo)
    with client(server).device(SERIAL).open_abstract("mobile-agent-it") as stream:
        stream.sendall(b"hello")
        assert stream.recv_exact(5, timeout=1.0) == b"olleh"
        assert stream.fileno() >= 0


def test_a_service_stream_to_a_missing_socket_fails_with_closed(scripted):
    server = scripted(device_service("localabstract:nobody-listens", b"FAIL" + lp("closed")))
    with pytest.raises(errors.Closed):
        client(server).device(SERIAL).open_abstract("nobody-listens")


def test_a_service_stream_that_ends_reads_empty_and_recv_exact_is_closed(scripted):
    def short(peer: Peer) -> None:
        peer.expect(f"host:transport:{SERIAL}")
        peer.okay()
        peer.expect("tcp:8080")
        peer.okay()
        peer.send(b"ab")

    server = scripted(short)
    with client(server).device(SERIAL).open_service("tcp:8080") as stream:
        with pytest.raises(errors.Closed, match="2 of 4"):
            stream.recv_exact(4, timeout=1.0)
        assert stream.recv(10, timeout=1.0) == b""


def test_a_silent_service_stream_times_out(scripted):
    def silent(peer: Peer) -> None:
        peer.expect(f"host:transport:{SERIAL}")
        peer.okay()
        peer.expect("tcp:8080")
        peer.okay()
        peer.wait_closed()

    server = scripted(silent)
    with client(server).device(SERIAL).open_service("tcp:8080") as stream:
        with pytest.raises(errors.Timeout, match="100 ms"):
            stream.recv_exact(4, timeout=0.1)
        stream.settimeout(0.05)
        with pytest.raises(errors.Timeout, match="50 ms"):
            stream.recv(1)
