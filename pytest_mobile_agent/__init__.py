"""pytest-mobile-agent: drive Android devices and emulators from pytest."""

from pytest_mobile_agent._version import __version__

__all__ = ["__version__"]
