"""pytest-mobile-agent: drive Android devices and emulators from pytest."""

__version__ = "0.1.0"
