"""The display: its content provider draws the screen and its changes are counted."""

from __future__ import annotations

from PIL import Image

from pytest_mobile_agent.virtual.device import VirtualDevice


def test_display_render_delegates_to_the_content_provider(vdev: VirtualDevice) -> None:
    class Content:
        def render(self, width: int, height: int) -> Image.Image:
            return Image.new("RGB", (width, height), (255, 0, 0))

    before = vdev.display.change_count
    idle = vdev.display.render()
    assert idle.getpixel((540, 1200)) != (255, 0, 0)
    vdev.display.set_content(Content())
    assert vdev.display.render().getpixel((540, 1200)) == (255, 0, 0)
    assert vdev.display.wait_change(before, 0.1) == before + 1
