"""The Compose fixture app exists twice: as a real Android project (`fixture-app/`, Kotlin and
Compose, built by .github/workflows/device-tests.yml) and as the virtual device's double
(pytest_mobile_agent/virtual/ui/fixture.py). The real one cannot be built here, so its source is
read: every id and text of README's fixture table must be in both apps, the virtual one as its
screens show them (driven on a model clock), the real one in its Kotlin source, where a string
template (`"Item $n"`, `"$BIG_CELLS cells"`) stands for what it shows. Its manifest and Gradle
configuration must be the virtual app's (`FIXTURE_MANIFEST`)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

import pytest

from pytest_mobile_agent.virtual.ui import EmulatorUi, ManualClock
from pytest_mobile_agent.virtual.ui import fixture as virtual
from pytest_mobile_agent.virtual.ui.node import Node
from pytest_mobile_agent.virtual.ui.toasts import ToastEvent

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "fixture-app" / "app"
SOURCES = APP / "src" / "main"
ANDROID = "{http://schemas.android.com/apk/res/android}"
#: the name README's table signs in with ("Signed in as NAME"), typed as the username here
NAME = "NAME"
#: README's placeholders: NAME a user's name, N an item's or a cell's number
PLACEHOLDERS = {"NAME": r"\S+", "N": r"\d+"}


# --- README's table ---------------------------------------------------------------------------------


@cache
def table_lines() -> list[str]:
    lines = (REPO / "README.md").read_text().splitlines()
    start = lines.index("| screen | ids |")
    table = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        table.append(line)
    return table


def readme_ids() -> list[str]:
    """Every id the table names; `item_1` .. `item_100` names each of the range."""
    ids: list[str] = []
    for line in table_lines():
        text = re.sub(r"`(\w+?)(\d+)` \.\. `\1(\d+)`",
                      lambda m: " ".join(f"`{m[1]}{n}`" for n in range(int(m[2]), int(m[3]) + 1)), line)
        ids += [word for word in re.findall(r"`([^`]+)`", text) if re.fullmatch(r"[a-z][a-z0-9_]*", word)]
    return list(dict.fromkeys(ids))


def readme_texts() -> list[str]:
    return list(dict.fromkeys(t for line in table_lines() for t in re.findall(r'"([^"]+)"', line)))


def test_the_table_is_read_whole() -> None:
    ids, texts = readme_ids(), readme_texts()
    assert {"title", "tab_login", "invite_code", "alert_ok", "late_button", "item_100", "cell_500",
            "loaded_text"} <= set(ids)
    assert len([i for i in ids if i.startswith("cell_")]) == virtual.BIG_CELLS
    assert {"Compose fixture", "Signed in as NAME", "Cell N", "Continuing as guest", "Loading…"} <= set(texts)


# --- the virtual app, as its screens show it --------------------------------------------------------


class Shown:
    """What the virtual fixture app showed: every node's resource id and text, and its toasts."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.texts: set[str] = set()

    def look(self, ui: EmulatorUi) -> None:
        for window in ui.windows():
            for node in window.root.walk():
                if node.res:
                    self.ids.add(node.res)
                if node.text:
                    self.texts.add(node.text)


def _by_res(ui: EmulatorUi, res: str) -> Node:
    found = next((n for w in ui.windows() if (n := w.by_res(res)) is not None), None)
    assert found is not None, f"the virtual fixture shows no {res}"
    return found


def _tap(ui: EmulatorUi, res: str) -> None:
    left, top, right, bottom = _by_res(ui, res).bounds
    ui.touch((left + right) // 2, (top + bottom) // 2, True)
    ui.touch((left + right) // 2, (top + bottom) // 2, False)


@cache
def virtual_app_shows() -> Shown:
    """Every screen of the virtual app, with its alert, its late button and its toast."""
    clock, shown = ManualClock(), Shown()
    ui = EmulatorUi(clock)
    toasts: list[ToastEvent] = []
    ui.toasts.subscribe(toasts.append)

    def settle(ms: float = 1000.0) -> None:
        for _ in range(int(ms // 50)):  # what a step schedules runs at a later step
            clock.advance(50)
            ui.advance()
        shown.look(ui)

    ui.start_app({"tab": "Login"})
    settle()
    ui.set_text(_by_res(ui, "username"), NAME)
    ui.set_text(_by_res(ui, "password"), "not " + virtual.PASSWORD)
    _tap(ui, "login_button")
    settle()  # "Wrong password"
    ui.set_text(_by_res(ui, "password"), virtual.PASSWORD)
    _tap(ui, "login_button")
    settle()  # the alert, "Signed in as NAME"
    _tap(ui, "alert_ok")
    for tab in ("tab_list", "tab_login"):
        _tap(ui, tab)
        settle()  # the List tab, then Login reached by a tap: its late button
    _tap(ui, "late_button")
    _tap(ui, "web_sign_in_button")
    settle()  # the web sign-in's window and its WebViews (their pages need a device's chromium)
    assert ui.key(4)  # BACK closes it
    settle()
    _tap(ui, "tab_list")
    settle()
    assert ui.app.list is not None
    while ui.app.list.offset() < ui.app.list.max_offset():  # a screen at a time: every item shows once
        ui.app.list.scroll_to(ui.app.list.offset() + ui.app.list.item_height * 5)
        settle(100)
    _tap(ui, "tab_big")
    settle()
    ui.start_app({"tab": "Gestures"})
    settle()
    ui.start_app({"tab": "Loading", "spin_ms": "500"})
    settle(100)
    settle()  # Loaded
    ui.start_app({"tab": "Search"})
    settle()
    _tap(ui, "search_query")
    ui.perform_editor_action()  # the Search action on no text
    settle()
    ui.set_text(_by_res(ui, "search_query"), "kotlin")
    ui.perform_editor_action()
    settle()  # the results
    ui.start_app({"tab": "Feed"})
    settle()
    feed = _by_res(ui, "feed").scroller
    assert feed is not None
    while feed.offset() < feed.max_offset():  # every photo card shows once
        feed.scroll_to(feed.offset() + 600)
        settle(100)
    ui.start_app({"tab": "Audit"})
    settle()
    shown.texts |= {t.text for t in toasts}
    return shown


def _placeholder_pattern(readme_text: str) -> re.Pattern[str]:
    parts = re.split(r"\b(NAME|N)\b", readme_text)
    return re.compile("".join(PLACEHOLDERS[p] if i % 2 else re.escape(p) for i, p in enumerate(parts)))


def test_the_virtual_app_shows_every_id_of_the_table() -> None:
    assert [res for res in readme_ids() if res not in virtual_app_shows().ids] == []


@pytest.mark.parametrize("text", [t for t in readme_texts() if t != virtual.PASSWORD])
def test_the_virtual_app_shows_every_text_of_the_table(text: str) -> None:
    wanted = _placeholder_pattern(text)
    assert any(wanted.fullmatch(shown) for shown in virtual_app_shows().texts), text
    if "NAME" in text:
        assert text in virtual_app_shows().texts, "signed in as the user named NAME"


def test_both_apps_take_the_tables_password() -> None:
    assert virtual.PASSWORD in readme_texts()
    assert kotlin_constants()["PASSWORD"] == virtual.PASSWORD


# --- the real app, as its source has it -------------------------------------------------------------


@cache
def kotlin_sources() -> str:
    """The Kotlin sources without their comments (a comment that names a text shows nothing)."""
    files = sorted((SOURCES / "java").rglob("*.kt"))
    assert files, f"no Kotlin sources under {SOURCES}"
    code = "\n".join(path.read_text() for path in files)
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", code, flags=re.S)


@cache
def kotlin_constants() -> dict[str, str]:
    """`const val NAME = 500` and `const val NAME = "text"`, as their values' text."""
    return {name: (quoted if quoted else number) for name, quoted, number in
            re.findall(r'const val (\w+) = (?:"([^"]*)"|(\d+)L?)', kotlin_sources())}


@cache
def kotlin_strings() -> list[re.Pattern[str]]:
    """Every string literal of the Kotlin sources and every `<item name=...>` of its resources, as a
    pattern of what it shows: a constant's template is its value, any other template any text."""
    constants = kotlin_constants()
    patterns = []
    for literal in re.findall(r'"((?:[^"\\$]|\\.|\$\{[^}]*\}|\$\w+)*)"', kotlin_sources()):
        parts = re.split(r"(\$\{[^}]*\}|\$\w+)", literal)
        if not any(parts[0::2]):
            continue  # a template alone ("$n") shows anything: it stands for no text of its own
        pattern = "".join(
            re.escape(part) if i % 2 == 0 else re.escape(constants[name]) if (name := part.strip("${}")) in constants
            else r".+" for i, part in enumerate(parts))
        patterns.append(re.compile(pattern))
    for resources in (SOURCES / "res").rglob("*.xml"):
        for item in ET.parse(resources).getroot():
            patterns.append(re.compile(re.escape(item.get("name", ""))))
            if item.text and item.text.strip():
                patterns.append(re.compile(re.escape(item.text.strip())))
    return patterns


def _in_kotlin(value: str) -> bool:
    return any(pattern.fullmatch(value) for pattern in kotlin_strings())


def test_the_real_app_has_every_id_of_the_table() -> None:
    assert [res for res in readme_ids() if not _in_kotlin(res)] == [], "fixture-app has no such testTag or resource id"


@pytest.mark.parametrize("text", readme_texts())
def test_the_real_app_has_every_text_of_the_table(text: str) -> None:
    sample = text.replace("NAME", NAME).replace("N", "7") if re.search(r"\b(NAME|N)\b", text) else text
    assert _in_kotlin(sample), f"fixture-app shows no {text!r}"


def test_the_real_apps_counts_and_timings_are_the_virtual_apps() -> None:
    constants = kotlin_constants()
    assert int(constants["LIST_ITEMS"]) == virtual.LIST_ITEMS
    assert int(constants["BIG_CELLS"]) == virtual.BIG_CELLS and int(constants["BIG_COLUMNS"]) == virtual.BIG_COLUMNS
    assert int(constants["LATE_BUTTON_MS"]) == virtual.LATE_BUTTON_MS
    assert constants["GUEST_TOAST"] == virtual.GUEST_TOAST and constants["WRONG_PASSWORD"] == virtual.WRONG_PASSWORD
    screens = re.findall(r'^\s+(\w+)\("(\w+)", (?:"(tab_\w+)"|null), "(screen_\w+)"\)', kotlin_sources(), re.M)
    assert [title for _, title, _, _ in screens] == list(virtual.SCREENS)
    assert [tab for _, _, tab, _ in screens if tab] == [f"tab_{t.lower()}" for t in virtual.TABS]


def test_every_tag_is_a_resource_id_in_the_activity_and_in_the_alerts_window() -> None:
    sources = {path.name: path.read_text() for path in (SOURCES / "java").rglob("*.kt")}
    assert "testTagsAsResourceId = true" in sources["FixtureApp.kt"]
    assert "testTagsAsResourceId = true" in sources["LoginScreen.kt"], "a dialog is a window of its own"
    assert "removeAction(AccessibilityActionCompat.ACTION_SET_TEXT)" in sources["InviteCodeField.kt"]


def test_the_manifest_and_the_build_are_the_virtual_apps() -> None:
    expected = virtual.FIXTURE_MANIFEST
    gradle = (APP / "build.gradle.kts").read_text()
    for setting, value in (("applicationId", f'"{expected.package}"'), ("minSdk", expected.min_sdk),
                           ("targetSdk", expected.target_sdk), ("versionCode", expected.version_code),
                           ("versionName", f'"{expected.version_name}"')):
        assert re.search(rf"^\s+{setting} = {re.escape(str(value))}$", gradle, re.M), setting
    manifest = ET.parse(SOURCES / "AndroidManifest.xml").getroot()
    permissions = tuple(p.get(f"{ANDROID}name") for p in manifest.iter("uses-permission"))
    assert permissions == expected.permissions
    (activity,) = manifest.iter("activity")
    assert (activity.get(f"{ANDROID}name"), activity.get(f"{ANDROID}exported")) == (virtual.MAIN_ACTIVITY, "true")
    assert {c.get(f"{ANDROID}name") for c in activity.iter("category")} == {"android.intent.category.LAUNCHER"}
    label = manifest.find("application").get(f"{ANDROID}label")  # type: ignore[union-attr]
    strings = ET.parse(SOURCES / "res" / "values" / "strings.xml").getroot()
    assert label == "@string/app_name" and strings.find("string[@name='app_name']").text == expected.label  # type: ignore[union-attr]


def test_the_real_apps_web_pages_are_the_virtual_apps() -> None:
    from pytest_mobile_agent.virtual.ui.fixture_web import ASSETS

    for path, asset in ASSETS.items():  # /assets/signin.html is the APK's assets/signin.html
        assert (SOURCES / path.lstrip("/")).read_bytes() == asset.body, path
