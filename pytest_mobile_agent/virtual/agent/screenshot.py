"""Screenshots (the Java agent's `core/Agent.screenshot` over `platform/Screenshots.take`): upright in
every display orientation, with the display's rotation and the way the image was taken (`capture`,
docs/protocol.md): UiAutomation's capture, else `screencap -p` when reading UiAutomation's HARDWARE
bitmap back fails in the shell process (`Platform.hardware_read_back_fails`); both failing is
`screenshot_failed` naming both, never a blank image. A read-back that fails silently (all zero:
`Platform.hardware_read_back_black`) counts as failed, as the Java agent's sampling
(platform/Screenshots.requireNotAllZero) finds it; the result's `fallback` says why screencap's."""

from __future__ import annotations

import base64
import io
from typing import Any

from pytest_mobile_agent.virtual.agent.params import RequestError, int_param
from pytest_mobile_agent.virtual.agent.platform import Platform
from pytest_mobile_agent.virtual.ui import UiModel

UI_AUTOMATION = "ui_automation"
SCREENCAP = "screencap"
ALL_ZERO = "UiAutomation's image read back all zero (a failed HARDWARE bitmap copy: Bitmap::getSkBitmap ignores it)"


def screenshot(ui: UiModel, platform: Platform, params: dict[str, Any]) -> dict[str, Any]:
    fmt = params.get("format", "png")
    if fmt not in ("png", "jpeg"):
        raise RequestError("invalid_params", f"unknown screenshot format {fmt!r}")
    quality = int_param(params, "quality", minimum=1, maximum=100, default=80)
    try:
        if platform.hardware_read_back_fails:
            raise RuntimeError("unable to copy the HARDWARE bitmap: no GPU context in this process")
        if platform.hardware_read_back_black:
            raise RuntimeError(ALL_ZERO)
        data, width, height = _encoded(ui, fmt, quality)
        capture, fallback = UI_AUTOMATION, None
    except Exception as first:
        try:
            data, width, height = _encoded(ui, fmt, quality)
        except Exception as second:
            raise RequestError("screenshot_failed", f"UiAutomation's screenshot failed ({first}), and screencap's "
                               f"({second})") from None
        capture, fallback = SCREENCAP, str(first)
    display = platform.display()
    result = {"format": fmt, "width": width, "height": height, "rotation": display.get("rotation", 0),
              "data": base64.b64encode(data).decode("ascii"), "capture": capture}
    if fallback is not None:
        result["fallback"] = fallback
    return result


def _encoded(ui: UiModel, fmt: str, quality: int) -> tuple[bytes, int, int]:
    image = ui.render()
    buffer = io.BytesIO()
    if fmt == "png":
        image.save(buffer, format="PNG", compress_level=1)
    else:
        image.save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue(), image.width, image.height
