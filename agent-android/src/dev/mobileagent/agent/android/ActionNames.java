package dev.mobileagent.agent.android;

import java.util.HashMap;
import java.util.Map;

/**
 * The names of the accessibility actions a NODE's `actions` carries (docs/protocol.md): the standard
 * actions a node's flags do not already say, by name, and custom actions by their label. The ids are
 * AccessibilityNodeInfo's ACTION_* and the android.R.id.accessibilityAction* of
 * AccessibilityNodeInfo.AccessibilityAction (frameworks/base core/res/res/values/ids.xml).
 */
final class ActionNames {
    private static final Map<Integer, String> NAMED = new HashMap<>();
    /** The actions the flags say (click, focus, select, scroll, text editing ...): left out. */
    private static final Map<Integer, Boolean> IMPLIED = new HashMap<>();

    static {
        NAMED.put(0x00040000, "expand");
        NAMED.put(0x00080000, "collapse");
        NAMED.put(0x00100000, "dismiss");
        NAMED.put(0x00004000, "copy");
        NAMED.put(0x00008000, "paste");
        NAMED.put(0x00010000, "cut");
        NAMED.put(0x00020000, "set_selection");
        NAMED.put(0x01020036, "show_on_screen");
        NAMED.put(0x01020037, "scroll_to_position");
        NAMED.put(0x0102003c, "context_click");
        NAMED.put(0x0102003d, "set_progress");
        NAMED.put(0x01020042, "move_window");
        NAMED.put(0x01020044, "show_tooltip");
        NAMED.put(0x01020045, "hide_tooltip");
        NAMED.put(0x01020046, "page_up");
        NAMED.put(0x01020047, "page_down");
        NAMED.put(0x01020048, "page_left");
        NAMED.put(0x01020049, "page_right");
        NAMED.put(0x0102004a, "press_and_hold");
        NAMED.put(0x01020054, "ime_enter");
        NAMED.put(0x01020055, "drag_start");
        NAMED.put(0x01020056, "drag_drop");
        NAMED.put(0x01020057, "drag_cancel");
        for (int id : new int[] {0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80, 0x100, 0x200, 0x400, 0x800, 0x1000,
                                 0x2000, 0x00200000, 0x01020038, 0x01020039, 0x0102003a, 0x0102003b}) {
            IMPLIED.put(id, true); // focus, clear focus, select, clear selection, click, long click,
            // accessibility focus and its clear, the granularity and html moves, scroll forward and
            // backward, set text, and the four scroll directions
        }
    }

    private ActionNames() {}

    /** The name of the action `id` (a custom one's label), or null for one the flags already say. */
    static String of(int id, CharSequence label) {
        if (IMPLIED.containsKey(id)) return null;
        String named = NAMED.get(id);
        if (named != null) return named;
        return label == null || label.length() == 0 ? null : label.toString();
    }
}
