"""Any sequence of touches, keys and launches leaves the UI model consistent: node ids unique
across windows, every tree's links right, a focused node editable, the home screen or an app shown."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_mobile_agent.virtual.ui import EmulatorUi, ManualClock

touch = st.tuples(st.just("touch"), st.integers(0, 1079), st.integers(0, 2399), st.booleans())
key = st.tuples(st.just("key"), st.sampled_from([3, 4, 7, 29, 36, 55, 62, 66, 67, 77, 1000]), st.sampled_from([0, 1]))
wait = st.tuples(st.just("wait"), st.integers(0, 700))
start = st.tuples(st.just("start"), st.sampled_from(["Login", "List", "Big", "nope"]), st.sampled_from(["", "camera"]))
actions = st.lists(st.one_of(touch, key, wait, start), max_size=40)


def check(ui: EmulatorUi) -> None:
    windows = ui.windows()
    ids = [n["id"] for w in windows for n in w.read().nodes]
    assert len(ids) == len(set(ids))
    for w in windows:
        read = w.read()
        by_id = {n["id"]: n for n in read.nodes}
        assert read.nodes[0]["parent"] is None
        for n in read.nodes[1:]:
            assert n["id"] in by_id[n["parent"]]["children"]
    assert any(w.type == "application" for w in windows)
    focused = ui.focused
    assert focused is None or focused.editable or focused.focusable


@settings(max_examples=150, deadline=None)
@given(actions)
def test_any_input_leaves_the_model_consistent(steps: list[tuple]) -> None:
    clock = ManualClock()
    ui = EmulatorUi(clock)
    for step in steps:
        if step[0] == "touch":
            ui.touch(step[1], step[2], step[3])
        elif step[0] == "key":
            assert ui.key(step[1], step[2])
        elif step[0] == "wait":
            clock.advance(step[1])
            ui.advance()
        else:
            ui.start_app({"tab": step[1], **({"prompt": step[2]} if step[2] else {})})
        check(ui)
