"""Any text as `xpath=` (issue 25, item 4): a list of elements or InvalidSelector naming `xpath=`,
never lxml's own errors, a ValueError or a UnicodeEncodeError."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.errors import InvalidSelector
from tests.fuzz.bounds import ends_within, lighter
from tests.support.mirror_fakes import Rig, login_screen

PIECES = st.sampled_from(["//", "/", "*", "@text", "@resource-id", "[", "]", "(", ")", "'Login'", '"x"', "=", "!=",
                          " and ", " or ", "android.widget.Button", "..", ".", "|", "$v", "contains(", ",", "1",
                          "last()", "count(", "\x00", "\ud800", "::", "child", "text()"])
EXPRESSIONS = st.one_of(st.text(max_size=40), st.lists(PIECES, max_size=12).map("".join))


@given(expression=EXPRESSIONS)
@lighter(200)
def test_any_text_selects_elements_or_is_invalid_selector(expression: str) -> None:
    screen = Rig(login_screen()).mirror
    try:
        with ends_within():
            found = screen.find_all(xpath=expression)
    except InvalidSelector as exc:
        assert "xpath=" in str(exc)
    else:
        assert all(element.ref > 0 for element in found)
