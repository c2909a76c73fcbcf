"""Requests and tokens per minute for one judge limit: token buckets on an explicit clock.

A ``TokenBucket`` of ``per_minute`` units holds at most ``capacity`` units and refills
continuously. A reservation of ``amount`` is granted once the bucket holds
``min(amount, capacity)`` (a call larger than the bucket goes from a full bucket and leaves
it in debt), never before an earlier reservation, and is taken at that moment. So over any
span of ``T`` seconds the reservations granted add up to at most ``capacity + per_minute *
T / 60`` (plus, for a call larger than the bucket, its excess).

The requests bucket holds one request (calls evenly spaced, ``60 / requests_per_minute``
seconds apart); the tokens bucket one second of tokens. A call reserves an estimate of its
tokens (``estimate_tokens``) and settles with what the provider reported: the difference
goes back to the bucket (a refund) or is owed by the next calls (debt).

Times are seconds on a monotonic clock the caller passes in (tests use a fake clock).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ._types import JudgeRequest

__all__ = ["JudgeRates", "TokenBucket", "estimate_tokens"]

#: The output tokens a call is assumed to use when its request sets no ``max_output_tokens``.
DEFAULT_OUTPUT_ESTIMATE = 512
#: Characters per token of the input estimate (a common rule of thumb; settled afterwards).
_CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class JudgeRates:
    """The rates the user set for each judge (provider, model, endpoint); ``None``: no limit.

    Attributes:
        requests_per_minute: judge requests a minute (``--judge-rpm``).
        tokens_per_minute: judge tokens (input + output, as the provider reports them) a
            minute (``--judge-tpm``).
    """

    requests_per_minute: Optional[float] = None
    tokens_per_minute: Optional[float] = None


class TokenBucket:
    """``per_minute`` units a minute, at most ``capacity`` at once (see the module).

    ``level`` is what the bucket holds at time ``stamp`` (the last grant, which may lie in
    the future: a reservation granted later than it was asked for)."""

    def __init__(self, per_minute: float, capacity: float, now: float) -> None:
        if not per_minute > 0 or not capacity > 0:
            raise ValueError("a token bucket needs a positive rate and capacity")
        self.rate = per_minute / 60.0
        self.capacity = float(capacity)
        self.level = float(capacity)
        self.stamp = now

    def _level_at(self, moment: float) -> float:
        return min(self.capacity, self.level + (moment - self.stamp) * self.rate)

    def ready_at(self, amount: float, now: float) -> float:
        """The earliest moment (``>= now``) a reservation of ``amount`` can be granted."""
        start = max(now, self.stamp)
        missing = min(amount, self.capacity) - self._level_at(start)
        return start if missing <= 0 else start + missing / self.rate

    def take(self, amount: float, moment: float) -> None:
        """Grant ``amount`` at ``moment`` (a moment ``ready_at`` gave: never before the last)."""
        moment = max(moment, self.stamp)
        self.level = self._level_at(moment) - amount
        self.stamp = moment

    def settle(self, reserved: float, used: float) -> None:
        """A granted reservation used ``used``, not ``reserved``: refund or owe the difference."""
        self.level = min(self.capacity, self.level + reserved - used)


def estimate_tokens(request: JudgeRequest) -> int:
    """What a call reserves of a tokens-per-minute limit before it is made: its text's
    characters over 4, plus its ``max_output_tokens`` (else ``DEFAULT_OUTPUT_ESTIMATE``)."""
    characters = len(request.prompt) + len(request.system_instruction or "")
    if request.response_schema:
        characters += len(str(request.response_schema))
    output = request.max_output_tokens if request.max_output_tokens is not None else DEFAULT_OUTPUT_ESTIMATE
    return max(1, -(-characters // _CHARS_PER_TOKEN) + output)
