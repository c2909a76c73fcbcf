"""Text helpers shared by the engine and its plugins: untrusted text made short and safe to show.

``one_line``  whitespace runs (newlines included) made one space, cut to a length with ``…``
``suggest``   the closest valid choice to a misspelt name (for "did you mean …?" messages)
``visible``   every character a terminal would act on (controls, escapes, bidi) written out,
              for text printed to a terminal

Neither ``one_line`` nor ``suggest`` escapes: do that where the text is shown (``visible``
for a terminal; HTML escaping in HTML).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any, Optional

from pydantic.alias_generators import to_snake

from ._terminal import visible

__all__ = ["one_line", "suggest", "visible"]


def one_line(text: Any, limit: Optional[int] = None) -> str:
    """``str(text)`` on one line (every run of whitespace made one space, ends stripped),
    at most ``limit`` characters: a longer text is cut and ends with ``…`` (so it is
    exactly ``limit`` long). ``None`` is the empty string; ``limit`` ``None``: no cut."""
    flat = " ".join(("" if text is None else str(text)).split())
    if limit is None or len(flat) <= limit:
        return flat
    return flat[: max(0, limit - 1)] + "…"


def suggest(word: str, choices: Iterable[str]) -> Optional[str]:
    """The closest of ``choices`` to a misspelt ``word`` (camelCase compared as
    snake_case), or ``None`` when none is close."""
    candidates = {to_snake(c): c for c in choices}
    found = difflib.get_close_matches(to_snake(word), list(candidates), n=1, cutoff=0.75)
    return candidates[found[0]] if found else None
