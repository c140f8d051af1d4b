"""Which activity handles a VIEW intent on the virtual device: the image's browser takes http and
https URLs, as Chrome does on an emulator image with Google APIs (its launcher activity
com.google.android.apps.chrome.Main declares the VIEW filter for those schemes). Nothing else
handles a URL, so `am start -a android.intent.action.VIEW -d URL` fails as
ActivityManagerShellCommand.runStartActivity does when PackageManager resolves no activity:
"Error: Activity not started, unable to resolve Intent { act=... dat=... flg=0x10000000 }".
"""

from __future__ import annotations

from urllib.parse import urlsplit

ACTION_VIEW = "android.intent.action.VIEW"
BROWSER_PACKAGE = "com.android.chrome"
BROWSER_ACTIVITY = "com.google.android.apps.chrome.Main"
FLAG_ACTIVITY_NEW_TASK = 0x10000000  # what `am start` adds to every intent it starts


def resolve_view(url: str, package: str | None = None) -> str | None:
    """The component (`pkg/activity`) that handles VIEW of `url`, restricted to `package` when given."""
    scheme = urlsplit(url).scheme.lower()
    if scheme in ("http", "https") and package in (None, BROWSER_PACKAGE):
        return f"{BROWSER_PACKAGE}/{BROWSER_ACTIVITY}"
    return None


def safe_data(url: str) -> str:
    """The data URI as Intent.toString shows it (Uri.toSafeString): an http(s) URL keeps its scheme,
    host and port and hides its path behind `/...`; other schemes keep only the scheme."""
    parts = urlsplit(url)
    if parts.scheme.lower() in ("http", "https", "ftp", "rtsp"):
        host = parts.netloc.rsplit("@", 1)[-1]
        hidden = parts.path not in ("", "/") or parts.query
        return f"{parts.scheme}://{host}/..." if hidden else f"{parts.scheme}://{host}"
    return f"{parts.scheme}:" if parts.scheme else url
