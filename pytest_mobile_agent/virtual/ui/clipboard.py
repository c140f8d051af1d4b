"""The clipboard and SystemUI's clipboard overlay (Android 13+).

SystemUI listens to every primary-clip change and shows its clipboard overlay, a system window in
the bottom-left corner that takes touches, unless the clip's description carries
`com.android.systemui.SUPPRESS_CLIPBOARD_OVERLAY` and its source is the shell or the device is an
emulator (packages/SystemUI/src/com/android/systemui/clipboardoverlay/ClipboardListener.java,
`onPrimaryClipChanged` and `shouldSuppressOverlay`). The overlay goes away on its timeout or on a
touch outside it. ClipboardService refuses a clip with content URIs the caller holds no grant on
(`checkDataOwner`), so the shell cannot put back a clip an app made with URIs: `ClipRefused`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_mobile_agent.virtual.ui.geometry import Geometry
from pytest_mobile_agent.virtual.ui.node import Node, Window

SHELL_PACKAGE = "com.android.shell"
SHELL_UID = 2000
ROOT_UID = 0
#: the shell's label and the access toast's words (R.string.pasted_from_clipboard, "%1$s pasted from
#: your clipboard"); the toast is system_server's own, package `android`
SHELL_LABEL = "Shell"
PASTED_FROM_CLIPBOARD = " pasted from your clipboard"
SYSTEM_PACKAGE = "android"
EXTRA_SUPPRESS_OVERLAY = "com.android.systemui.SUPPRESS_CLIPBOARD_OVERLAY"
SYSTEMUI = "com.android.systemui"
#: how long the overlay stays without a touch (ClipboardOverlayController's default timeout)
OVERLAY_TIMEOUT_MS = 6000.0
LAYER_CLIPBOARD_OVERLAY = 9


@dataclass(frozen=True)
class Clip:
    """A primary clip: its text, whether its description carries the suppress extra, and the
    content URIs its items hold."""

    text: str
    suppress_overlay: bool = False
    uris: tuple[str, ...] = ()
    #: whether getPrimaryClip hands it to the shell; False: a clip hasPrimaryClip reports but the
    #: read refuses (an app-op policy that differs between the check and the note, a URI the
    #: service cannot grant, a vendor's SecurityException: ClipboardService.getPrimaryClip and
    #: hasPrimaryClip, services/core/java/com/android/server/clipboard/ClipboardService.java)
    shell_readable: bool = True

    def unseen(self) -> Clip:
        """The clip with the suppress extra added to its description's extras."""
        return Clip(self.text, True, self.uris, self.shell_readable)


class ClipRefused(Exception):  # noqa: N818 - the platform's SecurityException
    """ClipboardService's SecurityException: the caller may not set a clip with these URIs."""


def suppresses_overlay(clip: Clip, source: str, emulator: bool) -> bool:
    """ClipboardListener.shouldSuppressOverlay."""
    return (emulator or source == SHELL_PACKAGE) and clip.suppress_overlay


def check_data_owner(clip: Clip, source: str) -> None:
    """ClipboardService.checkDataOwner: a URI of another app's provider needs a grant the shell
    does not hold."""
    if clip.uris and source == SHELL_PACKAGE:
        raise ClipRefused(f"java.lang.SecurityException: Uri {clip.uris[0]} not allowed for {SHELL_PACKAGE}")


def overlay_window(geo: Geometry, clip: Clip) -> Window:
    """The overlay: a preview of the clip and its actions, above the navigation bar, on the left."""
    left, bottom = geo.dp(16), geo.nav_bar[1] - geo.dp(16)
    right, top = left + geo.dp(230), bottom - geo.dp(150)
    w = Window(type="system", title="ClipboardOverlay", package=SYSTEMUI, layer=LAYER_CLIPBOARD_OVERLAY,
               bounds=(left, top, right, bottom), sends_change_events=True)
    rid = f"{SYSTEMUI}:id/"
    w.root.res = rid + "clipboard_ui"
    w.root.add(Node("android.widget.TextView", (left + 30, top + 150, right - 30, bottom - 30),
                    text=clip.text, res=rid + "text_preview", clickable=True, focusable=True))
    for i, (res, desc) in enumerate((("share_chip", "Share"), ("edit_chip", "Edit"))):
        x = left + 30 + i * 170
        w.root.add(Node("android.widget.ImageView", (x, top + 30, x + 150, top + 120), desc=desc, res=rid + res,
                        clickable=True, focusable=True))
    return w
