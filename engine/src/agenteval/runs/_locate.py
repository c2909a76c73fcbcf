"""Where each case is defined in its eval file (1-based line numbers), for reports that pin
a failure to the line of the eval file (JUnit ``line``, GitHub annotations)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Optional

__all__ = ["case_lines"]

_ID_KEY = re.compile(r'"(?:eval_id|evalId|name)"\s*:\s*("(?:[^"\\]|\\.)*")')


def case_lines(path: Optional[str]) -> dict[str, int]:
    """eval_id -> the line of its ``"eval_id": ...`` key (the first one; legacy multi-case
    files use ``name``). Empty when the file cannot be read."""
    if not path:
        return {}
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    found: dict[str, int] = {}
    line, position = 1, 0
    for match in _ID_KEY.finditer(text):
        line += text.count("\n", position, match.start())
        position = match.start()
        try:
            value = json.loads(match.group(1))
        except ValueError:
            continue
        if isinstance(value, str):
            found.setdefault(value, line)
    return found
