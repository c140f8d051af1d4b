"""What the pytester tests of the plugin share: the inner runs' isolation from the outer run, and a
virtual lab served from this process, reached by serial as external devices are."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from pytest_mobile_agent.virtual import VirtualLab

ISOLATED = ("-p", "no:randomly", "-p", "no:cacheprovider")
"""Every inner run gets its own cache; `isolate` gives it its own records and lock directories."""


def isolate(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The inner run names no target of the outer run's and writes only under pytester's directory."""
    for name in ("MOBILE_AGENT_ANDROID_SERIAL", "MOBILE_AGENT_REQUIRE_DEVICE", "MOBILE_AGENT_JAR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))
    monkeypatch.setenv("MOBILE_AGENT_RECORDS", str(pytester.path / "records"))


@contextlib.contextmanager
def served_lab(monkeypatch: pytest.MonkeyPatch, count: int = 1) -> Iterator[VirtualLab]:
    """`count` virtual devices on one adb endpoint, which inner runs reach as the default adb server."""
    lab = VirtualLab.start(count)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(lab.adb_port))
    monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
    try:
        yield lab
    finally:
        lab.stop()
