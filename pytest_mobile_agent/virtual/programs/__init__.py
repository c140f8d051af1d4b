"""The programs of the virtual device, one module per tool family (see docs/architecture.md, "virtual")."""
