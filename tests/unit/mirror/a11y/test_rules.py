"""The rules of mirror/a11y on small trees made for each ATF case (issue 39): the thresholds, severities
and exceptions each ATF check has, apart from the virtual device."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pytest_mobile_agent.mirror.a11y import contrast
from pytest_mobile_agent.mirror.a11y.audit import audit
from pytest_mobile_agent.mirror.a11y.catalog import RULES, select_rules
from pytest_mobile_agent.mirror.replica import Replica, View
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import parse_snapshot

DENSITY = 420  # 2.625 pixels per dp: 48dp is 126 pixels, 32dp 84


def node(node_id: int, parent: int | None, cls: str = "android.view.View",
         bounds: tuple[int, ...] = (100, 500, 400, 700), **extra: Any) -> dict[str, Any]:
    return {"id": node_id, "parent": parent, "depth": 0 if parent is None else 1, "class": cls, "text": None,
            "desc": None, "res": f"n{node_id}", "hint": None, "package": "p", "bounds": list(bounds),
            "clickable": False, "long_clickable": False, "focusable": False, "focused": False, "editable": False,
            "checkable": False, "checked": False, "enabled": True, "selected": False, "scrollable": False,
            "visible": True, "password": False, "scroll": None, "children": [], **extra}


def view_of(*nodes: dict[str, Any]) -> View:
    by_id = {n["id"]: n for n in nodes}
    for n in nodes:
        if n["parent"] is not None:
            by_id[n["parent"]]["children"].append(n["id"])
            n["depth"] = by_id[n["parent"]]["depth"] + 1
    snapshot = parse_snapshot({"windows": [{"id": 5, "type": "application", "bounds": [0, 0, 1080, 2400],
                                            "nodes": list(nodes)}],
                               "display": {"width": 1080, "height": 2400, "density": DENSITY, "rotation": 0}},
                              scale=DENSITY / 160, reason=ReadReason.POLL, read_at=0.0)
    replica = Replica()
    replica.apply(snapshot)
    assert replica.view is not None
    return replica.view


def found(view: View, rule: str, pixels: np.ndarray | None = None) -> list[tuple[str, str]]:
    return [(f.severity, f.entry.node.res) for f in audit(view, rules=select_rules([rule]), pixels=pixels)
            if f.entry is not None and f.entry.node.res is not None]


def root() -> dict[str, Any]:
    return node(1, None, "android.widget.FrameLayout", (0, 0, 1080, 2400))


def test_a_target_under_48dp_is_an_error_and_one_against_the_screens_edge_needs_32dp_across_it() -> None:
    view = view_of(root(),
                   node(2, 1, bounds=(100, 500, 225, 700), clickable=True, desc="a"),   # 48dp high, 47.6 wide: 48
                   node(3, 1, bounds=(100, 800, 210, 1000), clickable=True, desc="b"),  # 42dp wide
                   node(4, 1, bounds=(0, 1100, 84, 1300), clickable=True, desc="c"),    # 32dp at the left edge
                   node(5, 1, bounds=(0, 1400, 80, 1600), clickable=True, desc="d"))    # 30dp at the edge
    assert found(view, "touch_target_size") == [("error", "n3"), ("error", "n5")]


def test_a_small_target_inside_a_large_clickable_ancestor_is_a_warning() -> None:
    view = view_of(root(), node(2, 1, bounds=(100, 500, 900, 700), clickable=True, desc="row"),
                   node(3, 2, bounds=(120, 520, 180, 580), clickable=True, desc="dot"))
    assert found(view, "touch_target_size") == [("warning", "n3")]


def test_a_focusable_element_without_speakable_text_is_an_error_unless_a_label_or_a_child_speaks() -> None:
    view = view_of(root(),
                   node(2, 1, "android.widget.ImageButton", clickable=True),                     # says nothing
                   node(3, 1, "android.widget.ImageButton", (100, 800, 400, 1000), clickable=True),
                   node(4, 3, "android.widget.TextView", (100, 800, 400, 1000), text="Share"),  # its child speaks
                   node(5, 1, "android.widget.EditText", (100, 1100, 400, 1300), clickable=True, editable=True,
                        labeled_by=6),
                   node(6, 1, "android.widget.TextView", (100, 1300, 400, 1400), text="Name"),
                   node(7, 1, "android.widget.ImageButton", (500, 500, 800, 700), clickable=True, important=False))
    assert found(view, "speakable_text_present") == [("error", "n2")]


def test_duplicate_speakable_text_warns_on_the_first_clickable_and_informs_of_non_clickables() -> None:
    view = view_of(root(),
                   node(2, 1, "android.widget.Button", text="Details", clickable=True),
                   node(3, 1, "android.widget.Button", (100, 800, 400, 1000), text="Details", clickable=True),
                   node(4, 1, "android.widget.TextView", (100, 1100, 400, 1200), text="Note"),
                   node(5, 1, "android.widget.TextView", (100, 1300, 400, 1400), text="Note"))
    assert sorted(found(view, "duplicate_speakable_text")) == [("info", "n4"), ("warning", "n2")]


def test_an_editable_field_with_a_description_is_an_error() -> None:
    view = view_of(root(), node(2, 1, "android.widget.EditText", desc="Email", editable=True, clickable=True),
                   node(3, 1, "android.widget.EditText", (100, 800, 400, 1000), hint="Name", editable=True))
    assert found(view, "editable_content_desc") == [("error", "n2")]


@pytest.mark.parametrize(("desc", "flagged"), [("Share button", True), ("Check box for terms", True),
                                               ("Tap to open", True), ("Unselected", True), ("Buttonhole", False),
                                               ("Share", False)])
def test_a_description_naming_the_type_state_or_action_is_redundant(desc: str, flagged: bool) -> None:
    view = view_of(root(), node(2, 1, "android.widget.ImageButton", desc=desc, clickable=True))
    assert found(view, "redundant_description") == ([("warning", "n2")] if flagged else [])


def test_duplicate_clickable_bounds_is_an_error_on_the_first() -> None:
    view = view_of(root(), node(2, 1, clickable=True, desc="card"), node(3, 2, clickable=True, desc="open"),
                   node(4, 1, bounds=(500, 500, 800, 700), long_clickable=True, desc="other"))
    assert found(view, "duplicate_clickable_bounds") == [("error", "n2")]


def test_a_traversal_loop_and_an_over_constrained_order_are_warnings() -> None:
    view = view_of(root(),
                   node(2, 1, "android.widget.TextView", text="one", traversal_after=3),
                   node(3, 1, "android.widget.TextView", (100, 800, 400, 1000), text="two", traversal_after=2),
                   node(4, 1, "android.widget.TextView", (100, 1100, 400, 1200), text="a", traversal_before=5,
                        traversal_after=5),
                   node(5, 1, "android.widget.TextView", (100, 1300, 400, 1400), text="b"))
    assert found(view, "traversal_order") == [("warning", "n2"), ("warning", "n3"), ("warning", "n4")]


def pixels_with(box: tuple[int, int, int, int], background: tuple[int, int, int], ink: tuple[int, int, int],
                ink_share: float) -> np.ndarray:
    image = np.full((2400, 1080, 3), (250, 250, 252), dtype=np.uint8)
    left, top, right, bottom = box
    image[top:bottom, left:right] = background
    rows = max(1, int((bottom - top) * ink_share))
    image[top + 10:top + 10 + rows, left + 10:right - 10] = ink
    return image


@pytest.mark.parametrize(("ink", "severity"), [((180, 180, 186), "warning"), ((120, 120, 120), "warning"),
                                               ((30, 30, 30), None)])
def test_text_contrast_is_measured_from_the_pixels_against_3_and_4_5(ink: tuple[int, int, int],
                                                                     severity: str | None) -> None:
    box = (100, 500, 600, 700)
    view = view_of(root(), node(2, 1, "android.widget.TextView", box, text="Promo"))
    result = audit(view, rules=select_rules(["text_contrast"]), pixels=pixels_with(box, (250, 250, 252), ink, 0.2))
    expected = contrast.ratio(ink, (250, 250, 252))
    assert [f.severity for f in result] == ([severity] if severity else [])
    if result:
        assert abs(result[0].figures["ratio"] - expected) < 0.01
        assert result[0].figures["required"] == (3.0 if expected < 3.0 else 4.5)


def test_an_image_under_3_to_1_is_a_warning_and_a_uniform_one_is_not_judged() -> None:
    faint, blank = (100, 500, 300, 700), (400, 500, 600, 700)
    pixels = pixels_with(faint, (250, 250, 252), (222, 222, 228), 0.3)
    view = view_of(root(), node(2, 1, "android.widget.ImageView", faint, desc="badge"),
                   node(3, 1, "android.widget.ImageView", blank, desc="blank"))
    assert found(view, "image_contrast", pixels) == [("warning", "n2")]


def test_every_rule_but_text_clipped_names_the_atf_check_it_follows() -> None:
    for rule in RULES.values():
        if rule.name == "text_clipped":  # ATF has no such check: a rule of our own
            assert rule.atf_class is None
            continue
        assert rule.atf_class is not None
        assert rule.atf_class.startswith("com.google.android.apps.common.testing.accessibility.framework.checks.")
        assert rule.atf_class.endswith("Check")


def test_text_whose_glyphs_reach_an_edge_is_clipped_and_a_line_across_it_is_not() -> None:
    cut, underlined, inside = (100, 500, 600, 546), (100, 700, 600, 746), (100, 900, 600, 946)
    image = np.full((2400, 1080, 3), 250, dtype=np.uint8)
    image[530:546, 120:140] = 30   # a glyph running into the bottom edge
    image[530:540, 160:180] = 30
    image[710:730, 120:140] = 30   # text inside, and an underline across the whole bottom row
    image[744:746, 100:600] = 60
    image[910:930, 120:140] = 30   # text well inside its box
    view = view_of(root(), node(2, 1, "android.widget.TextView", cut, text="Terms"),
                   node(3, 1, "android.widget.TextView", underlined, text="Tab"),
                   node(4, 1, "android.widget.TextView", inside, text="Fits"),
                   node(5, 1, "android.widget.Button", (100, 1100, 600, 1146), text="A button's own edges"))
    assert found(view, "text_clipped", image) == [("warning", "n2")]


def test_text_cut_by_its_scrolling_container_is_not_clipped_text() -> None:
    """A list row scrolled half out of view: its text crosses the list's edge, which says nothing of
    the row's own size (ATF's isAgainstScrollableEdge; the examples suite's List met it)."""
    row = (0, 336, 1080, 405)
    image = np.full((2400, 1080, 3), 250, dtype=np.uint8)
    image[336:360, 60:80] = 30  # the lower half of a glyph, cut at the list's top edge
    view = view_of(root(), node(2, 1, bounds=(0, 336, 1080, 2200), scrollable=True),
                   node(3, 2, "android.widget.TextView", row, text="Item 55"))
    assert found(view, "text_clipped", image) == []
