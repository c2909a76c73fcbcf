"""Reproducible seeds: the same (run, case, criterion) always gives the same resamples."""

from __future__ import annotations

import hashlib

__all__ = ["derive_seed"]


def derive_seed(*parts: object) -> int:
    """A seed in [0, 2**63) from ``parts`` (typically ``run_id, case_id, criterion``):
    the first 8 bytes of the SHA-256 of their ``str`` forms joined by a unit separator,
    so re-rendering a report resamples exactly as the first rendering did."""
    text = "\x1f".join(str(part) for part in parts)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1
