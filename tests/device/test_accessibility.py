"""Accessibility audits (issue 39) on the full stack: the fixture app's Audit screen plants one
defect per rule of Google's Accessibility Test Framework, and its Login and List tabs are clean."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_mobile_agent import App, Screen
from pytest_mobile_agent.control import DeviceControl
from pytest_mobile_agent.errors import InvalidArgument
from pytest_mobile_agent.mirror.a11y.catalog import RULES
from pytest_mobile_agent.mirror.a11y.contrast import ratio

pytestmark = pytest.mark.device

BACKGROUND = (250, 250, 252)  # the fixture's screen background (virtual/ui/render.py)
HINT_LOW = (180, 180, 186)  # the promo field's hint (virtual/ui/audit_screen.py)
ICON_FAINT = (222, 222, 228)

PLANTED = {  # rule -> (severity, the resource id of the element it must name)
    "touch_target_size": ("error", "icon_button"),
    "speakable_text_present": ("error", "icon_button"),
    "text_contrast": ("warning", "promo_code"),
    "image_contrast": ("warning", "faint_icon"),
    "redundant_description": ("warning", "share_button"),
    "editable_content_desc": ("error", "email"),
    "duplicate_speakable_text": ("warning", "details_first"),
    "duplicate_clickable_bounds": ("error", "card"),
    "traversal_order": ("warning", "step_one"),
}
AT_A_LARGER_FONT = {"text_clipped": ("warning", "terms")}  # after device_control.set_font_scale(1.3)


@pytest.fixture
def audit_screen(compose_fixture: Callable[..., App], screen: Screen) -> Screen:
    compose_fixture(tab="Audit")
    screen.wait_for(id="step_two")
    return screen


def test_each_rule_finds_the_defect_planted_for_it_and_nothing_else(audit_screen: Screen) -> None:
    assert set(PLANTED) | set(AT_A_LARGER_FONT) == set(RULES)  # every rule has its planted defect
    for rule, (severity, res) in PLANTED.items():
        found = audit_screen.audit_accessibility(rules=[rule])
        assert found, f"{rule} found nothing"
        assert [(f.severity, f.element.resource_id) for f in found][0] == (severity, res), (rule, found)
        assert all(f.element.resource_id in {r for _, r in PLANTED.values()} | {"step_two"} for f in found), found
    assert audit_screen.audit_accessibility(rules=list(AT_A_LARGER_FONT)) == []  # at font scale 1.0 it fits


def test_a_raised_font_scale_cuts_the_terms_off_and_nothing_else(audit_screen: Screen,
                                                                  device_control: DeviceControl) -> None:
    device_control.set_font_scale(1.3)
    found = audit_screen.audit_accessibility(rules=["text_clipped"])
    assert [(f.severity, f.element.resource_id, f.figures["edge"]) for f in found] == [("warning", "terms", "bottom")]
    assert found[0].check == "pytest_mobile_agent.mirror.a11y.rules.text_clipped" and "cut off" in found[0].message


def test_the_list_tab_passes_every_rule_and_login_has_only_its_two_logins(
        compose_fixture: Callable[..., App], screen: Screen) -> None:
    """The Login tab and the Login button both say "Login": ATF's DuplicateSpeakableTextCheck warns
    of that on a real app too, and it is the only finding there (its fields' hints and borders pass
    the contrast rule)."""
    compose_fixture(tab="List")
    screen.wait_for(id="item_1")
    assert screen.audit_accessibility() == []
    screen.tap(id="tab_login")
    screen.wait_for(id="login_button")
    found = screen.audit_accessibility()
    assert [(f.rule, f.severity, f.element.resource_id, f.figures["conflicting"]) for f in found] == [
        ("duplicate_speakable_text", "warning", "tab_login", 1)]


def test_the_big_tabs_cells_are_too_small_to_touch(compose_fixture: Callable[..., App], screen: Screen) -> None:
    compose_fixture(tab="Big")
    screen.wait_for(id="cell_500")
    found = screen.audit_accessibility()
    assert {(f.rule, f.severity) for f in found} == {("touch_target_size", "error")} and len(found) == 500
    first = found[0]
    assert first.element.resource_id == "cell_1" and "at least 32x48dp" in first.message  # the left edge: 32dp


def test_the_measured_contrast_is_within_0_2_of_the_one_the_known_colours_give(audit_screen: Screen) -> None:
    text = audit_screen.audit_accessibility(rules="text_contrast")[0]
    assert abs(text.figures["ratio"] - ratio(HINT_LOW, BACKGROUND)) <= 0.2
    assert text.figures["required"] == 3.0 and "#B4B4BA on #FAFAFC" in text.message
    image = audit_screen.audit_accessibility(rules=["image_contrast"])[0]
    assert abs(image.figures["ratio"] - ratio(ICON_FAINT, BACKGROUND)) <= 0.2


def test_within_narrows_the_audit_to_an_elements_subtree(audit_screen: Screen) -> None:
    card = audit_screen.find(id="card")
    found = audit_screen.audit_accessibility(within=card)
    assert {f.rule for f in found} == {"duplicate_clickable_bounds"}


def test_an_unknown_rule_is_a_usage_error_with_did_you_mean(audit_screen: Screen) -> None:
    with pytest.raises(InvalidArgument, match="'touch_target_sise'.*did you mean 'touch_target_size'"):
        audit_screen.audit_accessibility(rules=["touch_target_sise"])
