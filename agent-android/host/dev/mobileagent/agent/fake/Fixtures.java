package dev.mobileagent.agent.fake;

/**
 * The fake UIs of the host tests and of HostMain: the Compose fixture app (tabs Login, List, Big;
 * Big has 500 cells, 573 nodes in the window), a React Native form, the keyboard, a permission
 * prompt and an in-app alert (both touch-modal, so the app under them is not reported), split
 * screen, over a status bar.
 */
public final class Fixtures {
    public static final String APP = "dev.mobileagent.fixture";
    public static final String RN_APP = "dev.mobileagent.rnfixture";
    public static final String SYSTEMUI = "com.android.systemui";
    public static final String PERMISSIONS = "com.google.android.permissioncontroller";
    public static final int STATUS_BAR = 1;
    public static final int COMPOSE = 12;
    public static final int RN = 14;
    public static final int KEYBOARD = 20;
    public static final int PROMPT = 30;
    public static final int ALERT = 31;
    public static final int DIVIDER = 40;
    public static final int WEB = 50;
    public static final int CLIPBOARD_OVERLAY = 60;
    public static final String BROWSER = "dev.mobileagent.webfixture";
    public static final int HOME = 70;
    public static final int WALLPAPER = 71;
    public static final int OVERLAY = 80;
    public static final String LAUNCHER = "com.google.android.apps.nexuslauncher";

    private Fixtures() {}

    public static FakeWindow statusBar() {
        FakeNode clock = FakeNode.of("android.widget.TextView").text("12:00").res("com.android.systemui:id/clock")
            .pkg(SYSTEMUI).bounds(40, 0, 200, 63);
        FakeNode root = FakeNode.of("android.widget.FrameLayout").pkg(SYSTEMUI).bounds(0, 0, 1080, 63).add(clock);
        return new FakeWindow(STATUS_BAR, "system", "Status bar", 10).bounds(0, 0, 1080, 63).root(root);
    }

    /** The status bar's clock node (changing it sends an event: system UI is not Compose). */
    public static FakeNode clockOf(FakeWindow statusBar) {
        return statusBar.rootNode().children().get(0);
    }

    private static FakeNode compose(String cls) {
        return FakeNode.of(cls).pkg(APP).provider();
    }

    /** The Compose fixture on its Login tab. Compose content: virtual nodes, no change events. */
    public static FakeWindow composeApp() {
        final FakeWindow w = new FakeWindow(COMPOSE, "application", "Compose fixture", 1).withFocus().eventLess();
        final FakeNode page = compose("android.view.View").res("page").bounds(0, 336, 1080, 2400);
        FakeNode tabs = compose("android.view.View").res("tabs").bounds(0, 210, 1080, 336);
        // Compose's Tab gives its node the role description "Tab" (androidx.compose.ui's
        // AndroidComposeViewAccessibilityDelegateCompat, Role.Tab), the a11y_fields' `role`
        FakeNode login = compose("android.view.View").res("tab_login").bounds(0, 210, 360, 336).role("Tab")
            .onClick(() -> w.replaceChildren(page, loginPage()));
        FakeNode list = compose("android.view.View").res("tab_list").bounds(360, 210, 720, 336).role("Tab")
            .onClick(() -> w.replaceChildren(page, listPage()));
        FakeNode big = compose("android.view.View").res("tab_big").bounds(720, 210, 1080, 336).role("Tab")
            .onClick(() -> w.replaceChildren(page, bigPage()));
        login.add(compose("android.widget.TextView").text("Login").bounds(0, 210, 360, 336));
        list.add(compose("android.widget.TextView").text("List").bounds(360, 210, 720, 336));
        big.add(compose("android.widget.TextView").text("Big").bounds(720, 210, 1080, 336));
        tabs.add(login, list, big);
        page.add(loginPage());
        // An invisible parent with visible children, as Compose has them: kept.
        FakeNode content = compose("android.view.View").invisible().bounds(0, 63, 1080, 2400).add(tabs, page);
        FakeNode root = FakeNode.of("android.view.ViewGroup").pkg(APP).bounds(0, 0, 1080, 2400).add(content);
        return w.root(root);
    }

    static FakeNode loginPage() {
        FakeNode user = compose("android.widget.EditText").res("username").hint("Username").bounds(60, 500, 1020, 640).editable(true);
        FakeNode pin = compose("android.widget.EditText").res("pin").hint("PIN").bounds(60, 700, 1020, 840).editable(false);
        FakeNode button = compose("android.widget.Button").text("Log in").res("login").bounds(60, 900, 1020, 1040).clickable();
        return compose("android.view.View").res("login_page").bounds(0, 336, 1080, 2400).add(user, pin, button);
    }

    static FakeNode listPage() {
        FakeNode list = compose("android.view.View").res("list").bounds(0, 336, 1080, 2400).scrollable(true, 50);
        for (int i = 0; i < 12; i++) {
            list.add(compose("android.widget.TextView").text("Row " + i).item(i).bounds(0, 336 + i * 170, 1080, 506 + i * 170));
        }
        return list;
    }

    /** 573 nodes in the window with the chrome around it: 500 cells, 50 section headers, the grid. */
    static FakeNode bigPage() {
        FakeNode grid = compose("android.view.View").res("big_grid").bounds(0, 336, 1080, 2400).scrollable(true, 500);
        for (int s = 0; s < 50; s++) {
            grid.add(compose("android.widget.TextView").text("Section " + s).bounds(0, 336, 1080, 400));
            for (int c = 0; c < 10; c++) {
                int i = s * 10 + c;
                grid.add(compose("android.widget.TextView").text("Cell " + i).item(i).bounds(0, 400, 108, 500));
            }
        }
        FakeNode title = compose("android.widget.TextView").text("Big").res("big_title").bounds(0, 336, 1080, 400);
        FakeNode page = compose("android.view.View").res("big_page").bounds(0, 336, 1080, 2400).add(title, grid);
        for (int i = 0; i < 10; i++) page.add(compose("android.view.View").desc("spacer " + i).bounds(0, 2390, 1080, 2400));
        return page;
    }

    /**
     * A page in a WebView: its second paragraph is a node the platform never gives (getChild
     * returns null for it, as for a WebView's or a provider's node it cannot fetch).
     */
    public static FakeWindow webPage() {
        FakeNode web = FakeNode.of("android.webkit.WebView").pkg(BROWSER).res("web").bounds(0, 63, 1080, 2400);
        web.add(FakeNode.of("android.view.View").pkg(BROWSER).text("Heading").bounds(0, 100, 1080, 200),
            FakeNode.of("android.view.View").pkg(BROWSER).text("Lost paragraph").bounds(0, 200, 1080, 400),
            FakeNode.of("android.widget.Button").pkg(BROWSER).text("Continue").bounds(0, 400, 1080, 520).clickable());
        web.nullChild(1, -1);
        FakeNode root = FakeNode.of("android.widget.FrameLayout").pkg(BROWSER).bounds(0, 0, 1080, 2400).add(web);
        return new FakeWindow(WEB, "application", "Browser", 1).withFocus().root(root);
    }

    /** A React Native form: ReactEditText fields that accept text set directly and send change events. */
    public static FakeWindow reactNativeForm() {
        FakeWindow w = new FakeWindow(RN, "application", "RN fixture", 1).withFocus();
        FakeNode name = FakeNode.of("com.facebook.react.views.textinput.ReactEditText").pkg(RN_APP).res("name")
            .hint("Name").bounds(40, 300, 1040, 420).editable(true);
        FakeNode email = FakeNode.of("com.facebook.react.views.textinput.ReactEditText").pkg(RN_APP).res("email")
            .hint("Email").bounds(40, 460, 1040, 580).editable(true);
        FakeNode label = FakeNode.of("android.widget.TextView").pkg(RN_APP).text("Sign up").bounds(40, 200, 1040, 280);
        FakeNode group = FakeNode.of("android.view.ViewGroup").pkg(RN_APP).bounds(0, 63, 1080, 2400).add(label, name, email);
        return w.root(FakeNode.of("android.widget.FrameLayout").pkg(RN_APP).bounds(0, 0, 1080, 2400).add(group));
    }

    /** The on-screen keyboard, its keys as nodes. */
    static FakeWindow keyboard(FakePlatform p) {
        FakeNode root = FakeNode.of("android.widget.FrameLayout").pkg(FakePlatform.KEYBOARD_PACKAGE).bounds(0, 1600, 1080, 2400);
        String row = "qwertyuiop";
        for (int i = 0; i < row.length(); i++) {
            root.add(FakeNode.of("com.android.inputmethod.keyboard.Key").pkg(FakePlatform.KEYBOARD_PACKAGE)
                .desc(String.valueOf(row.charAt(i))).bounds(i * 108, 1700, i * 108 + 108, 1850).clickable());
        }
        return new FakeWindow(KEYBOARD, "input_method", "Gboard", 5).bounds(0, 1600, 1080, 2400).root(root);
    }

    /** The runtime permission prompt: the permission controller's activity over the app. */
    public static FakeWindow permissionPrompt() {
        FakeNode msg = FakeNode.of("android.widget.TextView").pkg(PERMISSIONS).res("com.android.permissioncontroller:id/permission_message")
            .text("Allow Compose fixture to take pictures and record video?").bounds(100, 900, 980, 1100);
        FakeNode allow = FakeNode.of("android.widget.Button").pkg(PERMISSIONS).text("While using the app")
            .res("com.android.permissioncontroller:id/permission_allow_foreground_only_button").bounds(100, 1150, 980, 1280).clickable();
        FakeNode deny = FakeNode.of("android.widget.Button").pkg(PERMISSIONS).text("Don’t allow")
            .res("com.android.permissioncontroller:id/permission_deny_button").bounds(100, 1300, 980, 1430).clickable();
        FakeNode root = FakeNode.of("android.widget.FrameLayout").pkg(PERMISSIONS).bounds(60, 850, 1020, 1480).add(msg, allow, deny);
        return new FakeWindow(PROMPT, "application", "Permission", 2).bounds(60, 850, 1020, 1480).withFocus().touchModal()
            .root(root);
    }

    /** An in-app alert: a Compose dialog window of the app, modal, sending no change events. */
    public static FakeWindow inAppAlert() {
        FakeNode title = compose("android.widget.TextView").text("Delete the draft?").bounds(120, 1000, 960, 1080);
        FakeNode ok = compose("android.widget.Button").text("Delete").bounds(600, 1200, 900, 1300).clickable();
        FakeNode cancel = compose("android.widget.Button").text("Cancel").bounds(200, 1200, 500, 1300).clickable();
        FakeNode dialog = compose("android.view.View").bounds(100, 950, 980, 1350).add(title, cancel, ok);
        FakeNode root = FakeNode.of("android.view.ViewGroup").pkg(APP).bounds(100, 950, 980, 1350).add(dialog);
        return new FakeWindow(ALERT, "application", "Alert", 2).bounds(100, 950, 980, 1350).withFocus().eventLess()
            .touchModal().root(root);
    }

    /** Split screen: the RN form over the divider over the Compose fixture, each task half the display. */
    public static FakePlatform splitScreen() {
        FakeWindow top = reactNativeForm().bounds(0, 63, 1080, 1180).task(0, 63, 1080, 1180);
        FakeWindow divider = new FakeWindow(DIVIDER, "split_screen_divider", "DockedStackDivider", 3).bounds(0, 1180, 1080, 1220)
            .root(FakeNode.of("android.view.View").pkg(SYSTEMUI).bounds(0, 1180, 1080, 1220));
        FakeWindow bottom = composeApp().bounds(0, 1220, 1080, 2400).task(0, 1220, 1080, 2400);
        return new FakePlatform().add(statusBar()).add(divider).add(top).add(bottom);
    }

    /** The launcher's home screen: a full-screen application window under every other task. */
    public static FakeWindow home() {
        FakeNode phone = FakeNode.of("android.widget.TextView").pkg(LAUNCHER).text("Phone").bounds(60, 2100, 260, 2300)
            .clickable();
        FakeNode root = FakeNode.of("android.widget.FrameLayout").pkg(LAUNCHER).bounds(0, 0, 1080, 2400).add(phone);
        return new FakeWindow(HOME, "application", "Home", 0).withFocus().ownedBy(10_050).root(root);
    }

    /** The wallpaper window (WindowManager.LayoutParams.TYPE_WALLPAPER): on screen, never reported. */
    public static FakeWindow wallpaper() {
        return new FakeWindow(WALLPAPER, "system", "Wallpaper", -1).layoutType(ReportedWindows.TYPE_WALLPAPER)
            .ownedBy(10_060).root(FakeNode.of("android.view.View").pkg(SYSTEMUI).bounds(0, 0, 1080, 2400));
    }

    /** The RN form as a freeform (desktop) task's window at this frame, above the other tasks. */
    public static FakeWindow freeformForm(int l, int t, int r, int b) {
        return reactNativeForm().bounds(l, t, r, b).freeform();
    }

    /** The in-app alert as a dialog of a task whose bounds are these (a freeform task's frame). */
    public static FakeWindow alertInTask(int l, int t, int r, int b) {
        int w = (r - l) / 4;
        int h = (b - t) / 4;
        return inAppAlert().bounds(l + w, t + h, r - w, b - h).task(l, t, r, b);
    }

    /**
     * A full-screen overlay of system UI above everything, not touchable (FLAG_NOT_TOUCHABLE) and
     * trusted, such as a screen decoration (rounded corners): never reported, takes no space.
     */
    public static FakeWindow screenDecoration() {
        return new FakeWindow(OVERLAY, "system", "ScreenDecorOverlay", 20)
            .layoutType(ReportedWindows.TYPE_NAVIGATION_BAR_PANEL).notTouchable().trustedOverlay().ownedBy(10_060)
            .root(FakeNode.of("android.view.View").pkg(SYSTEMUI).bounds(0, 0, 1080, 2400));
    }

    /** An accessibility service's overlay above everything (TYPE_ACCESSIBILITY_OVERLAY): reported, takes no space. */
    public static FakeWindow accessibilityOverlay() {
        FakeNode root = FakeNode.of("android.view.View").pkg("dev.mobileagent.a11y").bounds(0, 0, 1080, 2400);
        return new FakeWindow(OVERLAY, "accessibility_overlay", "Overlay", 20)
            .layoutType(ReportedWindows.TYPE_ACCESSIBILITY_OVERLAY).ownedBy(10_070).root(root);
    }

    /** SystemUI's clipboard overlay: a preview of the clip and its actions, in the bottom-left corner. */
    static FakeWindow clipboardOverlay() {
        FakeNode preview = FakeNode.of("android.widget.TextView").pkg(SYSTEMUI).res(SYSTEMUI + ":id/text_preview")
            .bounds(60, 1960, 560, 2140).clickable();
        FakeNode share = FakeNode.of("android.widget.ImageView").pkg(SYSTEMUI).res(SYSTEMUI + ":id/share_chip")
            .desc("Share").bounds(60, 1800, 200, 1900).clickable();
        FakeNode root = FakeNode.of("android.widget.FrameLayout").pkg(SYSTEMUI).res(SYSTEMUI + ":id/clipboard_ui")
            .bounds(40, 1780, 600, 2160).add(share, preview);
        return new FakeWindow(CLIPBOARD_OVERLAY, "system", "ClipboardOverlay", 9).bounds(40, 1780, 600, 2160).root(root);
    }

    /** HostMain's fixed UI: the status bar over the Compose fixture on its Login tab. */
    /** The node of {@code root}'s tree whose resource name is {@code res}, or null. */
    public static FakeNode byRes(FakeNode root, String res) {
        if (res.equals(root.a.res)) return root;
        for (FakeNode c : root.children()) {
            FakeNode f = byRes(c, res);
            if (f != null) return f;
        }
        return null;
    }

    public static FakePlatform fixedUi() {
        return new FakePlatform().add(statusBar()).add(composeApp());
    }
}
