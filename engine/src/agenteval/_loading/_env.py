"""``.env`` files beside the eval files, read into the environment as ``adk eval`` does."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["load_env_files"]


def load_env_files(folders: Iterable[Path], warn: Callable[[str], None] = lambda message: None) -> list[Path]:
    """Read ``.env`` files beside the eval files into the environment, as ``adk eval``
    does for an agent folder (judge keys, ``GOOGLE_CLOUD_PROJECT``...). Variables already
    set win; each folder is read once. ``warn`` is told of a ``.env`` that points an endpoint
    elsewhere while its key comes from the environment. Returns the files read."""
    from dotenv import load_dotenv

    from .._secrets import endpoint_override_warnings

    read = []
    for folder in dict.fromkeys(Path(f).resolve() for f in folders):
        candidate = folder / ".env"
        if candidate.is_file():
            for warning in endpoint_override_warnings(candidate):
                warn(warning)
            load_dotenv(candidate, override=False)
            read.append(candidate)
    return read
