"""The rubrics that apply to one invocation, merged from their three scopes.

* the criterion's ``rubrics`` (never filtered by type);
* the case's ``rubrics`` and
* the expected invocation's ``rubrics`` (same position as the actual one), both kept only
  when their ``type`` equals the criterion's tag exactly (ADK's type filter).

Rubrics are computed per invocation and travel with that invocation's prompt, so each
invocation is scored against its own rubrics (ADK 2.13 parses every answer against the
*last* invocation's rubrics). A rubric id used twice makes the invocation NOT_EVALUATED
(``duplicate_rubric_id``; ADK raises and aborts); no rubric at all makes it NOT_EVALUATED
(``no_rubrics``), with a reason naming the rubrics the type filter left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Optional

from agenteval.models import Rubric

__all__ = ["RubricProblem", "RubricSet", "merge_rubrics", "rubric_text"]


def rubric_text(rubric: Rubric) -> str:
    """The property a rubric states: ``rubric_content.text_property``, else its
    ``description``; ``""`` when it has neither."""
    text = rubric.rubric_content.text_property if rubric.rubric_content is not None else None
    if text and text.strip():
        return text.strip()
    return (rubric.description or "").strip()


@dataclass(frozen=True)
class RubricProblem:
    """Why an invocation's rubrics cannot be judged: a reason code and a reason."""

    code: str
    reason: str


@dataclass
class RubricSet:
    """The rubrics that apply to one invocation, and what was left out."""

    rubrics: list[Rubric] = field(default_factory=list)
    #: ``(rubric_id, scope, type)`` of the rubrics the type filter left out.
    filtered_out: list[tuple[str, str, Optional[str]]] = field(default_factory=list)
    problem: Optional[RubricProblem] = None

    def ids(self) -> list[str]:
        return [r.rubric_id for r in self.rubrics]


def _describe_type(value: Optional[str]) -> str:
    return "no type" if value is None else f"type {value!r}"


def merge_rubrics(
    tag: str,
    criterion: Sequence[Rubric],
    case: Optional[Sequence[Rubric]],
    invocation: Optional[Sequence[Rubric]],
) -> RubricSet:
    """The rubrics for one invocation under the criterion tagged ``tag``."""
    result = RubricSet()
    scoped: list[tuple[Rubric, str]] = [(r, "criterion") for r in criterion]
    for scope, rubrics in (("case", case), ("expected invocation", invocation)):
        for rubric in rubrics or ():
            if rubric.type == tag:
                scoped.append((rubric, scope))
            else:
                result.filtered_out.append((rubric.rubric_id, scope, rubric.type))
    seen: dict[str, list[str]] = {}
    for rubric, scope in scoped:
        seen.setdefault(rubric.rubric_id, []).append(scope)
    result.rubrics = [r for r, _ in scoped]
    duplicates = {rid: scopes for rid, scopes in seen.items() if len(scopes) > 1}
    if duplicates:
        listed = "; ".join(f"{rid!r} ({', '.join(scopes)})" for rid, scopes in duplicates.items())
        result.problem = RubricProblem(
            "duplicate_rubric_id",
            f"rubric ids must be unique among the rubrics of an invocation; used more than once: {listed}",
        )
        return result
    empty = [r.rubric_id for r in result.rubrics if not rubric_text(r)]
    if empty:
        result.problem = RubricProblem(
            "empty_rubric",
            "rubric(s) without a property to check (rubric_content.text_property is empty): "
            + ", ".join(map(repr, empty)),
        )
        return result
    if not result.rubrics:
        reason = (
            "no rubric applies to this invocation (the criterion has no 'rubrics', and no case or "
            f"expected-invocation rubric has type {tag!r})"
        )
        if result.filtered_out:
            listed = ", ".join(
                f"{rid!r} ({scope}, {_describe_type(kind)})" for rid, scope, kind in result.filtered_out[:5]
            )
            more = f" and {len(result.filtered_out) - 5} more" if len(result.filtered_out) > 5 else ""
            reason = (
                f"no rubric applies to this invocation: case and invocation rubrics are kept only when "
                f"their type is exactly {tag!r} (as in ADK), and these were left out: {listed}{more}. "
                f'Set "type": "{tag}" on them, or list them under the criterion\'s "rubrics"'
            )
        result.problem = RubricProblem("no_rubrics", reason)
    return result
