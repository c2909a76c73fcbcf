"""``tool_trajectory_match_v2``: tool-call trajectories with partial credit.

One pair similarity, two alignment shapes, five scores; every peer's trajectory metric is a
setting of it (``docs/criteria/tool_trajectory_match_v2.md`` has the presets). With
``score: binary``, ``args.mode`` ``exact`` or ``ignore`` and ``empty: adk`` it gives exactly
``tool_trajectory_avg_score``'s scores.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import Enum
from typing import Any, Literal, NamedTuple, Optional

from agenteval import EvaluationContext, Evaluator, EvaluatorInfo, InvocationScore, Score
from agenteval import Params as ParamsBase
from agenteval.models import FunctionCall, Invocation
from agenteval.plugins import ArgDiff, TrajectoryRow, row_text
from pydantic import Field, field_validator, model_validator

from ._arguments import ArgsConfig, ArgumentRule
from ._matching import parse_match_type
from ._summary import summarise
from ._trajectory_alignment import Pair, align

__all__ = ["ToolTrajectoryMatchV2", "TrajectoryMatchType"]


class TrajectoryMatchType(str, Enum):
    """ADK's three match types and LangChain's two containment modes."""

    EXACT = "EXACT"
    IN_ORDER = "IN_ORDER"
    ANY_ORDER = "ANY_ORDER"
    SUBSET = "SUBSET"
    SUPERSET = "SUPERSET"


_SHAPE = {TrajectoryMatchType.EXACT: "diagonal", TrajectoryMatchType.IN_ORDER: "ordered"}
#: For ``binary``: must every (actual, expected) call be fully matched?
_REQUIRED = {
    TrajectoryMatchType.EXACT: (True, True),
    TrajectoryMatchType.IN_ORDER: (False, True),
    TrajectoryMatchType.ANY_ORDER: (False, True),
    TrajectoryMatchType.SUPERSET: (False, True),
    TrajectoryMatchType.SUBSET: (True, False),
}
_MAX_LISTED = 6


class _Call(NamedTuple):
    index: int  # position in its turn's call list
    turn: int
    call: FunctionCall


class _Outcome(NamedTuple):
    score: float
    reason: Optional[str]
    details: dict[str, Any]


class ToolTrajectoryMatchV2(Evaluator):
    """Tool-call trajectory with partial credit: precision, recall, F1, F-beta or pass/fail.

    Score: in [0, 1], higher is better. Per invocation (or, with ``scope:
    "conversation"``, once over all turns' calls), each actual call is paired with at most
    one expected call. A pair's similarity s is 0 when the tool names differ, else the
    arguments' score under ``args`` (1/0 for ``exact``, ``subset``, ``superset``,
    ``ignore``; a share for ``partial``; per-key matchers in ``fields``). ``EXACT`` pairs
    call k with call k; ``IN_ORDER`` finds the order-keeping pairing of largest total
    similarity M (weighted LCS); ``ANY_ORDER``, ``SUBSET`` and ``SUPERSET`` the best pairing
    in any order (maximum-weight matching); ``alignment: greedy`` pairs first-fit instead.
    P = M/|actual|, R = M/|expected|, then ``score``: ``precision``, ``recall``, ``f1``,
    ``f_beta`` ((1+β²)PR/(β²P+R)) or ``binary`` (1.0 when every required call is matched
    with s = 1: the expected ones for IN_ORDER, ANY_ORDER, SUPERSET; the actual ones for
    SUBSET; both for EXACT). Case score: the mean over invocations.

    Edge cases: calls named in ``ignore_tools`` are dropped from both sides first. Both
    sides empty: 1.0. One side empty: 0.0, except with ``empty: "adk"`` when the side that
    must be matched is the empty one (nothing expected under IN_ORDER / ANY_ORDER /
    SUPERSET, nothing called under SUBSET): 1.0, as ADK. No invocations: NOT_EVALUATED.

    ``reason`` (below 1.0): precision and recall, the missing and extra calls, and the
    partly matching pairs with the arguments that differ. ``details`` per invocation:
    ``actual_calls``, ``expected_calls``, ``matched`` (M), ``precision``, ``recall`` and,
    unless every call matched perfectly, ``alignment``: trajectory rows
    (``agenteval.plugins.TrajectoryRow`` JSON: pairs with their ``similarity`` and
    per-key ``arg_diffs`` naming the ``matcher``, ``missing`` and ``extra`` calls).
    """

    info = EvaluatorInfo(
        description="Tool-call trajectory with partial credit (F1, precision, recall, F-beta or binary).",
        default_threshold=1.0,
        requires_expected=True,
        shows_trajectory=True,
        reads=frozenset({"tool_calls"}),
    )

    class Params(ParamsBase):
        """See ``docs/criteria/tool_trajectory_match_v2.md``."""

        match_type: TrajectoryMatchType = Field(
            default=TrajectoryMatchType.EXACT,
            description="EXACT, IN_ORDER, ANY_ORDER, SUBSET or SUPERSET (any case; ADK's 0, 1, 2 too).",
        )
        score: Literal["binary", "f1", "precision", "recall", "f_beta"] = Field(
            default="f1", description="What an invocation scores."
        )
        beta: float = Field(default=1.0, allow_inf_nan=False, description="f_beta: recall's weight.")
        alignment: Literal["optimal", "greedy"] = Field(
            default="optimal", description="optimal pairing, or greedy first-fit (as ADK, LangChain)."
        )
        empty: Literal["adk", "strict"] = Field(
            default="adk", description="adk: ADK's vacuous passes; strict: one side empty scores 0."
        )
        ignore_tools: list[str] = Field(default_factory=list, description="Tools left out on both sides.")
        scope: Literal["per_invocation", "conversation"] = Field(
            default="per_invocation", description="Score each invocation, or all turns' calls at once."
        )
        args: ArgsConfig = Field(default_factory=ArgsConfig, description="How arguments are compared.")

        @field_validator("match_type", mode="before")
        @classmethod
        def _read_match_type(cls, value: Any) -> TrajectoryMatchType:
            return parse_match_type(value, TrajectoryMatchType)

        @field_validator("beta")
        @classmethod
        def _positive(cls, value: float) -> float:
            if value <= 0:
                raise ValueError(
                    "beta must be greater than 0: recall weighs beta times as much as precision "
                    "(2 favours recall, 0.5 precision, 1 is F1)"
                )
            return value

        @model_validator(mode="after")
        def _beta_with_f_beta(self) -> ToolTrajectoryMatchV2.Params:
            if "beta" in self.model_fields_set and self.score != "f_beta":
                raise ValueError(f'beta is used by score "f_beta" only (score is {self.score!r}); remove it')
            return self

    params: Params

    def __init__(self, params: Optional[ParamsBase] = None) -> None:
        super().__init__(params)
        self._rules: dict[str, ArgumentRule] = {}
        self._ignored = frozenset(self.params.ignore_tools)

    def evaluate(self, ctx: EvaluationContext) -> Score:
        pairs = ctx.pairs()
        p = self.params
        echo = {"match_type": p.match_type.value, "score": p.score, "scope": p.scope}
        if p.scope == "conversation" and pairs:
            actual = [c for turn, (got, _) in enumerate(pairs) for c in self._calls(got, turn)]
            expected = [c for turn, (_, want) in enumerate(pairs) for c in self._calls(want, turn)]
            outcome = self._match(actual, expected, with_turns=True)
            return Score(value=outcome.score, reason=outcome.reason, details={**echo, **outcome.details})
        scores = []
        for got, want in pairs:
            outcome = self._match(self._calls(got, 0), self._calls(want, 0), with_turns=False)
            scores.append(
                InvocationScore(score=outcome.score, reason=outcome.reason, details=outcome.details)
            )
        return summarise(scores, ctx.threshold, **echo)

    def alignment_of(
        self, actual: Sequence[FunctionCall], expected: Sequence[FunctionCall]
    ) -> Optional[list[dict[str, Any]]]:
        """The trajectory rows (JSON) of one invocation's calls, ``None`` when every call
        matched an identical one (what ``details["alignment"]`` holds)."""
        outcome = self._match(
            [_Call(i, 0, c) for i, c in enumerate(actual) if c.name not in self._ignored],
            [_Call(i, 0, c) for i, c in enumerate(expected) if c.name not in self._ignored],
            with_turns=False,
            explained=False,
        )
        return outcome.details.get("alignment")

    # -- one alignment ------------------------------------------------------------------

    def _calls(self, invocation: Invocation, turn: int) -> list[_Call]:
        return [
            _Call(i, turn, c) for i, c in enumerate(invocation.tool_calls()) if c.name not in self._ignored
        ]

    def _rule(self, tool: str) -> ArgumentRule:
        rule = self._rules.get(tool)
        if rule is None:
            rule = self._rules[tool] = self.params.args.rule_for(tool)
        return rule

    def _similarity(self, actual: FunctionCall, expected: FunctionCall) -> float:
        if actual.name != expected.name:
            return 0.0
        return self._rule(actual.name).compare(actual.args, expected.args)[0]

    def _match(
        self, actual: list[_Call], expected: list[_Call], *, with_turns: bool, explained: bool = True
    ) -> _Outcome:
        """The calls aligned and scored; ``explained``: with the reason (else ``None``)."""
        n, m = len(actual), len(expected)
        need_actual, need_expected = _REQUIRED[self.params.match_type]
        details: dict[str, Any] = {"actual_calls": n, "expected_calls": m}
        if not n or not m:
            vacuous = self.params.empty == "adk" and (
                (m == 0 and not need_actual) or (n == 0 and not need_expected)
            )
            score = 1.0 if n == m or vacuous else 0.0
            pairs: list[Pair] = []
            details.update(matched=0.0, precision=None, recall=None)
        else:
            shape = _SHAPE.get(self.params.match_type, "unordered")
            if shape == "diagonal":  # only call k against call k is ever looked at
                similarity = [[0.0] * m for _ in range(n)]
                for k in range(min(n, m)):
                    similarity[k][k] = self._similarity(actual[k].call, expected[k].call)
            else:
                similarity = [[self._similarity(a.call, e.call) for e in expected] for a in actual]
            pairs = align(
                shape,
                similarity,
                n,
                m,
                greedy=self.params.alignment == "greedy",
                groups=[c.call.name for c in actual] + [c.call.name for c in expected],
            )
            matched = math.fsum(p.similarity for p in pairs)
            precision, recall = min(matched / n, 1.0), min(matched / m, 1.0)
            full = sum(1 for p in pairs if p.similarity == 1.0)
            passed = (not need_actual or full == n) and (not need_expected or full == m)
            score = self._score(precision, recall, passed)
            details.update(matched=matched, precision=precision, recall=recall)
        perfect = len(pairs) == n == m and all(
            p.similarity == 1.0 and actual[p.actual].call.args == expected[p.expected].call.args
            for p in pairs
        )
        if perfect:  # nothing to show: every call paired with an identical one
            return _Outcome(score, None, details)
        rows = self._rows(actual, expected, pairs, with_turns)
        if any(row.op != "match" or row.arg_diffs for row in rows):
            details["alignment"] = [row.to_json() for row in rows]
        reason = _reason(rows, details) if score < 1.0 and explained else None
        return _Outcome(score, reason, details)

    def _score(self, precision: float, recall: float, passed: bool) -> float:
        kind = self.params.score
        if kind == "binary":
            return 1.0 if passed else 0.0
        if kind == "precision":
            return precision
        if kind == "recall":
            return recall
        weight = self.params.beta**2 if kind == "f_beta" else 1.0
        denominator = weight * precision + recall
        return min((1 + weight) * precision * recall / denominator, 1.0) if denominator > 0 else 0.0

    # -- what the details show ----------------------------------------------------------

    def _rows(
        self, actual: Sequence[_Call], expected: Sequence[_Call], pairs: Sequence[Pair], with_turns: bool
    ) -> list[TrajectoryRow]:
        def turns(a: Optional[_Call], e: Optional[_Call]) -> dict[str, Any]:
            if not with_turns:
                return {}
            return {"actual_turn": a.turn if a else None, "expected_turn": e.turn if e else None}

        def missing(j: int) -> TrajectoryRow:
            e = expected[j]
            return TrajectoryRow("missing", e.call.name, e.index, None, e.call.args, None, **turns(None, e))

        def extra(i: int) -> TrajectoryRow:
            a = actual[i]
            return TrajectoryRow("extra", a.call.name, None, a.index, None, a.call.args, **turns(a, None))

        def paired(pair: Pair) -> TrajectoryRow:
            a, e = actual[pair.actual], expected[pair.expected]
            _, diffs = self._rule(a.call.name).compare(a.call.args, e.call.args, explain=True)
            op = "match" if pair.similarity == 1.0 else "args_differ"
            return TrajectoryRow(
                op,
                a.call.name,
                e.index,
                a.index,
                e.call.args,
                a.call.args,
                tuple(ArgDiff(**d) for d in diffs),
                similarity=pair.similarity,
                **turns(a, e),
            )

        def unpaired(free_actual: Sequence[int], free_expected: Sequence[int]) -> list[TrajectoryRow]:
            """Calls left out of the alignment: a missing and an extra call of the same tool
            with other arguments are shown side by side (similarity 0), so that the arguments
            that differ are named; identical calls left out (out of place) stay apart."""
            left = list(free_actual)
            shown = []
            for j in free_expected:
                want = expected[j].call
                i = next(
                    (
                        i
                        for i in left
                        if actual[i].call.name == want.name and actual[i].call.args != want.args
                    ),
                    None,
                )
                if i is None:
                    shown.append(missing(j))
                else:
                    left.remove(i)
                    shown.append(paired(Pair(i, j, 0.0)))
            rows = [extra(i) for i in left] + shown
            return sorted(
                rows, key=lambda r: (r.actual_index is None, r.actual_turn or 0, r.actual_index or 0)
            )

        if _SHAPE.get(self.params.match_type) is None:  # unordered: in expected order, extras last
            used_actual, used_expected = {p.actual for p in pairs}, {p.expected for p in pairs}
            rows = [paired(p) for p in pairs] + unpaired(
                [i for i in range(len(actual)) if i not in used_actual],
                [j for j in range(len(expected)) if j not in used_expected],
            )
            return sorted(rows, key=_expected_order)
        rows: list[TrajectoryRow] = []
        i = j = 0
        for pair in [*pairs, Pair(len(actual), len(expected), 0.0)]:
            rows.extend(unpaired(range(i, pair.actual), range(j, pair.expected)))
            if pair.actual < len(actual):
                rows.append(paired(pair))
            i, j = pair.actual + 1, pair.expected + 1
        return rows


def _expected_order(row: TrajectoryRow) -> tuple[bool, int, int, int, int]:
    return (
        row.expected_index is None,
        row.expected_turn or 0,
        row.expected_index or 0,
        row.actual_turn or 0,
        row.actual_index or 0,
    )


def _reason(rows: Sequence[TrajectoryRow], details: dict[str, Any]) -> str:
    """Precision and recall, then what cost points: the rows that are not perfect matches,
    written as the report writes them (``agenteval.plugins.row_text``)."""
    if details.get("precision") is not None:
        head = f"precision {details['precision']:.3g}, recall {details['recall']:.3g}"
    else:
        head = f"{details['actual_calls']} calls made, {details['expected_calls']} expected"
    costly = [r for r in rows if r.op != "match"]
    listed = [row_text(r) for r in costly[:_MAX_LISTED]]
    if len(costly) > _MAX_LISTED:
        listed.append(f"... {len(costly) - _MAX_LISTED} more")
    return "; ".join([head, *listed])
