"""The breakdowns ADK 2.13 keeps in an efficiency metric's result details
(``EvalMetricResultDetails``): the criteria that compute them and the eval history that
records them name the same keys, from here."""

from __future__ import annotations

__all__ = ["DURATION_KEYS", "TOKEN_USAGE_KEYS"]

#: ``token_usage_details`` (ADK's ``TokenUsageDetails``), in ADK's order: each count contains
#: those indented under it in ADK's docs (total > input > prompt > cached, input > tool_use,
#: total > output > candidates, output > reasoning).
TOKEN_USAGE_KEYS = (
    "total_tokens",
    "input_tokens",
    "prompt_tokens",
    "cached_tokens",
    "tool_use_tokens",
    "output_tokens",
    "candidates_tokens",
    "reasoning_tokens",
)

#: ``duration_details`` (ADK's ``DurationDetails``): the turn's wall-clock seconds and the
#: model's, the tools' and the framework's (the rest) share of them.
DURATION_KEYS = ("total_seconds", "model_seconds", "tool_seconds", "framework_seconds")
