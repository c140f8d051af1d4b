"""The icon of the command line's pages (the inspector, the trace viewer): one small SVG, served at
/favicon.ico without the token. A browser asks for /favicon.ico on its own, without the page's
query, so behind the token it would be refused (a 403 in the console); the icon tells nothing."""

from __future__ import annotations

from importlib import resources

PATH = "/favicon.ico"
CONTENT_TYPE = "image/svg+xml"
LINK = f'<link rel="icon" type="{CONTENT_TYPE}" href="{PATH}">'
"""How a page names its icon, so the browser asks for it where it is served."""


def favicon() -> bytes:
    return (resources.files("pytest_mobile_agent.cli.inspector") / "static" / "favicon.svg").read_bytes()
