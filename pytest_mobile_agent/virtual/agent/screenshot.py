"""Screenshots (the Java agent's `core/Agent.screenshot` over `Platform.screenshot`): upright in
every display orientation, with the display's rotation; a failed capture is an error, never a
blank image."""

from __future__ import annotations

import base64
import io
from typing import Any

from pytest_mobile_agent.virtual.agent.params import RequestError, int_param
from pytest_mobile_agent.virtual.agent.platform import Platform
from pytest_mobile_agent.virtual.ui import UiModel


def screenshot(ui: UiModel, platform: Platform, params: dict[str, Any]) -> dict[str, Any]:
    fmt = params.get("format", "png")
    if fmt not in ("png", "jpeg"):
        raise RequestError("invalid_params", f"unknown screenshot format {fmt!r}")
    quality = int_param(params, "quality", minimum=1, maximum=100, default=80)
    try:
        image = ui.render()
        buffer = io.BytesIO()
        if fmt == "png":
            image.save(buffer, format="PNG", compress_level=1)
        else:
            image.save(buffer, format="JPEG", quality=quality)
    except Exception as exc:
        raise RequestError("screenshot_failed", f"the capture failed: {exc}") from None
    display = platform.display()
    return {"format": fmt, "width": image.width, "height": image.height, "rotation": display.get("rotation", 0),
            "data": base64.b64encode(buffer.getvalue()).decode("ascii")}
