"""The doctor's compatibility report (`doctor --report FILE`) and what goes into it beside the rows.

A report is one JSON object a user attaches to a bug report and we fill docs/agent-android.md's
compatibility table from: the device as its build names itself (`ro.build.fingerprint`, API level,
release, model), the agent that ran, and every check's outcome with its figures (numbers and names
a check measured, for comparing devices; the row's `detail` says the same in words).

```json
{"report": "pytest-mobile-agent doctor", "format": 1, "created": "2026-12-06T05:00:00Z",
 "package_version": "0.9.0", "serial": "emulator-5554", "ok": true,
 "device": {"fingerprint": "google/sdk_gphone64_x86_64/emu64xa:16/...", "api": 36, "release": "16", ...},
 "agent": {"version": "0.9.0", "build": "..."},
 "checks": [{"check": "snapshot", "result": "ok", "seconds": 0.05, "detail": "...", "advice": null,
             "figures": {"nodes": 41, "read_ms": 12}}, ...],
 "summary": "22 checks: 22 passed"}
```

This module also judges a screenshot's pixels: a black image (every pixel's colour zero, whatever
its alpha) is what a failed GPU readback gives (docs/agent-android.md, "Screenshots"), never a
screen, so the doctor fails it.
"""

from __future__ import annotations

import datetime
import hashlib
import io
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy
from PIL import Image

from pytest_mobile_agent import errors
from pytest_mobile_agent._version import __version__

REPORT_NAME = "pytest-mobile-agent doctor"
REPORT_FORMAT = 1
#: the build properties a report names the device by, as `getprop` gives them
DEVICE_PROPERTIES = {
    "fingerprint": "ro.build.fingerprint", "api": "ro.build.version.sdk", "release": "ro.build.version.release",
    "model": "ro.product.model", "manufacturer": "ro.product.manufacturer", "abi": "ro.product.cpu.abi",
    "build_type": "ro.build.type", "debuggable": "ro.debuggable",
}


class PropertyReader(Protocol):
    def getprop(self, name: str) -> str: ...


def device_facts(device: PropertyReader) -> dict[str, Any]:
    """The build's own names for the device; `api` an int (None where the property is empty)."""
    facts: dict[str, Any] = {key: device.getprop(prop) or None for key, prop in DEVICE_PROPERTIES.items()}
    api = facts["api"]
    facts["api"] = int(api) if api and api.isdigit() else None
    return facts


@dataclass(frozen=True)
class Pixels:
    """What a screenshot's pixels say: a checksum of their colours and how many are not black."""

    width: int
    height: int
    sha256: str  # of the RGB bytes, row by row: the same picture in PNG or another encoding sums alike
    lit_fraction: float  # the share of pixels whose colour is not (0, 0, 0)
    colours: int  # distinct colours, counted up to COLOUR_CAP

    @property
    def black(self) -> bool:
        return self.lit_fraction == 0.0


COLOUR_CAP = 65536


def pixels_of(image_bytes: bytes) -> Pixels:
    """The pixels of a PNG or JPEG; an image that does not decode is a MobileAgentError saying so."""
    try:
        with Image.open(io.BytesIO(image_bytes)) as opened:
            rgb = opened.convert("RGB")
    except (OSError, ValueError) as exc:
        raise errors.MobileAgentError(f"the screenshot does not decode: {exc}",
                                      advice="Attach the doctor's report (--report FILE) to a bug report") from None
    lit = int(numpy.count_nonzero(numpy.asarray(rgb).any(axis=2)))
    colours = rgb.getcolors(COLOUR_CAP)
    total = rgb.width * rgb.height
    return Pixels(rgb.width, rgb.height, hashlib.sha256(rgb.tobytes()).hexdigest(),
                  round(lit / total, 4) if total else 0.0, len(colours) if colours is not None else COLOUR_CAP)


def report(*, serial: str, rows: list[Any], figures: Mapping[str, Mapping[str, Any]], device: Mapping[str, Any],
           agent: Mapping[str, Any], summary: str) -> dict[str, Any]:
    """The report as one JSON-ready object (the module's docstring shows it)."""
    checks = [{**asdict(row), "figures": dict(figures.get(row.check, {}))} for row in rows]
    return {
        "report": REPORT_NAME, "format": REPORT_FORMAT,
        "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "package_version": __version__, "serial": serial, "ok": not any(c["result"] == "failed" for c in checks),
        "device": dict(device), "agent": dict(agent), "checks": checks, "summary": summary,
    }


def write_report(path: Path, content: Mapping[str, Any]) -> None:
    """Write the report; a path that cannot be written is an InvalidArgument naming it."""
    try:
        path.write_text(json.dumps(content, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise errors.InvalidArgument(f"--report {path}: cannot write the report: {exc.strerror or exc}",
                                     advice="Name a file in a directory that exists and that you may write") from None
