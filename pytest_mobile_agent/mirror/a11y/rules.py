"""The rules, one function per check of Google's Accessibility Test Framework for Android (ATF,
google/Accessibility-Test-Framework-for-Android 4.1.1, package
com.google.android.apps.common.testing.accessibility.framework.checks). Each names its ATF class
and keeps its thresholds and severities; a rule yields a `Finding` where ATF gives ERROR, WARNING or
INFO, and nothing where ATF gives NOT_RUN (invisible, unimportant or unmeasurable nodes).

A rule reads an `AuditContext` (mirror/a11y/context.py): the visible nodes in scope, the tree, the
display and, for the contrast rules, the screenshot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pytest_mobile_agent.mirror.a11y import contrast
from pytest_mobile_agent.mirror.a11y.context import AuditContext
from pytest_mobile_agent.mirror.a11y.findings import Finding, Severity
from pytest_mobile_agent.mirror.a11y.speakable import should_focus, speakable_text
from pytest_mobile_agent.mirror.replica import Entry

ATF = "com.google.android.apps.common.testing.accessibility.framework.checks."

TOUCH_TARGET_DP = 48
"""TouchTargetSizeCheck.TOUCH_TARGET_MIN_WIDTH and _HEIGHT."""
TOUCH_TARGET_ON_EDGE_DP = 32
"""TouchTargetSizeCheck.TOUCH_TARGET_MIN_*_ON_EDGE: a target against the screen's edge may be this
small in the dimension across that edge."""
TEXT_VIEW_CLASSES = frozenset({
    "android.widget.TextView", "android.widget.EditText", "android.widget.Button", "android.widget.CheckBox",
    "android.widget.RadioButton", "android.widget.ToggleButton", "android.widget.CheckedTextView",
    "android.widget.AutoCompleteTextView", "android.widget.MultiAutoCompleteTextView",
    "android.widget.Chronometer", "android.widget.TextClock", "android.widget.ExtractEditText",
})
"""android.widget.TextView and its framework subclasses (ATF's checkInstanceOf(TextView)); Switch
is left out, as ATF does without its character locations."""
IMAGE_VIEW_CLASSES = frozenset({"android.widget.ImageView", "android.widget.ImageButton",
                                "android.widget.QuickContactBadge"})
OWN_TEXT_CLIPPED = "pytest_mobile_agent.mirror.a11y.rules.text_clipped"
"""What a text_clipped finding names as its check: a rule of ours, ATF having none."""
PLAIN_TEXT_CLASSES = frozenset({"android.widget.TextView", "android.widget.CheckedTextView"})
"""The text nodes `text_clipped` judges: a plain text's box has nothing of its own at its edges (a
button's or a field's shape would read as ink there)."""
EDIT_TEXT_CLASSES = frozenset({"android.widget.EditText", "android.widget.AutoCompleteTextView",
                               "android.widget.MultiAutoCompleteTextView", "android.widget.ExtractEditText"})
REDUNDANT_WORDS = {
    "item type": ("button", "checkbox", "check box"),
    "state": ("checked", "unchecked", "selected", "unselected"),
    "action": ("click", "swipe", "tap"),
}
"""RedundantDescriptionCheck's ITEM_TYPE_WORD_KEYS, STATE_WORD_KEYS and ACTION_WORD_KEYS, as ATF's
English strings.xml words them."""


@dataclass(frozen=True)
class Rule:
    """A rule: its name (what `rules=` and `@pytest.mark.a11y(ignore=...)` take), the ATF class it
    follows, whether it reads the screenshot, and the function that runs it."""

    name: str
    check: str | None
    """The ATF check's class name; None for a rule of our own (text_clipped)."""
    run: Callable[[AuditContext], Iterator[Finding]]
    needs_pixels: bool = False

    @property
    def atf_class(self) -> str | None:
        return None if self.check is None else ATF + self.check


def _finding(rule: str, check: str, severity: Severity, entry: Entry, message: str, **figures: object) -> Finding:
    return Finding(rule=rule, severity=severity, ref=entry.ref, bounds=entry.node.bounds,
                   message=message, check=check if "." in check else ATF + check, figures=figures, entry=entry)


# --- TouchTargetSizeCheck --------------------------------------------------------------------------


def touch_target_size(context: AuditContext) -> Iterator[Finding]:
    """A clickable or long-clickable node smaller than 48x48dp (32dp across a screen edge): ERROR,
    or WARNING when a clickable ancestor of the required size takes the touch."""
    width, height = context.display_size
    per_pixel = 1 / context.scale  # dp per pixel, rounded as ATF rounds (Math.round(pixels / density))
    known = context.known
    for entry in context.subjects:
        node = entry.node
        if not (node.clickable or node.long_clickable):
            continue
        left, top, right, bottom = node.bounds
        need_w = TOUCH_TARGET_ON_EDGE_DP if left == 0 or right == width else TOUCH_TARGET_DP
        need_h = TOUCH_TARGET_ON_EDGE_DP if top == 0 or bottom == height else TOUCH_TARGET_DP
        actual_w, actual_h = int((right - left) * per_pixel + 0.5), int((bottom - top) * per_pixel + 0.5)
        if (actual_w >= need_w and actual_h >= need_h) or ("touch_target_size", entry.ref) in known:
            continue
        if _against_scrollable_edge(context, entry):
            continue  # ATF: NOT_RUN, a node cut by its scrolling container's edge
        severity: Severity = "warning" if _clickable_ancestor(context, entry) else "error"
        message = (f"the touch target is {actual_w}x{actual_h}dp; make it at least {need_w}x{need_h}dp "
                   "(a larger size, padding, or a TouchDelegate)")
        yield _finding("touch_target_size", "TouchTargetSizeCheck", severity, entry, message,
                       width_dp=actual_w, height_dp=actual_h, required_width_dp=need_w, required_height_dp=need_h)


def _clickable_ancestor(context: AuditContext, entry: Entry) -> bool:
    """ATF's hasQualifyingClickableAncestor: an ancestor that takes the same kind of touch and is
    large enough itself (worked out once per parent and kind of touch)."""
    node = entry.node
    if entry.parent is None:
        return False
    key = ("clickable ancestor", entry.parent, node.clickable, node.long_clickable)
    known = context.memo.get(key)
    if known is None:
        known = context.memo[key] = _has_clickable_ancestor(context, entry)
    return bool(known)


def _has_clickable_ancestor(context: AuditContext, entry: Entry) -> bool:
    node = entry.node
    parent = context.parent(entry)
    while parent is not None:
        p = parent.node
        if (p.clickable and node.clickable) or (p.long_clickable and node.long_clickable):
            left, top, right, bottom = p.bounds
            if context.dp(right - left) >= TOUCH_TARGET_DP and context.dp(bottom - top) >= TOUCH_TARGET_DP:
                return True
        parent = context.parent(parent)
    return False


def _against_scrollable_edge(context: AuditContext, entry: Entry) -> bool:
    """ATF's isAgainstScrollableEdge: the node touches an edge of its nearest scrolling ancestor."""
    scroller = _scrolling_ancestor(context, entry)
    if scroller is None:
        return False
    left, top, right, bottom = entry.node.bounds
    pl, pt, pr, pb = scroller
    return top <= pt or bottom >= pb or left <= pl or right >= pr


def _scrolling_ancestor(context: AuditContext, entry: Entry) -> tuple[int, int, int, int] | None:
    """The bounds of the nearest scrollable ancestor (once per parent), or None."""
    if entry.parent is None:
        return None
    key = ("scrolling ancestor", entry.parent, False, False)
    if key not in context.memo:
        parent = context.parent(entry)
        while parent is not None and not parent.node.scrollable:
            parent = context.parent(parent)
        context.memo[key] = parent.node.bounds if parent is not None else None
    found = context.memo[key]
    return found if isinstance(found, tuple) else None


# --- SpeakableTextPresentCheck --------------------------------------------------------------------


def speakable_text_present(context: AuditContext) -> Iterator[Finding]:
    """A node a screen reader focuses on that says nothing: ERROR."""
    for entry in context.subjects:
        node = entry.node
        if not node.important or (node.class_name == "android.webkit.WebView" and not node.children) \
                or ("speakable_text_present", entry.ref) in context.known:
            continue
        if should_focus(context, entry) and not speakable_text(context, entry):
            yield _finding("speakable_text_present", "SpeakableTextPresentCheck", "error", entry,
                           "a screen reader focuses this element but has nothing to say; give it a content "
                           "description (contentDescription, Compose's Modifier.semantics { contentDescription })"
                           " or visible text")


# --- DuplicateSpeakableTextCheck ------------------------------------------------------------------


def duplicate_speakable_text(context: AuditContext) -> Iterator[Finding]:
    """Several focusable nodes that say the same: WARNING on the first clickable one, INFO on the
    first of non-clickable ones."""
    by_text: dict[str, list[Entry]] = {}
    for entry in context.subjects:
        if entry.node.important and should_focus(context, entry):
            text = speakable_text(context, entry)
            if text:
                by_text.setdefault(text, []).append(entry)
    for text, entries in by_text.items():
        if len(entries) < 2:
            continue
        clickable = [e for e in entries if e.node.clickable]
        first = clickable[0] if clickable else entries[0]
        severity: Severity = "warning" if clickable else "info"
        yield _finding("duplicate_speakable_text", "DuplicateSpeakableTextCheck", severity, first,
                       f"{len(entries) - 1} other element(s) also say {text!r}; give each a label that tells "
                       "them apart", speakable_text=text, conflicting=len(entries) - 1)


# --- EditableContentDescCheck ---------------------------------------------------------------------


def editable_content_desc(context: AuditContext) -> Iterator[Finding]:
    """An editable field with a content description (a screen reader speaks it instead of what was
    typed): ERROR."""
    for entry in context.subjects:
        node = entry.node
        if node.important and (node.editable or node.class_name in EDIT_TEXT_CLASSES) and node.desc:
            yield _finding("editable_content_desc", "EditableContentDescCheck", "error", entry,
                           f"an editable field has the content description {node.desc!r}; remove it and label "
                           "the field with a hint or labelFor (labeled_by) instead")


# --- RedundantDescriptionCheck --------------------------------------------------------------------


def redundant_description(context: AuditContext) -> Iterator[Finding]:
    """A content description naming the element's type, state or action, which a screen reader
    already speaks ("Save button"): WARNING, one per word found."""
    for entry in context.subjects:
        node = entry.node
        if not node.important or not node.desc:
            continue
        words = _words(node.desc)
        for kind, candidates in REDUNDANT_WORDS.items():
            for word in candidates:
                if _contains_words(words, word.split()):
                    yield _finding("redundant_description", "RedundantDescriptionCheck", "warning", entry,
                                   f"the content description {node.desc!r} contains the {kind} {word!r}, which a "
                                   "screen reader already announces; leave it out", word=word)


def _words(text: str) -> list[str]:
    return "".join(c.lower() if c.isalnum() else " " for c in text).split()


def _contains_words(words: list[str], wanted: list[str]) -> bool:
    n = len(wanted)
    return any(words[i:i + n] == wanted for i in range(len(words) - n + 1))


# --- TextContrastCheck and ImageContrastCheck -----------------------------------------------------


def text_contrast(context: AuditContext) -> Iterator[Finding]:
    """Text whose colours, measured from the screenshot in the node's bounds, are below WCAG's
    ratio. The agent does not send text sizes, so, as ATF does without one, a ratio below 3.0 is
    `not sufficient` and one below 4.5 `borderline` (both WARNING)."""
    for entry in context.subjects:
        node = entry.node
        if node.class_name not in TEXT_VIEW_CLASSES or not (node.text or node.hint) or not node.enabled \
                or ("text_contrast", entry.ref) in context.known:
            continue
        measured = _swatch(context, entry)
        if measured is None:
            continue
        value = measured.ratio
        if contrast.LARGE_TEXT_RATIO - value > contrast.TOLERANCE:
            wanted, verdict = contrast.LARGE_TEXT_RATIO, "not sufficient even for large text"
        elif contrast.NORMAL_TEXT_RATIO - value > contrast.TOLERANCE:
            wanted, verdict = contrast.NORMAL_TEXT_RATIO, "borderline: enough only for large text (18sp, 14sp bold)"
        else:
            continue
        yield _finding("text_contrast", "TextContrastCheck", "warning", entry,
                       f"text contrast {value:.2f}:1 ({contrast.hex_colour(measured.foreground)} on "
                       f"{contrast.hex_colour(measured.background)}) is {verdict}; raise it to at least "
                       f"{wanted}:1 with a darker or lighter text colour",
                       ratio=value, required=wanted, foreground=contrast.hex_colour(measured.foreground),
                       background=contrast.hex_colour(measured.background))


def image_contrast(context: AuditContext) -> Iterator[Finding]:
    """An image whose colours, measured from the screenshot, are below 3:1: WARNING."""
    for entry in context.subjects:
        node = entry.node
        if node.class_name not in IMAGE_VIEW_CLASSES or not node.enabled:
            continue
        measured = _swatch(context, entry)
        if measured is None:
            continue
        value = measured.ratio
        if contrast.LARGE_TEXT_RATIO - value > contrast.TOLERANCE:
            yield _finding("image_contrast", "ImageContrastCheck", "warning", entry,
                           f"image contrast {value:.2f}:1 ({contrast.hex_colour(measured.foreground)} on "
                           f"{contrast.hex_colour(measured.background)}); raise it to at least 3:1",
                           ratio=value, required=contrast.LARGE_TEXT_RATIO,
                           foreground=contrast.hex_colour(measured.foreground),
                           background=contrast.hex_colour(measured.background))


def _swatch(context: AuditContext, entry: Entry) -> contrast.Swatch | None:
    """The node's swatch, or None where ATF does not run: no screenshot, bounds empty or not wholly
    on it (RESULT_ID_VIEW_NOT_WITHIN_SCREENCAPTURE), one colour only (nothing drawn)."""
    pixels = context.pixels
    if pixels is None:
        return None
    left, top, right, bottom = entry.node.bounds
    height, width = pixels.shape[:2]
    if right <= left or bottom <= top or left < 0 or top < 0 or right > width or bottom > height:
        return None
    if entry.ref in context.measured:  # text_contrast and text_clipped read the same crop
        return context.measured[entry.ref]
    measured = context.swatches.swatch(pixels, entry.node.bounds)
    kept = context.measured[entry.ref] = None if measured is None or measured.uniform else measured
    return kept


# --- clipped text (not an ATF check) --------------------------------------------------------------


def text_clipped(context: AuditContext) -> Iterator[Finding]:
    """Text whose glyphs reach the top or bottom edge of its element: cut off, as a text in a box of
    fixed height is once the user raises the font scale (Settings > Display > Font size;
    `device_control.set_font_scale(1.3)` in a test, then this audit). ATF has no such check; Android's
    guidance (WCAG 1.4.4, "Resize text") is that text scales to 200 % without losing content. Plain
    text elements only; measured from the screenshot as the contrast is. A warning."""
    for entry in context.subjects:
        node = entry.node
        if node.class_name not in PLAIN_TEXT_CLASSES or not node.text or ("text_clipped", entry.ref) in context.known:
            continue
        measured = _swatch(context, entry)
        if measured is None or measured.edge is None or _against_scrollable_edge(context, entry):
            continue  # a row scrolled half out of its list is cut by the list, not by its own size
        yield _finding("text_clipped", OWN_TEXT_CLIPPED, "warning", entry,
                       f"the text reaches the {measured.edge} edge of its element and is cut off; let the element "
                       "grow with its text (no fixed height in dp, wrap_content, Modifier.heightIn(min=...)) so "
                       "that it survives a larger font scale", edge=measured.edge)


# --- DuplicateClickableBoundsCheck ----------------------------------------------------------------


def duplicate_clickable_bounds(context: AuditContext) -> Iterator[Finding]:
    """Several clickable (or long-clickable) nodes with the same bounds: ERROR on the first."""
    seen: dict[tuple[object, ...], list[Entry]] = {}
    for entry in context.subjects:
        node = entry.node
        if node.important and (node.clickable or node.long_clickable):
            key = (entry.window.id, node.bounds, node.clickable, node.long_clickable)
            seen.setdefault(key, []).append(entry)
    for entries in seen.values():
        if len(entries) > 1:
            yield _finding("duplicate_clickable_bounds", "DuplicateClickableBoundsCheck", "error", entries[0],
                           f"{len(entries) - 1} other clickable element(s) have the same bounds; a screen reader "
                           "cannot tell them apart: merge them or make only one clickable",
                           conflicting=len(entries) - 1)


# --- TraversalOrderCheck --------------------------------------------------------------------------


def traversal_order(context: AuditContext) -> Iterator[Finding]:
    """accessibilityTraversalBefore/After links that loop, or that put a node both before and after
    another: WARNING."""
    for entry in context.subjects:
        if not entry.node.important:
            continue
        before = _chain(context, entry, "traversal_before")
        after = _chain(context, entry, "traversal_after")
        if before is None or after is None:
            which = "traversalBefore" if before is None else "traversalAfter"
            yield _finding("traversal_order", "TraversalOrderCheck", "warning", entry,
                           f"the {which} links from this element loop back to it; a screen reader's order "
                           "is undefined: break the loop")
        elif (set(before) & set(after)) - {entry.ref}:
            yield _finding("traversal_order", "TraversalOrderCheck", "warning", entry,
                           "this element is to be read both before and after another through traversalBefore "
                           "and traversalAfter; keep one of the constraints")


def _chain(context: AuditContext, entry: Entry, link: str) -> list[int] | None:
    """The refs reached through `link` from `entry`; None when they come back to one already seen."""
    seen = [entry.ref]
    current = entry
    while True:
        target = getattr(current.node, link)
        if target is None:
            return seen
        found = context.by_id.get((current.window.id, target))
        if found is None:
            return seen
        if found.ref in seen:
            return None
        seen.append(found.ref)
        current = found


