"""Debian's chromium, headless, driven by Selenium through Debian's chromium-driver: what the pages'
browser tests share (the inspector's, the trace viewer's)."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
NEEDS_CHROMIUM = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                                    reason="needs Debian's chromium and chromium-driver (sudo bash .ci/system-deps)")


@contextlib.contextmanager
def chromium(window_size: str = "1500,1100", *arguments: str) -> Iterator[Any]:
    """A headless chromium (`webdriver.Chrome`), quit at the end, its temporary files with it: with
    `--disable-dev-shm-usage` chromium keeps its shared memory in TMPDIR, and a quit left some of
    those files (`.org.chromium.Chromium.*`) behind in /tmp, a few a test file."""
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={window_size}",
                     "--disable-dev-shm-usage", *arguments):
        options.add_argument(argument)
    with tempfile.TemporaryDirectory(prefix="chromium-", ignore_cleanup_errors=True) as scratch:
        service = webdriver.ChromeService(executable_path=CHROMEDRIVER, env={**os.environ, "TMPDIR": scratch})
        driver = webdriver.Chrome(options=options, service=service)
        try:
            yield driver
        finally:
            driver.quit()


LAPTOP_WINDOWS = ("1366,768", "1366,1000")
"""A 1366x768 laptop's browser window and one 1000 px high: headless chromium's viewport is about
143 px shorter than its window (about 1366x625 and 1366x857), as a real browser's is."""

_HIDDEN_CONTROLS = """
const [selector] = arguments;
const faults = [];
for (const control of document.querySelectorAll(selector)) {
  const box = control.getBoundingClientRect();
  const name = `${control.tagName.toLowerCase()} "${control.textContent.trim() || control.id}"`;
  if (box.top < 0 || box.left < 0 || box.bottom > window.innerHeight || box.right > window.innerWidth) {
    faults.push(`${name} at [${box.left},${box.top}][${box.right},${box.bottom}] is outside the ` +
                `${window.innerWidth}x${window.innerHeight} viewport`);
    continue;
  }
  const hit = document.elementFromPoint((box.left + box.right) / 2, (box.top + box.bottom) / 2);
  if (hit !== control && !control.contains(hit)) {
    faults.push(`${name} is covered or clipped: its centre shows ${hit ? hit.tagName : "nothing"}`);
  }
}
return faults;
"""

_BROKEN_WORDS = """
const [selector] = arguments;
const faults = [];
for (const cell of document.querySelectorAll(selector)) {
  if (cell.scrollWidth > cell.clientWidth) {
    faults.push(`"${cell.textContent}" overflows its cell (${cell.scrollWidth} > ${cell.clientWidth} px)`);
  }
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    for (const word of text.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(text, word.index);
      range.setEnd(text, word.index + word[0].length);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (lines.size > 1) { faults.push(`"${word[0]}" is broken over ${lines.size} lines`); }
    }
  }
}
return faults;
"""


def hidden_controls(driver: Any, selector: str = "button") -> list[str]:
    """The controls `selector` matches that a person cannot see whole or click: outside the viewport,
    or clipped or covered where their centre is (a scrolled-off part of a pane)."""
    return list(driver.execute_script(_HIDDEN_CONTROLS, selector))


def broken_words(driver: Any, selector: str) -> list[str]:
    """The cells `selector` matches whose text overflows them, and each word drawn over two lines."""
    return list(driver.execute_script(_BROKEN_WORDS, selector))


def failed_requests(driver: Any) -> list[str]:
    """What the browser's console said failed since it was last asked (a 403 favicon, a 404 script)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
