"""An APK's facts from its manifest: package, versionCode, activities and the launchable one.

`read_apk(data)` opens the zip, decodes its binary `AndroidManifest.xml` (`axml.py`) and returns
`Apk(manifest, sha256, signed)`. `signed` says whether the zip holds a signature at all: an APK
Signing Block (v2+, the 16-byte magic `APK Sig Block 42` right before the central directory) or a
v1 JAR signature (`META-INF/*.RSA|DSA|EC`); it is not a verification. `build_apk(...)` writes an
APK of the given manifest (a binary manifest, a stub classes.dex, and, unless told otherwise, a
signing block of the v2 layout whose contents are not a real signature): the virtual device
installs it, the tests build their app with it.

The choice of a reader of our own over pyaxmlparser or androguard: docs/architecture.md.
"""

from __future__ import annotations

import hashlib
import io
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from pytest_mobile_agent import axml
from pytest_mobile_agent.errors import InvalidApk

MANIFEST = "AndroidManifest.xml"
MAIN_ACTION = "android.intent.action.MAIN"
LAUNCHER_CATEGORY = "android.intent.category.LAUNCHER"
VIEW_ACTION = "android.intent.action.VIEW"
DEFAULT_CATEGORY = "android.intent.category.DEFAULT"
BROWSABLE_CATEGORY = "android.intent.category.BROWSABLE"
WEB_SCHEMES = ("http", "https")
SIG_BLOCK_MAGIC = b"APK Sig Block 42"
V2_BLOCK_ID = 0x7109871A
_PACKAGE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$")
_EOCD = b"PK\x05\x06"
_ZIP_TIME = (2008, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class LinkFilter:
    """An activity's `<intent-filter>` for links: action VIEW, categories DEFAULT and BROWSABLE,
    and its `<data>` schemes, hosts and path prefixes (`android:autoVerify` on the filter asks the
    platform to verify its https hosts: an App Link). As IntentFilter.matchData reads them: the
    scheme must be one of `schemes`; with hosts, the URL's host must be one (a `*.` host matches
    its subdomains); with path prefixes, the URL's path must start with one."""

    schemes: tuple[str, ...]
    hosts: tuple[str, ...] = ()
    path_prefixes: tuple[str, ...] = ()
    auto_verify: bool = False

    def matches(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme not in self.schemes:
            return False
        host = (parts.hostname or "").lower()
        if self.hosts and not any(_host_matches(wanted.lower(), host) for wanted in self.hosts):
            return False
        return not self.path_prefixes or any(parts.path.startswith(prefix) for prefix in self.path_prefixes)

    @property
    def web(self) -> bool:
        """Whether it takes http or https links (the ones the platform routes by App Link verification)."""
        return any(scheme in WEB_SCHEMES for scheme in self.schemes)


def _host_matches(wanted: str, host: str) -> bool:
    if wanted.startswith("*."):
        return host == wanted[2:] or host.endswith(wanted[1:])
    return host == wanted


@dataclass(frozen=True)
class Activity:
    name: str  # fully qualified
    exported: bool | None = None
    launcher: bool = False
    links: tuple[LinkFilter, ...] = ()


@dataclass(frozen=True)
class Manifest:
    package: str
    version_code: int
    version_name: str | None = None
    min_sdk: int = 1
    target_sdk: int | None = None
    label: str | None = None
    activities: tuple[Activity, ...] = ()
    permissions: tuple[str, ...] = ()

    @property
    def launchable(self) -> str | None:
        """The activity with MAIN and LAUNCHER in an intent filter (what the launcher starts)."""
        return next((a.name for a in self.activities if a.launcher), None)

    def activity(self, name: str) -> str:
        """`name` as the manifest resolves a class name: `.Main` and `Main` under the package."""
        return qualify(self.package, name)


@dataclass(frozen=True)
class Apk:
    manifest: Manifest
    sha256: str = field(repr=False)
    size: int
    signed: bool


def qualify(package: str, name: str) -> str:
    if name.startswith("."):
        return package + name
    return name if "." in name else f"{package}.{name}"


def read_apk(data: bytes) -> Apk:
    """The manifest and facts of an APK's bytes; InvalidApk for what no package manager would take."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            if MANIFEST not in names:
                raise InvalidApk(f"the zip has no {MANIFEST}")
            manifest = read_manifest(archive.read(MANIFEST))
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, NotImplementedError, OSError) as exc:
        raise InvalidApk(f"not a readable APK (zip): {exc or type(exc).__name__}") from None
    v1 = any(re.fullmatch(r"META-INF/[^/]+\.(RSA|DSA|EC)", name) for name in names)
    return Apk(manifest, hashlib.sha256(data).hexdigest(), len(data), v1 or has_signing_block(data))


def read_manifest(binary: bytes) -> Manifest:
    root = axml.parse(binary)
    if root.name != "manifest":
        raise InvalidApk(f"the manifest's root element is <{root.name}>, not <manifest>")
    package = root.attrs.get("package")
    if not isinstance(package, str) or not _PACKAGE_RE.match(package):
        raise InvalidApk(f"the manifest's package {package!r} is not a package name")
    version_code = root.android("versionCode")
    if version_code is None:
        version_code = 0
    if not isinstance(version_code, int) or isinstance(version_code, bool):
        raise InvalidApk(f"the manifest's versionCode {version_code!r} is not a number")
    sdk = next(iter(root.find_all("uses-sdk")), axml.Element("uses-sdk"))
    application = next(iter(root.find_all("application")), axml.Element("application"))
    return Manifest(
        package=package,
        version_code=version_code,
        version_name=_text(root.android("versionName")),
        min_sdk=_int(sdk.android("minSdkVersion"), 1) or 1,
        target_sdk=_int(sdk.android("targetSdkVersion"), None),
        label=_text(application.android("label")),
        activities=tuple(_activities(package, application)),
        permissions=tuple(name for p in root.find_all("uses-permission") if isinstance(name := p.android("name"), str)),
    )


def _text(value: axml.Value) -> str | None:
    return (
        value
        if isinstance(value, str) and not value.startswith("@0x")
        else (str(value) if isinstance(value, int) and not isinstance(value, bool) else None)
    )


def _int(value: axml.Value, default: int | None) -> int | None:  # type: ignore[return]
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return default


def _activities(package: str, application: axml.Element) -> list[Activity]:
    found = []
    for element in [*application.find_all("activity"), *application.find_all("activity-alias")]:
        name = element.android("name")
        if not isinstance(name, str):
            continue
        launcher = any(
            MAIN_ACTION in _names(f, "action") and LAUNCHER_CATEGORY in _names(f, "category")
            for f in element.find_all("intent-filter")
        )
        exported = element.android("exported")
        links = tuple(_link_filter(f) for f in element.find_all("intent-filter") if _takes_links(f))
        found.append(Activity(qualify(package, name), exported if isinstance(exported, bool) else None, launcher,
                              tuple(link for link in links if link.schemes)))
    return found


def _takes_links(intent_filter: axml.Element) -> bool:
    """VIEW with DEFAULT: what an implicit `startActivity` of a URL can resolve to (the platform
    adds CATEGORY_DEFAULT to every implicit activity intent)."""
    return VIEW_ACTION in _names(intent_filter, "action") and DEFAULT_CATEGORY in _names(intent_filter, "category")


def _link_filter(intent_filter: axml.Element) -> LinkFilter:
    data = intent_filter.find_all("data")

    def values(attribute: str) -> tuple[str, ...]:
        found = [d.android(attribute) for d in data]
        return tuple(dict.fromkeys(value for value in found if isinstance(value, str)))

    verify = intent_filter.android("autoVerify")
    return LinkFilter(values("scheme"), values("host"), values("pathPrefix"),
                      verify is True or verify == "true")


def _names(intent_filter: axml.Element, tag: str) -> set[str]:
    return {name for e in intent_filter.find_all(tag) if isinstance(name := e.android("name"), str)}


def has_signing_block(data: bytes) -> bool:
    """Whether an APK Signing Block sits right before the central directory (as apksigner puts it)."""
    end = data.rfind(_EOCD, max(0, len(data) - 65_557))
    if end < 0 or end + 22 > len(data):
        return False
    (cd_offset,) = struct.unpack_from("<I", data, end + 16)
    return cd_offset >= 16 and data[cd_offset - 16 : cd_offset] == SIG_BLOCK_MAGIC


# --- writing ----------------------------------------------------------------------------------------


def manifest_element(manifest: Manifest) -> axml.Element:
    root = axml.Element("manifest", {"android:versionCode": manifest.version_code, "package": manifest.package})
    if manifest.version_name is not None:
        root.attrs["android:versionName"] = manifest.version_name
    sdk: dict[str, axml.Value] = {"android:minSdkVersion": manifest.min_sdk}
    if manifest.target_sdk is not None:
        sdk["android:targetSdkVersion"] = manifest.target_sdk
    root.children.append(axml.Element("uses-sdk", sdk))
    for permission in manifest.permissions:
        root.children.append(axml.Element("uses-permission", {"android:name": permission}))
    application = axml.Element("application", {"android:label": manifest.label} if manifest.label else {})
    for activity in manifest.activities:
        attrs: dict[str, axml.Value] = {"android:name": activity.name}
        if activity.exported is not None:
            attrs["android:exported"] = activity.exported
        element = axml.Element("activity", attrs)
        if activity.launcher:
            element.children.append(axml.Element("intent-filter", {}, [
                axml.Element("action", {"android:name": MAIN_ACTION}),
                axml.Element("category", {"android:name": LAUNCHER_CATEGORY}),
            ]))
        for link in activity.links:
            element.children.append(_link_element(link))
        application.children.append(element)
    root.children.append(application)
    return root


def _link_element(link: LinkFilter) -> axml.Element:
    children = [axml.Element("action", {"android:name": VIEW_ACTION}),
                axml.Element("category", {"android:name": DEFAULT_CATEGORY}),
                axml.Element("category", {"android:name": BROWSABLE_CATEGORY})]
    children += [axml.Element("data", {"android:scheme": scheme}) for scheme in link.schemes]
    children += [axml.Element("data", {"android:host": host}) for host in link.hosts]
    children += [axml.Element("data", {"android:pathPrefix": prefix}) for prefix in link.path_prefixes]
    return axml.Element("intent-filter", {"android:autoVerify": True} if link.auto_verify else {}, children)


def build_apk(manifest: Manifest, *, signed: bool = True, files: dict[str, bytes] | None = None) -> bytes:
    """An APK-format zip of `manifest` (binary AndroidManifest.xml, a stub classes.dex, `files`),
    with a signing block of the v2 layout when `signed` (its signer is not a real signature)."""
    buffer = io.BytesIO()
    entries = {MANIFEST: axml.serialize(manifest_element(manifest)), "classes.dex": b"dex\n035\x00" + bytes(104),
               **(files or {})}
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=_ZIP_TIME), content)
    data = buffer.getvalue()
    return _with_signing_block(data, manifest) if signed else data


def _with_signing_block(data: bytes, manifest: Manifest) -> bytes:
    end = data.rfind(_EOCD)
    (cd_offset,) = struct.unpack_from("<I", data, end + 16)
    value = hashlib.sha256(manifest.package.encode() + data[:cd_offset]).digest()  # not a signature
    pair = struct.pack("<QI", 4 + len(value), V2_BLOCK_ID) + value
    size = len(pair) + 8 + 16
    block = struct.pack("<Q", size) + pair + struct.pack("<Q", size) + SIG_BLOCK_MAGIC
    eocd = bytearray(data[end:])
    struct.pack_into("<I", eocd, 16, cd_offset + len(block))
    return data[:cd_offset] + block + data[cd_offset:end] + bytes(eocd)
