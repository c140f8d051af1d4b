"""The tests' APKs: the Compose fixture app (the package the virtual device's UI model shows) and
a plain app, as real APK-format zips with a binary AndroidManifest.xml (`pytest_mobile_agent.apk`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pytest_mobile_agent.apk import Activity, Manifest, build_apk
from pytest_mobile_agent.virtual.ui.fixture import FIXTURE_MANIFEST

OTHER_PACKAGE = "dev.mobileagent.it.notes"
OTHER_MANIFEST = Manifest(
    package=OTHER_PACKAGE, version_code=7, version_name="7.0", min_sdk=24, target_sdk=35, label="Notes",
    activities=(Activity(f"{OTHER_PACKAGE}.NotesActivity", exported=True, launcher=True),
                Activity(f"{OTHER_PACKAGE}.SettingsActivity")),
    permissions=("android.permission.CAMERA", "android.permission.INTERNET"),
)


def fixture_apk(version_code: int = FIXTURE_MANIFEST.version_code, *, signed: bool = True, **changes: object) -> bytes:
    """The fixture app's APK; with the defaults, byte for byte the one the virtual device has installed."""
    manifest = dataclasses.replace(FIXTURE_MANIFEST, version_code=version_code, **changes)  # type: ignore[arg-type]
    return build_apk(manifest, signed=signed)


def other_apk(version_code: int = OTHER_MANIFEST.version_code, *, signed: bool = True, **changes: object) -> bytes:
    manifest = dataclasses.replace(OTHER_MANIFEST, version_code=version_code, **changes)  # type: ignore[arg-type]
    return build_apk(manifest, signed=signed)


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
