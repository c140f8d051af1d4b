"""Debian's chromium, headless, driven by Selenium through Debian's chromium-driver: what the pages'
browser tests share (the inspector's, the trace viewer's)."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
NEEDS_CHROMIUM = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                                    reason="needs Debian's chromium and chromium-driver (sudo bash .ci/system-deps)")


@contextlib.contextmanager
def chromium(window_size: str = "1500,1100", *arguments: str) -> Iterator[Any]:
    """A headless chromium (`webdriver.Chrome`), quit at the end."""
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={window_size}",
                     "--disable-dev-shm-usage", *arguments):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()
