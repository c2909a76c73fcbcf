"""Run-vs-run comparison, the public face of ``agenteval compare A B``.

``load_side`` reads one side (a run folder, a run id in a runs folder, or ADK eval-history
results); ``compare_sides`` pairs two sides and tests each criterion; the ``CompareReport``'s
``to_json()`` is the document ``agenteval compare A B --format json`` prints, and
``render_markdown`` its pull-request comment. Pairing and configuration problems raise
``agenteval.ConfigError`` with the message the command prints.
"""

from ._comparison import CaseFlip, CompareReport, Side, compare_sides, load_side, render_markdown

__all__ = ["CaseFlip", "CompareReport", "Side", "compare_sides", "load_side", "render_markdown"]
