"""The session header names each target with its facts (model, API level, emulator or device):
the built-in virtual devices, and every target of a comma list, not only the first one's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import pytest_mobile_agent.virtual.agent  # noqa: F401  (before the inner runs: see test_plugin_surface)
from pytest_mobile_agent.virtual import VirtualLab
from tests.unit.plugin.plugin_inner_runs import ISOLATED, isolate, served_lab

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(pytester, monkeypatch)


@pytest.fixture
def two_served(monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualLab]:
    """Two virtual devices served by one adb endpoint, as two targets of one adb server."""
    with served_lab(monkeypatch, 2) as lab:
        yield lab


@pytest.mark.parametrize(("serial", "described"), [("virtual", "1 built-in virtual device"),
                                                    ("virtual:2", "2 built-in virtual devices")])
def test_the_header_gives_the_virtual_devices_facts(pytester: pytest.Pytester, serial: str, described: str) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(*ISOLATED, "--android-serial", serial)
    result.stdout.fnmatch_lines([f"mobile-agent: virtual: {described}, model sdk_gphone64_x86_64, API 36, emulator"])


def test_the_header_gives_every_listed_targets_facts(pytester: pytest.Pytester, two_served: VirtualLab) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    first, second = two_served.serials
    result = pytester.runpytest(*ISOLATED, "--android-serial", f"{first},{second},emulator-5999",
                                "--android-skip-unusable")
    result.stdout.fnmatch_lines([
        f"mobile-agent: {first} device, model sdk_gphone64_x86_64, API 36, emulator",
        f"mobile-agent: {second} device, model sdk_gphone64_x86_64, API 36, emulator",
        "mobile-agent: emulator-5999: not on the adb server at 127.0.0.1:*",
    ])
