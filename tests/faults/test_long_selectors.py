"""A failed wait or find with a long selector text ends on time (issue 13, item 5).

The nearest candidates of a failed query used to run difflib against every node's text: with
`wait_for(timeout=0.5)` the wait overran by 1.0 s for a 1,000-character text, 2.5 s for 5,000 and
10-11 s for 20,000; `find()` with a 100 KB text took 17.7 s. On the virtual device's Login tab and
on its Big tab (the long list), each must end within 50 ms of its timeout (host-gated). The
candidates are ranked in full whatever the host's load (issue 28, item 11): past a 15 ms budget
they once fell back to a cheap likeness, and `wait_for(text="Cell 5000")` on the Big tab listed
"Cell 50" first and "Cell 500" not at all.
"""

from __future__ import annotations

import time

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.plugin.gates import HostGate
from pytest_mobile_agent.session import ControllerChoice, Session, select_paths
from tests.support.lab import Bench

WAIT_S = 0.25
"""The waits' timeout: the overrun is the failed query's ranking after it, whatever its length (the
defect overran a 0.5 s wait by 1 to 11 s), so the 27 waits a tab use a short one."""
OVERRUN_MS = 50.0
LENGTHS = (1_000, 5_000, 20_000)


def _mirror(vd: Bench, tab: str) -> tuple[Session, Mirror]:
    vd.open(tab)
    session = Session.start_selected(vd.attach(), select_paths(vd.serial, True, ControllerChoice.Off(), None),
                                     device=vd.device)
    return session, Mirror(session.backend(), timeout=5.0)


def _texts(length: int) -> list[str]:
    """A near miss of a node's text, padded; one of repeated words; one of one character."""
    return ["Log in" + " please" * (length // 7), ("lorem ipsum " * (length // 12 + 1))[:length], "q" * length]


@pytest.mark.parametrize("tab", ["Login", "Big"])
def test_a_wait_with_a_long_text_ends_within_50_ms_of_its_timeout(vd: Bench, gate: HostGate, tab: str) -> None:
    session, screen = _mirror(vd, tab)
    try:
        screen.wait_for(timeout=5.0, clickable=True)
        worst = 0.0
        for length in LENGTHS:
            for text in _texts(length):
                for criteria in ({"text": text}, {"text_contains": text}, {"desc": text, "id": text[:500]}):
                    started = time.monotonic()
                    with pytest.raises(errors.WaitTimeout) as failed:
                        screen.wait_for(timeout=WAIT_S, **criteria)
                    worst = max(worst, (time.monotonic() - started - WAIT_S) * 1000)
                    assert failed.value.tree
        gate.check(
            worst,
            OVERRUN_MS,
            f"the worst overrun of a {WAIT_S} s wait, texts up to {max(LENGTHS):,} characters ({tab})",
        )
    finally:
        session.stop()


@pytest.mark.parametrize("tab", ["Login", "Big"])
def test_find_with_a_100_kb_text_fails_within_50_ms(vd: Bench, gate: HostGate, tab: str) -> None:
    session, screen = _mirror(vd, tab)
    try:
        screen.wait_for(timeout=5.0, clickable=True)
        worst = 0.0
        for text in _texts(100_000):
            started = time.monotonic()
            with pytest.raises(errors.NoMatch):
                screen.find(text=text)
            worst = max(worst, (time.monotonic() - started) * 1000)
        gate.check(worst, OVERRUN_MS, f"the worst failed find() with a 100 KB text ({tab})")
    finally:
        session.stop()


def test_a_failed_wait_on_the_big_tab_lists_cell_500_before_cell_50(vd: Bench) -> None:
    session, screen = _mirror(vd, "Big")
    try:
        screen.wait_for(timeout=5.0, text="Cell 500")
        with pytest.raises(errors.WaitTimeout) as failed:
            screen.wait_for(timeout=WAIT_S, text="Cell 5000")
        first, second = failed.value.candidates[:2]
        assert '"Cell 500"' in first and "(likeness 0.94)" in first
        assert '"Cell 50"' in second and "(likeness 0.88)" in second
    finally:
        session.stop()
