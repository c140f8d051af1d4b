"""The Big tab: 500 cells, 573 nodes in the whole snapshot."""

from __future__ import annotations

import re
from collections.abc import Callable

from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.session import Session


def test_every_cell_of_the_big_tab_is_in_the_replica(on_tab: Callable[[str], Mirror]) -> None:
    screen = on_tab("Big")
    screen.wait_for(text="Cell 500", timeout=10)
    cells = screen.find_all(text_matches=r"Cell \d+")
    assert len(cells) == 500
    assert {cell.text for cell in cells} == {f"Cell {n}" for n in range(1, 501)}


def test_a_warm_query_reads_nothing_from_the_device(on_tab: Callable[[str], Mirror], session: Session) -> None:
    """With nothing new on the event stream, queries are served from the replica. Warm means settled:
    the frame that shows a new screen can come after the read that already found it (stamped when the
    emulator took it), and is news to the mirror. The status bar's clock is news once a minute
    (SystemUI's event): when the minute turned during the queries, the mirror rightly read it, and the
    queries are made once more, a minute away from the next turn."""
    screen = on_tab("Big")
    screen.wait_for(text="Cell 500", timeout=10)
    assert screen.settle()
    for _ in range(2):
        minute = _status_bar_minute(screen)
        reads = session.reads
        for n in (1, 250, 500):
            assert screen.find(text=f"Cell {n}").clickable
        reads_after = session.reads
        if _status_bar_minute(screen) == minute:
            break
    assert reads_after == reads


def _status_bar_minute(screen: Mirror) -> str | None:
    clocks = screen.find_all(id="clock")
    return clocks[0].text if clocks else None


def test_the_status_names_the_agent_and_the_paths(on_tab: Callable[[str], Mirror], session: Session) -> None:
    screen = on_tab("Big")
    status = session.status()
    assert re.match(r"\S+: mobile-agent-android \S+ over protocol 1, pid \d+, socket mobile-agent-", status[0])
    assert "screenshots: agent" in status
    dump = screen.dump()
    assert "Cell 1" in dump and "500 cells" in dump
