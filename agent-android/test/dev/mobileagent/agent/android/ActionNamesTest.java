package dev.mobileagent.agent.android;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import org.junit.Test;

/** The NODE's `actions` (docs/protocol.md, a11y_fields): standard actions by name, custom ones by label, none the flags say. */
public class ActionNamesTest {
    @Test
    public void aStandardActionTheFlagsDoNotSayIsNamed() {
        assertEquals("expand", ActionNames.of(0x00040000, null));
        assertEquals("dismiss", ActionNames.of(0x00100000, "ignored: a standard action's own label"));
        assertEquals("show_on_screen", ActionNames.of(0x01020036, null)); // android.R.id.accessibilityActionShowOnScreen
        assertEquals("set_progress", ActionNames.of(0x0102003d, null));
        assertEquals("ime_enter", ActionNames.of(0x01020054, null));
    }

    @Test
    public void anActionTheFlagsSayIsLeftOut() {
        assertNull(ActionNames.of(16, null));          // ACTION_CLICK: clickable says it
        assertNull(ActionNames.of(0x1000, null));      // ACTION_SCROLL_FORWARD: scroll says it
        assertNull(ActionNames.of(0x00200000, null));  // ACTION_SET_TEXT: editable says it
        assertNull(ActionNames.of(0x01020038, null));  // accessibilityActionScrollUp
    }

    @Test
    public void aCustomActionIsItsLabelAndOneWithoutALabelIsLeftOut() {
        assertEquals("Archive", ActionNames.of(0x7f0a0001, "Archive"));
        assertNull(ActionNames.of(0x7f0a0002, ""));
        assertNull(ActionNames.of(0x7f0a0003, null));
    }
}
