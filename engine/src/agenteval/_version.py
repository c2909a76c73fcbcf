"""The engine distribution's version (kept in step with engine/pyproject.toml by a test)."""

__version__ = "0.20.1"
