"""Host gates assert their bound unless MOBILE_AGENT_HOST_GATES=off, which prints the figure; timing
gates only under MOBILE_AGENT_TIMING_GATES=on."""

from __future__ import annotations

import io

import pytest

from pytest_mobile_agent.plugin.gates import HostGate, host_gates_enabled, timing_gates_enabled


def test_a_gate_over_its_bound_fails_naming_the_figure_and_the_bound() -> None:
    gate = HostGate(enabled=True, out=io.StringIO())
    with pytest.raises(AssertionError, match=r"shell round trip p50 took 61.0 ms, over its bound of 50 ms"):
        gate.check(61.0, 50, "shell round trip p50")


def test_a_gate_within_its_bound_passes_and_prints_the_figure() -> None:
    out = io.StringIO()
    HostGate(enabled=True, out=out).check(12.5, 50, "shell round trip p50")
    assert "shell round trip p50: 12.5 ms (bound 50 ms)" in out.getvalue()


def test_with_host_gates_off_the_figure_is_printed_beside_its_bound_and_not_asserted() -> None:
    out = io.StringIO()
    gate = HostGate(enabled=False, out=out)
    gate.check(1500.0, 1000, "conflict found")
    assert "conflict found: 1500.0 ms (bound 1000 ms); host gates off" in out.getvalue()
    assert gate.checked == [("conflict found", 1500.0, 1000, False)]


@pytest.mark.parametrize(("value", "enabled"), [("off", False), ("OFF", False), ("0", False), ("on", True), ("", True)])
def test_the_environment_switches_gates(value: str, enabled: bool) -> None:
    assert host_gates_enabled({"MOBILE_AGENT_HOST_GATES": value}) is enabled
    assert host_gates_enabled({}) is True


def test_a_timing_gate_is_reported_not_asserted_unless_asked_for() -> None:
    out = io.StringIO()
    gate = HostGate.timing({})
    gate.out = out
    gate.check(115.0, 50, "the worst overrun")
    reported = "the worst overrun: 115.0 ms (bound 50 ms); a timing gate, not asserted (MOBILE_AGENT_TIMING_GATES=on"
    assert reported in out.getvalue()
    assert gate.checked == [("the worst overrun", 115.0, 50, False)]


def test_a_timing_gate_asked_for_asserts_its_bound() -> None:
    gate = HostGate.timing({"MOBILE_AGENT_TIMING_GATES": "on"})
    gate.out = io.StringIO()
    with pytest.raises(AssertionError, match=r"took 115.0 ms, over its bound of 50 ms \(a timing gate, asserted under "
                                             r"MOBILE_AGENT_TIMING_GATES=on"):
        gate.check(115.0, 50, "the worst overrun")


@pytest.mark.parametrize(("environ", "enabled"), [({}, False), ({"MOBILE_AGENT_TIMING_GATES": "on"}, True),
                                                  ({"MOBILE_AGENT_TIMING_GATES": "1"}, True),
                                                  ({"MOBILE_AGENT_TIMING_GATES": "off"}, False),
                                                  ({"MOBILE_AGENT_HOST_GATES": "on"}, False)])
def test_timing_gates_are_off_unless_their_variable_turns_them_on(environ: dict[str, str], enabled: bool) -> None:
    assert timing_gates_enabled(environ) is enabled
