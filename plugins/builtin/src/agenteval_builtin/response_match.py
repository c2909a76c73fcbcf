"""``response_match_score``: ROUGE-1 F-measure of the final response, as ADK 2.13 computes it."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

from agenteval import EvaluationContext, Evaluator, EvaluatorInfo, InvocationScore, Score

from ._format import shorten
from ._summary import summarise
from ._tokenizer import UnicodeAwareTokenizer, load_stemming, tokenize

__all__ = ["ResponseMatchScore"]

_MAX_SHOWN_TOKENS = 8


@lru_cache(maxsize=1)
def _scorer() -> Any:
    """One rouge-score scorer for the process (it holds no per-call state), built on first
    use: rouge-score imports nltk, about half a second of start-up."""
    from rouge_score import rouge_scorer

    load_stemming()
    return rouge_scorer.RougeScorer(["rouge1"], tokenizer=UnicodeAwareTokenizer())


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
    )

    def prepare(self) -> None:
        """Import rouge-score and nltk (in the background while the agent runs)."""
        _scorer()

    def evaluate(self, ctx: EvaluationContext) -> Score:
        scores = [_score_invocation(got.final_text(), want.final_text()) for got, want in ctx.pairs()]
        return summarise(scores, ctx.threshold)


def _score_invocation(response: str, reference: str) -> InvocationScore:
    # Same argument order as ADK: target = the expected text, prediction = the response.
    rouge = _scorer().score(reference, response)["rouge1"]
    response_tokens = tokenize(response)
    reference_tokens = tokenize(reference)
    details = {
        "precision": rouge.precision,
        "recall": rouge.recall,
        "response_tokens": len(response_tokens),
        "expected_tokens": len(reference_tokens),
    }
    if not response_tokens or not reference_tokens:
        reason = _empty_reason(response, reference, response_tokens, reference_tokens)
        return InvocationScore(score=rouge.fmeasure, reason=reason, details=details)
    missing = Counter(reference_tokens) - Counter(response_tokens)
    matched = len(reference_tokens) - sum(missing.values())
    reason = (
        f"ROUGE-1 F {rouge.fmeasure:.3f}: precision {rouge.precision:.3f} "
        f"({matched} of {len(response_tokens)} response tokens), recall {rouge.recall:.3f} "
        f"({matched} of {len(reference_tokens)} expected tokens)"
    )
    if missing:
        shown = [shorten(token, 30) for token in list(missing)[:_MAX_SHOWN_TOKENS]]
        more = "" if len(missing) <= _MAX_SHOWN_TOKENS else f", ... {len(missing) - _MAX_SHOWN_TOKENS} more"
        reason += f"; expected tokens not in the response: {', '.join(shown)}{more}"
    return InvocationScore(score=rouge.fmeasure, reason=reason, details=details)


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
