"""The fixture app's Audit screen: content that fails accessibility rules, as real apps' does.

`am start -n dev.mobileagent.fixture/.MainActivity --es tab Audit` opens it. Like the Loading
screen it is not in the tab row, so the frame's nodes and the Big tab's 573 stay as they are. Each
planted defect is one that Google's Accessibility Test Framework (ATF) reports, and the screen has
nothing else wrong:

* `icon_button`: a 32x32dp icon button without a label (TouchTargetSizeCheck: under 48dp;
  SpeakableTextPresentCheck: a focusable element that says nothing);
* `promo_code`: a borderless field whose hint is drawn in HINT_LOW on the screen's background, 2.0:1
  (TextContrastCheck);
* `faint_icon`: an icon drawn in ICON_FAINT (ImageContrastCheck);
* `share_button`: an icon button labelled "Share button" (RedundantDescriptionCheck);
* `email`: a field with the content description "Email" (EditableContentDescCheck);
* `details_first`, `details_second`: two buttons that both say "Details" (DuplicateSpeakableTextCheck);
* `card` and `card_open`: a clickable card and a clickable child with the same bounds
  (DuplicateClickableBoundsCheck);
* `step_one`, `step_two`: each set to be read after the other (TraversalOrderCheck: a loop of
  accessibilityTraversalAfter);
* `terms`: "Terms apply" at a fixed size in a box of fixed height, which its glyphs fill at font scale
  1.0 and overflow at 1.3 (rules.text_clipped, after `settings put system font_scale 1.3`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mobile_agent.virtual.ui.node import Node

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.ui.geometry import Geometry

SCREEN = "Audit"
HINT_LOW = (180, 180, 186)
"""The promo field's hint colour: 2.0:1 on the background (250, 250, 252), below ATF's 3.0."""
TERMS_HEIGHT = 46
"""The terms' box in pixels: its text (TERMS_TEXT_PX, 13sp at 420 dpi) fits at font scale 1.0 and is
cut off at 1.3."""
TERMS_TEXT_PX = 34
ICON = (30, 30, 30)
ICON_FAINT = (222, 222, 228)
"""The faint icon's colour: 1.2:1 on the background."""


def audit_screen(geo: Geometry, screen: Node, package: str) -> None:
    """Compose the screen's nodes into `screen` (its bounds the content area)."""
    left, right = geo.dp(24), geo.width - geo.dp(24)
    y = screen.bounds[1] + 44

    def add(node: Node) -> Node:
        node.package = package
        return screen.add(node)

    add(Node("android.widget.TextView", (left, y, right, y + 100), text="Accessibility audit", res="audit_heading"))
    y += 140
    small, icon = geo.dp(32), geo.dp(48)
    add(Node("android.widget.ImageButton", (left, y, left + small, y + small), res="icon_button",
             clickable=True, focusable=True, colour=ICON))
    add(Node("android.widget.ImageButton", (left + geo.dp(72), y, left + geo.dp(72) + icon, y + icon),
             desc="Share button", res="share_button", clickable=True, focusable=True, colour=ICON))
    add(Node("android.widget.ImageView", (left + geo.dp(144), y, left + geo.dp(144) + icon, y + icon),
             desc="Offer badge", res="faint_icon", colour=ICON_FAINT))
    y += icon + 60
    add(Node("android.widget.EditText", (left, y, right, y + 147), text="", hint="Promo code", res="promo_code",
             clickable=True, focusable=True, editable=True, accepts_set_text=True, colour=HINT_LOW))
    y += 187
    add(Node("android.widget.EditText", (left, y, right, y + 147), text="", hint="Email address", desc="Email",
             res="email", clickable=True, focusable=True, editable=True, accepts_set_text=True))
    y += 187
    half = (left + right) // 2
    for res, x0, x1 in (("details_first", left, half - 20), ("details_second", half + 20, right)):
        add(Node("android.widget.Button", (x0, y, x1, y + 147), text="Details", res=res, clickable=True,
                 focusable=True))
    y += 187
    card = add(Node("android.view.View", (left, y, right, y + 200), desc="Offer", res="card", clickable=True,
                    focusable=True))
    card.add(Node("android.widget.TextView", (left, y, right, y + 200), text="Open offer", res="card_open",
                  clickable=True, focusable=True, package=package))
    y += 240
    one = add(Node("android.widget.TextView", (left, y, right, y + 84), text="Step one", res="step_one"))
    two = add(Node("android.widget.TextView", (left, y + 104, right, y + 188), text="Step two", res="step_two"))
    one.traversal_after, two.traversal_after = two, one
    y += 228
    add(Node("android.widget.TextView", (left, y, right, y + TERMS_HEIGHT), text="Terms apply", res="terms",
             text_size=TERMS_TEXT_PX))
