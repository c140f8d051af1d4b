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
    screen = on_tab("Big")
    screen.wait_for(text="Cell 500", timeout=10)
    reads = session.reads
    for n in (1, 250, 500):
        assert screen.find(text=f"Cell {n}").clickable
    assert session.reads == reads


def test_the_status_names_the_agent_and_the_paths(on_tab: Callable[[str], Mirror], session: Session) -> None:
    screen = on_tab("Big")
    status = session.status()
    assert re.match(r"\S+: mobile-agent-android \S+ over protocol 1, pid \d+, socket mobile-agent-", status[0])
    assert "screenshots: agent" in status
    dump = screen.dump()
    assert "Cell 1" in dump and "500 cells" in dump
