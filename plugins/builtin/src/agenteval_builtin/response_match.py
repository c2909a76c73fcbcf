"""``response_match_score``: ROUGE-1 F-measure of the final response, as ADK 2.13 computes it."""

from __future__ import annotations

from collections import Counter

from agenteval import EvaluationContext, Evaluator, EvaluatorInfo, InvocationScore, Score

from ._format import shorten
from ._summary import summarise
from ._tokenizer import load_stemming, token_counts, tokenize

__all__ = ["ResponseMatchScore"]

_MAX_SHOWN_TOKENS = 8


def rouge1(reference: tuple[str, ...], response: tuple[str, ...]) -> tuple[float, float, float]:
    """ROUGE-1 (precision, recall, F) of two token sequences, computed as rouge-score's
    ``RougeScorer(["rouge1"])`` computes it from the same tokens (clipped unigram counts;
    each ratio over at least one token; F 0.0 when P + R is 0), to the last bit: the tests
    check it against rouge-score itself. Counting here saves rouge-score's per-token
    n-gram tuples, a quarter of a large run's scoring time."""
    return _rouge1(reference, response, Counter(reference), Counter(response))[:3]


def _rouge1(
    reference: tuple[str, ...], response: tuple[str, ...], wanted: Counter, got: Counter
) -> tuple[float, float, float, int, dict[str, int]]:
    """``rouge1``, and the clipped overlap and the expected tokens the response lacks (by
    count, in the reference's order), from the count of each side's tokens."""
    overlap = 0
    missing: dict[str, int] = {}
    for token, count in wanted.items():
        have = got.get(token, 0)
        if count > have:
            missing[token] = count - have
            overlap += have
        else:
            overlap += count
    precision = overlap / max(len(response), 1)
    recall = overlap / max(len(reference), 1)
    fmeasure = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, fmeasure, overlap, missing


class ResponseMatchScore(Evaluator):
    """ROUGE-1 F-measure between the agent's final response and the expected one.

    Score: in [0, 1], higher is better; per invocation
    ``F = 2PR / (P + R)`` over unigram tokens with clipped counts, where
    P = overlap / response tokens and R = overlap / expected tokens. The case score is
    the mean over invocations. Texts are ``Invocation.final_text()`` (all text parts
    joined with newlines, thought parts included), tokenised as ADK 2.13 does: NFKC and
    lower-case; one token per CJK ideograph, kana and Hangul syllable; Thai, Lao, Khmer
    and Myanmar per cluster; other words whole, with English Porter stemming of ASCII
    words longer than three letters (see ``_tokenizer``).

    Edge cases: a response or reference without tokens (empty, or only punctuation)
    scores 0.0, and so do two such texts (as in ADK). No invocations: NOT_EVALUATED.

    ``reason`` (every invocation): F, P and R, how many expected tokens were matched,
    and, below 1.0, up to eight expected tokens (normalised and stemmed) the response
    lacks. ``details``: ``precision``, ``recall``, ``response_tokens``,
    ``expected_tokens``.
    """

    info = EvaluatorInfo(
        description="ROUGE-1 F-measure of the final response against the expected one (as ADK).",
        default_threshold=0.8,
        requires_expected=True,
        reads=frozenset({"final_response"}),
    )

    def prepare(self) -> None:
        """Import rouge-score's tokenisation and nltk's stemmer (in the background while
        the agent runs)."""
        load_stemming()

    def evaluate(self, ctx: EvaluationContext) -> Score:
        scores = [_score_invocation(got.final_text(), want.final_text()) for got, want in ctx.pairs()]
        return summarise(scores, ctx.threshold)


def _score_invocation(response: str, reference: str) -> InvocationScore:
    if response == reference:  # one text: every token matches (what _compared finds, counted once)
        count = len(tokenize(response))
        if count:
            return InvocationScore(
                score=1.0,
                reason=(
                    f"ROUGE-1 F 1.000: precision 1.000 ({count} of {count} response tokens), "
                    f"recall 1.000 ({count} of {count} expected tokens)"
                ),
                details={"precision": 1.0, "recall": 1.0, "response_tokens": count, "expected_tokens": count},
            )
    return _compared(response, reference)


def _compared(response: str, reference: str) -> InvocationScore:
    # As ADK: target = the expected text, prediction = the response.
    response_tokens = tokenize(response)
    reference_tokens = tokenize(reference)
    precision, recall, fmeasure, matched, missing = _rouge1(
        reference_tokens, response_tokens, token_counts(reference), token_counts(response)
    )
    details = {
        "precision": precision,
        "recall": recall,
        "response_tokens": len(response_tokens),
        "expected_tokens": len(reference_tokens),
    }
    if not response_tokens or not reference_tokens:
        reason = _empty_reason(response, reference, response_tokens, reference_tokens)
        return InvocationScore(score=fmeasure, reason=reason, details=details)
    reason = (
        f"ROUGE-1 F {fmeasure:.3f}: precision {precision:.3f} "
        f"({matched} of {len(response_tokens)} response tokens), recall {recall:.3f} "
        f"({matched} of {len(reference_tokens)} expected tokens)"
    )
    if missing:
        shown = [shorten(token, 30) for token in list(missing)[:_MAX_SHOWN_TOKENS]]
        more = "" if len(missing) <= _MAX_SHOWN_TOKENS else f", ... {len(missing) - _MAX_SHOWN_TOKENS} more"
        reason += f"; expected tokens not in the response: {', '.join(shown)}{more}"
    return InvocationScore(score=fmeasure, reason=reason, details=details)


def _describe(label: str, text: str) -> str:
    return (
        f"the {label} is empty"
        if not text.strip()
        else f"the {label} has no words (only punctuation or symbols)"
    )


def _empty_reason(response: str, reference: str, response_tokens: tuple, reference_tokens: tuple) -> str:
    if not response_tokens and not reference_tokens:
        return (
            f"{_describe('response', response)} and {_describe('expected response', reference)}: "
            "nothing to compare, scored 0.0 (as ADK)"
        )
    if not response_tokens:
        return f"{_describe('response', response)}: scored 0.0"
    return f"{_describe('expected response', reference)}: scored 0.0"
