"""The binary manifest reader and the APK writer: against pyaxmlparser (a reader of real APKs that
shares nothing with ours), and against bad input."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import zipfile
from pathlib import Path

import pytest

from pytest_mobile_agent import axml
from pytest_mobile_agent.apk import (
    Activity,
    LinkFilter,
    Manifest,
    build_apk,
    manifest_element,
    read_apk,
    read_manifest,
)
from pytest_mobile_agent.errors import InvalidApk
from tests.support.apks import OTHER_MANIFEST, fixture_apk

pyaxmlparser = pytest.importorskip("pyaxmlparser", reason="pyaxmlparser (a dev extra) is the independent reader")


def test_pyaxmlparser_reads_our_apks_as_we_do(tmp_path: Path) -> None:
    for manifest in (OTHER_MANIFEST, read_apk(fixture_apk()).manifest):
        path = tmp_path / f"{manifest.package}.apk"
        path.write_bytes(build_apk(manifest))
        theirs = pyaxmlparser.APK(str(path))
        assert theirs.package == manifest.package
        assert int(theirs.version_code) == manifest.version_code and theirs.version_name == manifest.version_name
        assert theirs.get_main_activity() == manifest.launchable
        assert sorted(theirs.get_activities()) == sorted(a.name for a in manifest.activities)
        assert sorted(theirs.get_permissions()) == sorted(manifest.permissions)
        assert int(theirs.get_min_sdk_version()) == manifest.min_sdk
        assert int(theirs.get_target_sdk_version()) == manifest.target_sdk
        assert read_apk(path.read_bytes()).manifest == manifest


def test_relative_activity_names_resolve_under_the_package() -> None:
    root = axml.Element("manifest", {"package": "com.example.app", "android:versionCode": 3}, [
        axml.Element("application", {}, [
            axml.Element("activity", {"android:name": ".Main"}, [axml.Element("intent-filter", {}, [
                axml.Element("action", {"android:name": "android.intent.action.MAIN"}),
                axml.Element("category", {"android:name": "android.intent.category.LAUNCHER"})])]),
            axml.Element("activity", {"android:name": "Settings"}),
            axml.Element("activity", {"android:name": "org.other.Shared"}),
        ])])
    manifest = read_manifest(axml.serialize(root))
    assert [a.name for a in manifest.activities] == [
        "com.example.app.Main",
        "com.example.app.Settings",
        "org.other.Shared",
    ]
    assert manifest.launchable == "com.example.app.Main" and manifest.version_code == 3


def test_attributes_are_found_by_resource_id_when_their_names_are_stripped() -> None:
    data = bytearray(
        axml.serialize(axml.Element("manifest", {"package": "com.example.app", "android:versionCode": 42}))
    )
    index = data.find("versionCode".encode("utf-16-le"))
    data[index : index + 22] = "xxxxxxxxxxx".encode("utf-16-le")  # a shrinker renamed the string
    assert read_manifest(bytes(data)).version_code == 42


def test_the_signature_is_seen_whether_v1_or_a_signing_block() -> None:
    assert read_apk(build_apk(OTHER_MANIFEST)).signed
    assert not read_apk(build_apk(OTHER_MANIFEST, signed=False)).signed
    v1 = build_apk(OTHER_MANIFEST, signed=False, files={"META-INF/CERT.RSA": b"\x30\x82"})
    assert read_apk(v1).signed


@pytest.mark.parametrize(("data", "says"), [
    (b"PK\x03\x04garbage", "not a readable APK"),
    (b"", "not a readable APK"),
], ids=["a broken zip", "nothing"])
def test_what_is_no_apk_is_invalid_apk(data: bytes, says: str) -> None:
    with pytest.raises(InvalidApk, match=says):
        read_apk(data)


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("entries", "says"),
    [
        ({"classes.dex": b"dex\n"}, "no AndroidManifest.xml"),
        ({"AndroidManifest.xml": b"<manifest package='a.b'/>"}, "not RES_XML_TYPE"),
        ({"AndroidManifest.xml": axml.serialize(axml.Element("application"))}, "not <manifest>"),
        ({"AndroidManifest.xml": axml.serialize(axml.Element("manifest", {"package": "x; rm"}))}, "not a package name"),
        (
            {
                "AndroidManifest.xml": axml.serialize(
                    axml.Element("manifest", {"package": "a.b", "android:versionCode": "two"})
                )
            },
            "not a number",
        ),
    ],
    ids=["no manifest", "a text manifest", "another root", "a hostile package", "a text versionCode"],
)
def test_a_bad_manifest_is_a_clear_error(entries: dict[str, bytes], says: str) -> None:
    with pytest.raises(InvalidApk, match=says):
        read_apk(_zip(entries))


def test_every_truncation_of_a_manifest_is_invalid_apk_or_a_manifest() -> None:
    data = axml.serialize(manifest_element(OTHER_MANIFEST))
    for end in range(0, len(data), 7):
        with contextlib.suppress(InvalidApk):
            read_manifest(data[:end])


def test_a_manifest_round_trips_through_the_writer() -> None:
    manifest = dataclasses.replace(
        OTHER_MANIFEST, label="Notes \u2013 ünïcode", activities=(Activity("dev.x.A", False, True),)
    )
    assert read_apk(build_apk(manifest)).manifest == manifest
    assert isinstance(read_apk(build_apk(manifest)).manifest, Manifest)


def test_an_activitys_link_filters_are_written_and_read_back_as_pyaxmlparser_reads_them(tmp_path: Path) -> None:
    """Issue 41 item 12: the fixture app declares its deep links as a real app does, in its manifest."""
    manifest = read_apk(fixture_apk()).manifest
    links = manifest.activities[0].links
    assert [(link.schemes, link.hosts, link.path_prefixes, link.auto_verify) for link in links] == [
        (("fixture",), ("tab",), (), False), (("https",), ("fixture.example",), ("/tab/",), True)]
    path = tmp_path / "fixture.apk"
    path.write_bytes(build_apk(manifest))
    xml = pyaxmlparser.APK(str(path)).get_android_manifest_xml()
    android = "{http://schemas.android.com/apk/res/android}"
    filters = [f for f in xml.iter("intent-filter") if any(
        a.get(f"{android}name") == "android.intent.action.VIEW" for a in f.iter("action"))]
    assert [[d.get(f"{android}scheme") or d.get(f"{android}host") or d.get(f"{android}pathPrefix")
             for d in f.iter("data")] for f in filters] == [["fixture", "tab"], ["https", "fixture.example", "/tab/"]]
    assert [f.get(f"{android}autoVerify") for f in filters] == [None, "true"]


def test_a_link_filter_matches_its_scheme_host_and_path_prefix_only() -> None:
    link = LinkFilter(("https",), ("fixture.example", "*.fixture.dev"), ("/tab/",), auto_verify=True)
    assert link.matches("https://fixture.example/tab/List") and link.matches("https://FIXTURE.example/tab/x")
    assert link.matches("https://a.fixture.dev/tab/List") and link.matches("https://fixture.dev/tab/")
    assert not link.matches("http://fixture.example/tab/List"), "the scheme is not one it declares"
    assert not link.matches("https://fixture.example/about") and not link.matches("https://other.example/tab/List")
    assert LinkFilter(("fixture",)).matches("fixture://anything/at/all"), "no host: any host"
