"""What a person sees of a page's controls, checked in the browser (loaded by path as
``agenteval_viewer_visibility``; see conftest).

``problems(page, scope)`` scrolls every control under ``scope`` (buttons, links, inputs,
selects, text areas, summaries) into view and reports, one line each, a control that

- is not visible (no size, ``visibility: hidden``, or an opacity of 0 on it or a parent),
- is not inside the viewport once scrolled to,
- is covered at its centre by another element (``document.elementFromPoint``), or
- has text whose contrast with the background behind it is under WCAG's 4.5:1 (3:1 for large
  text: 24 px, or 18.66 px bold); a disabled control is exempt from contrast, as in WCAG.

Every other element with text of its own under ``scope`` is held to the same contrast rule
(white on white is a bug wherever it is). The background is the first opaque
``background-color`` of the element or its parents, with translucent ones blended over it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

_SCRIPT = Path(__file__).with_name("_visibility.js").read_text(encoding="utf-8")


def problems(page: Any, scope: str = "body", *, controls_only: bool = False) -> list[str]:
    """Every visibility, overlap and contrast problem of the controls (and, unless
    ``controls_only``, of all text) under the CSS selector ``scope``."""
    return page.evaluate(_SCRIPT, [scope, controls_only])


def controls(page: Any, scope: str = "body") -> int:
    """How many controls ``problems`` looked at under ``scope`` (so a test can say it saw some)."""
    return page.evaluate(
        "(s) => document.querySelector(s).querySelectorAll("
        "'button, a[href], input:not([type=hidden]), select, textarea, summary').length",
        scope,
    )
