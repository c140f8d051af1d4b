package dev.mobileagent.agent.platform;

/** One interactive window as the platform reports it (an AccessibilityWindowInfo on Android). */
public interface RawWindow {
    int id();

    /** One of application, input_method, system, accessibility_overlay, split_screen_divider, magnification_overlay. */
    String type();

    String title();

    int layer();

    boolean focused();

    boolean active();

    int[] bounds();

    /** The window's root node, or null when the window has no content (yet) or is gone. */
    PNode root();
}
