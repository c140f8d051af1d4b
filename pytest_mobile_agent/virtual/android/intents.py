"""Which activity handles a VIEW intent on the virtual device, as PackageManager resolves an
implicit `startActivity` of a URL (frameworks/base services/core/java/com/android/server/pm/
ComputerEngine.java queryIntentActivitiesInternal, with the App Link rules of Android 12 and later,
services/core/java/com/android/server/pm/verify/domain/DomainVerificationService.java):

* the installed apps' exported activities whose `<intent-filter>` takes VIEW with DEFAULT and the
  URL's scheme, host and path (`apk.LinkFilter`) are the candidates; `-p PACKAGE` keeps that
  package's only, and then the first of them starts, verified or not;
* an http or https URL goes to the app whose filter is an App Link (`android:autoVerify`) for a
  host the platform verified for it (`pm get-app-links` says `verified`); since Android 12 an
  unverified web filter is not offered, so any other web URL opens in the image's browser, as
  Chrome takes http and https on an emulator image with Google APIs (its launcher activity
  com.google.android.apps.chrome.Main declares the VIEW filter for those schemes);
* any other scheme (`fixture://tab/List`) goes to the first matching activity (with several, a
  real device shows the chooser, ResolverActivity: not modelled).

Nothing else handles a URL, so `am start -a android.intent.action.VIEW -d URL` fails as
ActivityManagerShellCommand.runStartActivity does when PackageManager resolves no activity:
"Error: Activity not started, unable to resolve Intent { act=... dat=... flg=0x10000000 }".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from pytest_mobile_agent.apk import WEB_SCHEMES, Manifest

ACTION_VIEW = "android.intent.action.VIEW"
BROWSER_PACKAGE = "com.android.chrome"
BROWSER_ACTIVITY = "com.google.android.apps.chrome.Main"
FLAG_ACTIVITY_NEW_TASK = 0x10000000  # what `am start` adds to every intent it starts


@dataclass(frozen=True)
class LinkHandler:
    """An installed app as link resolution sees it: its manifest and the hosts verified for it."""

    manifest: Manifest
    verified_hosts: frozenset[str] = frozenset()


def resolve_view(url: str, package: str | None = None, installed: Iterable[LinkHandler] = ()) -> str | None:
    """The component (`pkg/activity`) that handles VIEW of `url`, restricted to `package` when given."""
    scheme = urlsplit(url).scheme.lower()
    web = scheme in WEB_SCHEMES
    host = (urlsplit(url).hostname or "").lower()
    for handler in installed:
        if package is not None and handler.manifest.package != package:
            continue
        for activity in handler.manifest.activities:
            if activity.exported is False:
                continue
            for link in activity.links:
                if not link.matches(url):
                    continue
                verified = link.auto_verify and host in handler.verified_hosts
                if package is not None or not web or verified:
                    return f"{handler.manifest.package}/{activity.name}"
    if web and package in (None, BROWSER_PACKAGE):
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
