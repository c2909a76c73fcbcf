"""Generated run folders for the viewer's tests and benchmark, written through the engine's
own ``RunWriter`` and ``CaseRecord`` (fixed seeds, so every run is the same run).

* ``tiny_run``: every status and reason code, multi-turn cases, rubrics × judge samples,
  CJK and RTL text, a 50 KB reply, XSS payloads in agent output, case ids and judge
  reasoning, a planned case the run never reached (interrupted);
* ``repeated_run``: three runs per case (per-run results, tri-state verdicts);
* ``synthetic_run(n)``: n cases of plausible shape (1k for tests, 100k for the slow ones
  and the benchmark).

Loaded by path as ``agenteval_viewer_test_fixtures`` (``conftest.py``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from agenteval import (
    AgentRunRecord,
    CriterionResult,
    ErrorInfo,
    InvocationResult,
    JudgeActivity,
    PluginInfo,
    RunSummary,
    Status,
)
from agenteval.models import Rubric, RubricContent
from agenteval.runs import (
    CaseRecord,
    CriterionEntry,
    EvalSetEntry,
    Manifest,
    RecordedRun,
    RunState,
    RunWriter,
    SummaryDocument,
)
from agenteval.testing import make_invocation

XSS_IMG = "<img src=x onerror=window.__pwned=1>"
XSS_SCRIPT = "</script><script>window.__pwned=1</script>"
XSS_COMMENT = "<!-- </script> -->"
CJK = "東京のホテルを予約してください。朝食付きでお願いします。"
RTL = "أريد حجز فندق في القاهرة لليلتين — שלום עולם"
BIG_REPLY_CHARS = 50_000

BUILTIN = PluginInfo(distribution="agenteval-builtin", version="0.4.0", entry_point="agenteval_builtin:x")
JUDGES = PluginInfo(
    distribution="agenteval-llm-judges", version="0.3.0", entry_point="agenteval_llm_judges:x"
)
JUDGE_MODEL = "gemini-2.5-flash"

RUBRICS = [
    {"rubric_id": "cites_price", "rubric_content": {"text_property": "The reply states the total price."}},
    {"rubric_id": "polite", "rubric_content": {"text_property": "The reply is polite."}},
    {"rubric_id": "no_invention", "rubric_content": {"text_property": "Nothing is invented."}},
]
RUBRIC_IDS = [r["rubric_id"] for r in RUBRICS]

TRAJ, RESP, RUBRIC, MATCH, COUNT = (
    "tool_trajectory_avg_score",
    "response_match_score",
    "rubric_based_final_response_quality_v1",
    "final_response_match_v2",
    "tool_call_count_v1",
)


def criteria_entries() -> list[CriterionEntry]:
    def entry(name: str, plugin: PluginInfo, threshold: Optional[float], **extra: Any) -> CriterionEntry:
        return CriterionEntry(
            name=name,
            distribution=plugin.distribution,
            version=plugin.version,
            entry_point=plugin.entry_point,
            threshold=threshold,
            **extra,
        )

    return [
        entry(TRAJ, BUILTIN, 1.0, params={"match_type": "IN_ORDER"}),
        entry(RESP, BUILTIN, 0.6),
        entry(
            RUBRIC, JUDGES, 0.8, params={"rubrics": RUBRICS}, requires_judge=True, judge_models=[JUDGE_MODEL]
        ),
        entry(MATCH, JUDGES, 0.5, requires_judge=True, judge_models=[JUDGE_MODEL]),
        entry(COUNT, BUILTIN, None, informational=True, higher_is_better=False, max_score=None),
    ]


# -- one case ------------------------------------------------------------------------------


@dataclass
class Turn:
    user: str
    expected: Optional[str]
    actual: Optional[str]
    expected_calls: Sequence[tuple[str, dict]] = ()
    actual_calls: Sequence[tuple[str, dict]] = ()


@dataclass
class Case:
    """A case and how each criterion came out (``outcomes``: name -> (status, score,
    reason, reason_code)); judge samples and rubric verdicts are made from them."""

    case_id: str
    turns: list[Turn]
    outcomes: dict[str, tuple[Status, Optional[float], Optional[str], Optional[str]]]
    reasoning: str = "The reply answers the question."
    rubric_fails: Sequence[str] = ()
    agent_error: Optional[tuple[str, str]] = None  # (reason code, message)
    output: str = ""
    errored: Optional[str] = None  # a criterion that raised
    scenario: bool = False
    samples: int = 3


def _per_invocation(
    case: Case, name: str, status: Status, score: Optional[float], code: Optional[str]
) -> list:
    items = []
    for index, _turn in enumerate(case.turns):
        details: dict[str, Any] = {}
        if name == RUBRIC and status in (Status.PASSED, Status.FAILED):
            samples = []
            for k in range(case.samples):
                verdicts = {
                    rid: "no" if rid in case.rubric_fails and (k < 2 or len(case.rubric_fails) > 1) else "yes"
                    for rid in RUBRIC_IDS
                }
                samples.append(
                    {"score": sum(v == "yes" for v in verdicts.values()) / 3, "verdicts": verdicts}
                )
            details["samples"] = samples
            details["rubrics"] = [
                {
                    "rubric_id": rid,
                    "verdict": "no" if rid in case.rubric_fails else "yes",
                    "score": 0.0 if rid in case.rubric_fails else 1.0,
                    "rationale": f"{rid}: {case.reasoning}",
                    "votes": {"yes": 1, "no": 2} if rid in case.rubric_fails else {"yes": 3},
                }
                for rid in RUBRIC_IDS
            ]
        if name == MATCH and status in (Status.PASSED, Status.FAILED):
            valid = status is Status.PASSED
            details["samples"] = [
                {"verdict": "valid" if valid else "invalid", "reasoning": f"sample {k + 1}: {case.reasoning}"}
                for k in range(case.samples)
            ]
        items.append(
            InvocationResult(
                index=index,
                invocation_id=f"inv-{index}",
                score=score,
                status=status,
                reason=None if status is Status.PASSED else f"turn {index + 1}: {status.value.lower()}",
                reason_code=code,
                details=details,
            )
        )
    return items


def _results(case: Case, entries: Sequence[CriterionEntry]) -> list[CriterionResult]:
    results = []
    for entry in entries:
        status, score, reason, code = case.outcomes.get(
            entry.name,
            (Status.INFORMATIONAL, float(len(case.turns)), None, None)
            if entry.informational
            else (Status.PASSED, 1.0, None, None),
        )
        plugin = PluginInfo(
            distribution=entry.distribution, version=entry.version, entry_point=entry.entry_point
        )
        error = None
        if status is Status.ERRORED:
            error = ErrorInfo(
                type="JudgeError", message=reason or "the judge failed", traceback="Traceback ..."
            )
        judge = None
        if entry.requires_judge and status in (Status.PASSED, Status.FAILED):
            judge = JudgeActivity(calls=case.samples, cache_hits=1, input_tokens=900, output_tokens=120)
        results.append(
            CriterionResult(
                criterion=entry.name,
                threshold=entry.threshold,
                score=score,
                status=status,
                reason=reason,
                reason_code=code,
                per_invocation=_per_invocation(case, entry.name, status, score, code)
                if status is not Status.NOT_EVALUATED or code != "agent_timeout"
                else [],
                plugin=plugin,
                error=error,
                judge=judge,
            )
        )
    return results


def _record(run_id: str, eval_set: EvalSetEntry, case: Case, run_index: int, origin: str) -> CaseRecord:
    entries = eval_set.criteria
    results = _results(case, entries)
    order = [Status.FAILED, Status.ERRORED, Status.NOT_EVALUATED, Status.PASSED, Status.INFORMATIONAL]
    gating = [r for r in results if r.status is not Status.INFORMATIONAL] or results
    status = min((r.status for r in gating), key=order.index)
    problem = next((r for r in gating if r.status is status and status is not Status.PASSED), None)
    expected = [
        make_invocation(t.user, t.expected, list(t.expected_calls), invocation_id=f"e-{i}")
        for i, t in enumerate(case.turns)
    ]
    if case.case_id == "multi_turn":
        rubric = Rubric(
            rubric_id="per_turn", rubric_content=RubricContent(text_property="Answers this turn.")
        )
        expected[0] = expected[0].model_copy(update={"rubrics": [rubric]})
    if case.agent_error is not None:
        code, message = case.agent_error
        actual = AgentRunRecord(
            run=run_index,
            error_code=code,
            error=ErrorInfo(type="TimeoutError", message=message, traceback=""),
            output=case.output,
        )
    else:
        actual = AgentRunRecord(
            run=run_index,
            invocations=[
                make_invocation(t.user, t.actual, list(t.actual_calls), invocation_id=f"a-{i}")
                for i, t in enumerate(case.turns)
            ],
            output=case.output,
        )
    return CaseRecord(
        run_id=run_id,
        eval_set_index=eval_set.index,
        eval_set_id=eval_set.eval_set_id,
        eval_set_file=eval_set.path,
        case_id=case.case_id,
        run_index=run_index,
        status=status,
        reason=problem.reason if problem else None,
        reason_code=problem.reason_code if problem else None,
        duration_s=0.01,
        scores={r.criterion: r.score for r in results},
        statuses={r.criterion: r.status for r in results},
        criteria=results,
        expected=None if case.scenario else expected,
        actual=actual,
        origin=origin,
    )


# -- whole runs ----------------------------------------------------------------------------


@dataclass
class EvalSetSpec:
    eval_set_id: str
    path: str
    cases: list[Case]
    unrecorded: list[str] = field(default_factory=list)  # planned, never reached


def write_run(
    runs_dir: Path,
    sets: Sequence[EvalSetSpec],
    *,
    run_id: str,
    num_runs: int = 1,
    state: RunState = RunState.COMPLETE,
    summary: bool = True,
    origin: str = "agent",
) -> RecordedRun:
    """A run folder for ``sets``, written by the engine's ``RunWriter``; ``summary.json``
    re-rendered from the records by the engine (``RecordedRun.result``)."""
    entries = criteria_entries()
    manifest = Manifest(
        run_id=run_id,
        state=RunState.RUNNING,
        started_at="2026-11-20T10:00:00+00:00",
        engine_version="0.4.0",
        distributions={
            "agenteval-engine": "0.4.0",
            "agenteval-builtin": "0.4.0",
            "agenteval-llm-judges": "0.3.0",
        },
        argv=[
            "agenteval",
            "run",
            *(s.path for s in sets),
            "--agent",
            "shop_agent.py:respond",
            "--report",
            "html",
        ],
        cwd="/work/project",
        eval_sets=[
            EvalSetEntry(
                index=i,
                eval_set_id=s.eval_set_id,
                path=s.path,
                sha256="0" * 64,
                case_ids=[c.case_id for c in s.cases] + list(s.unrecorded),
                criteria=entries,
            )
            for i, s in enumerate(sets)
        ],
        agent={"target": "shop_agent.py:respond", "adapter": "python"},
        num_runs=num_runs,
    )
    writer = RunWriter.create(runs_dir, manifest)
    try:
        for spec, entry in zip(sets, manifest.eval_sets, strict=True):
            for case in spec.cases:
                for run_index in range(1, num_runs + 1):
                    writer.append(_record(run_id, entry, _vary(case, run_index), run_index, origin))
        writer.manifest = manifest.model_copy(
            update={"state": state, "finished_at": "2026-11-20T10:03:25+00:00"}
        )
        writer.write_manifest()
        if summary:
            run = RecordedRun.open(writer.folder)
            result = run.result().summary
            judge = JudgeActivity(calls=42, cache_hits=7, retries=1, input_tokens=12_345, output_tokens=2_345)
            written = RunSummary.model_validate({**result.model_dump(), "judge": judge.model_dump()})
            writer.write_summary(
                SummaryDocument(
                    run_id=run_id,
                    state=state,
                    summary=written,
                    cases_recorded=sum(len(s.cases) for s in sets),
                    cases_planned=sum(len(s.cases) + len(s.unrecorded) for s in sets),
                )
            )
    finally:
        writer.close()
    return RecordedRun.open(writer.folder)


def _vary(case: Case, run_index: int) -> Case:
    """Run 2 and later of a repeated run: a flaky case changes its response score."""
    if run_index == 1 or not case.case_id.startswith("flaky"):
        return case
    outcomes = dict(case.outcomes)
    outcomes[RESP] = (
        (Status.PASSED, 0.9, None, None) if run_index == 2 else (Status.FAILED, 0.3, "low overlap", None)
    )
    return Case(**{**case.__dict__, "outcomes": outcomes})


def _fail(score: float, reason: str, code: Optional[str] = None) -> tuple:
    return (Status.FAILED, score, reason, code)


def tiny_cases() -> list[EvalSetSpec]:
    P = Status.PASSED
    NE = Status.NOT_EVALUATED
    shop = [
        Case(
            "weather_paris",
            [
                Turn(
                    "What is the weather in Paris?",
                    "Sunny, 21 °C.",
                    "Sunny, 21 °C.",
                    [("get_weather", {"city": "Paris"})],
                    [("get_weather", {"city": "Paris"})],
                )
            ],
            {},
        ),
        Case(
            "wrong_tools",
            [
                Turn(
                    "Book a flight to Rome and pay",
                    "Booked flight AZ 101 for 240 EUR.",
                    "I booked a train instead.",
                    [
                        ("search_flights", {"to": "Rome", "date": "2026-12-01"}),
                        ("book", {"id": "AZ101"}),
                        ("pay", {"amount": 240}),
                    ],
                    [
                        ("search_flights", {"to": "Roma", "date": "2026-12-01"}),
                        ("search_trains", {"to": "Rome"}),
                        ("pay", {"amount": 90}),
                    ],
                )
            ],
            {
                TRAJ: _fail(0.0, "trajectory differs at call 1: search_flights args"),
                RESP: _fail(0.22, "ROUGE-1 F 0.222 below 0.6"),
                MATCH: _fail(0.0, "the judge found the reply does not match"),
            },
            reasoning="The agent booked a train, not the flight that was asked for.",
        ),
        Case(
            "multi_turn",
            [
                Turn(
                    "Find me a hotel in Tokyo",
                    "Hotel Sakura, 120 EUR.",
                    "Hotel Sakura, 120 EUR.",
                    [("find_hotel", {"city": "Tokyo"})],
                    [("find_hotel", {"city": "Tokyo"})],
                ),
                Turn(
                    "Book it for two nights",
                    "Booked two nights.",
                    "Booked one night.",
                    [("book_hotel", {"nights": 2})],
                    [("book_hotel", {"nights": 1})],
                ),
                Turn("Thanks!", "You're welcome.", "You're welcome.", [], []),
            ],
            {
                TRAJ: _fail(0.667, "turn 2: book_hotel args differ"),
                RUBRIC: _fail(0.67, "1 of 3 rubrics not met: 'cites_price'"),
            },
            rubric_fails=["cites_price"],
        ),
        Case(
            "rubric_failure",
            [Turn("What does the room cost?", "It costs 120 EUR a night.", "It is affordable.", [], [])],
            {RUBRIC: _fail(0.33, "2 of 3 rubrics not met"), RESP: _fail(0.4, "ROUGE-1 F 0.400 below 0.6")},
            rubric_fails=["cites_price", "no_invention"],
            reasoning=f"The reply gives no price. {XSS_SCRIPT} {XSS_IMG}",
        ),
        Case(
            "judge_broke",
            [Turn("Say hello", "Hello!", "Hello!", [], [])],
            {MATCH: (Status.ERRORED, None, "the judge's answer could not be parsed", "judge_unparseable")},
        ),
        Case(
            "agent_timeout",
            [Turn("Plan a trip", "A plan.", None, [], [])],
            {
                name: (NE, None, "the agent timed out after 30 s", "agent_timeout")
                for name in (TRAJ, RESP, RUBRIC, MATCH, COUNT)
            },
            agent_error=("agent_timeout", "the agent did not answer within 30 s"),
            output="connecting to booking API...\nretrying (1/3)\n",
        ),
        Case(
            "scenario_no_reference",
            [
                Turn(
                    "Book a table for four",
                    None,
                    "Done: table for four at 8 pm.",
                    [],
                    [("book_table", {"people": 4})],
                )
            ],
            {
                TRAJ: (
                    NE,
                    None,
                    "a conversation scenario has no expected tool calls",
                    "no_expected_invocations",
                ),
                RESP: (
                    NE,
                    None,
                    "a conversation scenario has no expected response",
                    "no_expected_invocations",
                ),
            },
            scenario=True,
        ),
        Case(
            "cjk_hotel",
            [
                Turn(
                    CJK,
                    "ホテル桜を予約しました。",
                    "ホテル桜を予約しました。",
                    [("book_hotel", {"city": "東京"})],
                    [("book_hotel", {"city": "東京"})],
                )
            ],
            {},
            reasoning="回答は正しいです。",
        ),
        Case(
            "rtl_cairo",
            [
                Turn(
                    RTL,
                    "تم الحجز.",
                    "لم يتم الحجز.",
                    [("book_hotel", {"city": "القاهرة"})],
                    [("book_hotel", {"city": "القاهرة"})],
                )
            ],
            {RESP: _fail(0.5, "ROUGE-1 F 0.500 below 0.6")},
            reasoning="הסוכן לא הזמין — الرد خاطئ",
        ),
        Case(
            "big_reply",
            [
                Turn(
                    "Tell me everything",
                    "Short answer.",
                    ("All the details. " * (BIG_REPLY_CHARS // 17 + 1))[:BIG_REPLY_CHARS],
                    [],
                    [],
                )
            ],
            {RESP: _fail(0.01, "ROUGE-1 F 0.010 below 0.6")},
        ),
        Case(
            XSS_IMG,
            [
                Turn(
                    f"Show {XSS_IMG}",
                    "Nothing to show.",
                    f"{XSS_SCRIPT}{XSS_IMG}{XSS_COMMENT}",
                    [("render", {"html": XSS_IMG})],
                    [("render", {"html": XSS_SCRIPT})],
                )
            ],
            {TRAJ: _fail(0.0, f"args differ: {XSS_IMG}"), RESP: _fail(0.0, f"no overlap with {XSS_SCRIPT}")},
            reasoning=f"Injected: {XSS_IMG} {XSS_SCRIPT} {XSS_COMMENT}",
            output=f"stdout {XSS_SCRIPT}\u2028line separator\u2029",
        ),
        Case(
            "judge_skipped_low_votes",
            [Turn("Is it open?", "Yes, until 10 pm.", "Yes.", [], [])],
            {
                MATCH: (NE, None, "every judge sample failed", "judge_unavailable"),
                RUBRIC: (P, 1.0, None, None),
            },
        ),
    ]
    other = [
        Case(
            "second_set_pass",
            [
                Turn(
                    "Cancel my booking",
                    "Cancelled.",
                    "Cancelled.",
                    [("cancel", {"id": 7})],
                    [("cancel", {"id": 7})],
                )
            ],
            {},
        )
    ]
    return [
        EvalSetSpec("shop", "evals/shop.evalset.json", shop, unrecorded=["never_reached"]),
        EvalSetSpec("多语言 set", "evals/multi lingual.evalset.json", other),
    ]


def tiny_run(runs_dir: Path) -> RecordedRun:
    """The tiny fixture run (interrupted: one planned case has no record)."""
    return write_run(
        runs_dir, tiny_cases(), run_id="20261120T100000000000Z-tiny01", state=RunState.INTERRUPTED
    )


def mark_running(run: RecordedRun) -> None:
    """Make ``run``'s manifest say ``running`` (with no end), as while its writer works."""
    path = run.folder / "manifest.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["state"], doc["finished_at"] = "running", None
    path.write_text(json.dumps(doc), encoding="utf-8")


def repeated_run(runs_dir: Path) -> RecordedRun:
    """Three runs per case: one flaky case (PASS, PASS, FAIL on the response score)."""
    cases = [
        Case("flaky_case", [Turn("Hi", "Hello there", "Hello there", [], [])], {}),
        Case("steady_case", [Turn("Bye", "Goodbye", "Goodbye", [], [])], {}),
    ]
    return write_run(
        runs_dir,
        [EvalSetSpec("rep", "evals/rep.evalset.json", cases)],
        run_id="20261121T100000000000Z-rep001",
        num_runs=3,
    )


_WORDS = "paris rome tokyo hotel flight train booking price breakfast museum weather refund".split()


def synthetic_cases(n: int, seed: int = 11) -> list[EvalSetSpec]:
    """``n`` cases: about 70% pass, 18% fail, 6% errored, 6% not evaluated."""
    rng = random.Random(seed)
    sets = [
        EvalSetSpec("alpha", "evals/alpha.evalset.json", []),
        EvalSetSpec("beta", "evals/beta.evalset.json", []),
    ]
    for i in range(n):
        words = " ".join(rng.choice(_WORDS) for _ in range(8))
        calls = [("search", {"q": rng.choice(_WORDS)})]
        roll = rng.random()
        outcomes: dict[str, tuple] = {}
        fails: list[str] = []
        if roll < 0.70:
            outcomes[RESP] = (Status.PASSED, round(rng.uniform(0.6, 1.0), 3), None, None)
        elif roll < 0.88:
            outcomes[RESP] = _fail(round(rng.uniform(0.0, 0.59), 3), "ROUGE-1 below 0.6")
            if rng.random() < 0.5:
                outcomes[RUBRIC] = _fail(0.67, "1 of 3 rubrics not met")
                fails = [rng.choice(RUBRIC_IDS)]
            if rng.random() < 0.3:
                outcomes[TRAJ] = _fail(0.0, "tool calls differ")
        elif roll < 0.94:
            outcomes[MATCH] = (Status.ERRORED, None, "judge timed out", "judge_timeout")
        else:
            outcomes[MATCH] = (Status.NOT_EVALUATED, None, "no usable judge sample", "judge_unavailable")
        case = Case(
            f"case_{i:06d}",
            [Turn(f"question {i}: {words}", f"answer {words}", f"answer {words[::-1]}", calls, calls)],
            outcomes,
            rubric_fails=fails,
            samples=1,
        )
        sets[i % 2].cases.append(case)
    return sets


def synthetic_run(runs_dir: Path, n: int, *, summary: bool = True) -> RecordedRun:
    return write_run(
        runs_dir, synthetic_cases(n), run_id=f"20261122T100000000000Z-syn{n:07d}", summary=summary
    )
