"""The package's version, written once: pyproject.toml reads it (`[tool.setuptools.dynamic]`), the
package exports it as `pytest_mobile_agent.__version__`, and the host names itself with it in the
agent protocol's `welcome` (`agent.protocol.HOST_NAME`). A module of its own, importing nothing, so
that any layer can read it without importing the package's public face."""

__version__ = "0.1.0"
