"""The real eval files and configs of ``../shared/real-evalsets`` (read in place).

Expectations come from ``SOURCES.md`` (ADK 2.13.0's verdict on each file): every file
ADK accepts through one of its entry points loads with the same case and invocation
counts; the files ADK rejects give one ``DataError`` with a specific message. The whole
module is skipped when the shared folder is absent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple, Optional

import pytest
from agenteval import load_config
from agenteval._loading import eval_set_from_data, read_eval_file
from agenteval.errors import DataError
from agenteval.models import IntermediateData, InvocationEvents, SessionInput

pytestmark = pytest.mark.usefixtures("no_max_file_env")

ADK_PY = "google__adk-python/tests__integration__fixture__"
SAMPLES = "google__adk-samples/"


class Accepted(NamedTuple):
    row: int
    file: str
    format: str
    cases: int
    invocations: int
    events: int = 0  # event-form invocations
    scenarios: int = 0


ACCEPTED = [
    Accepted(1, ADK_PY + "home_automation_agent__simple_test2.test.json", "legacy-flat", 1, 1),
    Accepted(2, ADK_PY + "trip_planner_agent__trip_inquiry.test.json", "legacy-flat", 1, 2),
    Accepted(3, ADK_PY + "hello_world_agent__roll_die.pre-migration-61d4be2d.test.json", "legacy-flat", 1, 3),
    Accepted(4, ADK_PY + "hello_world_agent__roll_die.test.json", "evalset", 1, 3),
    Accepted(
        5, ADK_PY + "conversation_scenario__conversation_scenario.test.json", "evalset", 1, 0, scenarios=1
    ),
    Accepted(6, ADK_PY + "elicitation_agent__elicitation_flow.test.json", "evalset", 1, 2),
    Accepted(
        7,
        "google__adk-python/contributing__samples__security_agent__agents__evalset49e1df.evalset.json",
        "evalset",
        0,
        0,
    ),
    Accepted(
        8,
        SAMPLES + "python__agents__brand-search-optimization__eval__data__eval_data1.evalset.json",
        "legacy-multi",
        1,
        6,
    ),
    Accepted(
        9, SAMPLES + "python__agents__data-science__eval__eval_data__simple.test.json", "legacy-flat", 1, 2
    ),
    Accepted(10, SAMPLES + "python__agents__RAG__eval__data__conversation.test.json", "legacy-flat", 1, 22),
    Accepted(
        11, SAMPLES + "python__agents__academic-research__eval__data__seminal.test.json", "evalset", 1, 1
    ),
    Accepted(
        12, SAMPLES + "python__agents__travel-concierge__eval__data__pretrip.test.json", "evalset", 1, 2
    ),
    Accepted(
        13,
        SAMPLES + "core__python__long-horizon-harness__tests__eval__evalsets__basic.evalset.json",
        "evalset",
        2,
        2,
    ),
    Accepted(
        14,
        SAMPLES + "contrib__python__crypto-payroll-agent__eval__crypto_payroll_eval_set.evalset.json",
        "evalset",
        6,
        11,
    ),
    Accepted(
        15, "yuichi1000__ghostinthearchive/tests__eval__eval_sets__librarian_eval.json", "evalset", 4, 4
    ),
    Accepted(16, "vksundararajan__cross-check/eval__data__phishing.evalset.json", "evalset", 1, 1, events=1),
    Accepted(17, "graceliu__vid2trip/eval__data__trip_planner.evalset.json", "evalset", 1, 4, events=3),
    Accepted(
        18,
        "LiuYuWei__google_adk_evaluation_example/weather_agent__weather_evaluation_zhtw.evalset.json",
        "evalset",
        1,
        1,
        events=1,
    ),
    Accepted(19, "pyljain__adk-evals/agent__greeting.evalset.json", "evalset", 2, 2),
    Accepted(20, "ayushworks__adk-eval-workshop/exercises__02_judge__judge.evalset.json", "evalset", 2, 2),
    Accepted(
        21, "ayushworks__adk-eval-workshop/refund_agent__refund_order.evalset.json", "evalset", 1, 1, events=1
    ),
    Accepted(24, "aliahmedd24__noor/tests__eval__navigation_eval.test.json", "evalset", 7, 8),
]

# Files ADK rejects as eval sets, with fragments the DataError must contain.
REJECTED = {
    22: (
        "trpc-group__trpc-agent-go/examples__evaluation__local__data__math-eval-app__math-basic.evalset.json",
        ["camelCase", "'evalSetId' -> 'eval_set_id'", "'evalCases' -> 'eval_cases'", "Rename"],
    ),
    23: (
        "agentevals-dev__agentevals/examples__langchain_agent__eval_set.json",
        [
            "eval_cases[0].eval_id: required key is missing",
            "'case_id'",
            "eval_cases[0].conversation[0].agent_content: unknown key 'agent_content'",
            "final_response",
        ],
    ),
    25: (
        "allenporter__journal-assistant/tests__eval__aggregation.test.json",
        ["'case_id', 'prompt', 'expected_response', 'tags'", "does not look like an ADK eval file"],
    ),
    26: (
        ADK_PY + "trip_planner_agent__initial.session.json",
        ["eval_set_id: required key is missing", "eval_cases: required key is missing", "'app_name'"],
    ),
}


class Config(NamedTuple):
    row: int
    file: str
    criteria: dict[str, Optional[float]]  # name -> threshold, in file order
    warned_keys: tuple[str, ...] = ()


CONFIGS = [
    Config(27, ADK_PY + "home_automation_agent__test_config.json", {"tool_trajectory_avg_score": 1.0}),
    Config(28, ADK_PY + "trip_planner_agent__test_config.json", {"response_match_score": 0.5}),
    Config(
        29,
        ADK_PY + "hello_world_agent__test_config.json",
        {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5},
    ),
    Config(30, ADK_PY + "conversation_scenario__test_config.json", {"hallucinations_v1": 0.8}),
    Config(
        31,
        SAMPLES + "python__agents__brand-search-optimization__eval__data__test_config.json",
        {"tool_trajectory_avg_score": 0.2, "response_match_score": 0.2},
    ),
    Config(
        32,
        SAMPLES + "python__agents__data-science__eval__eval_data__test_config.json",
        {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.1},
    ),
    Config(
        33,
        SAMPLES + "python__agents__RAG__eval__data__test_config.json",
        {"tool_trajectory_avg_score": 0.09, "response_match_score": 0.4},
    ),
    Config(
        34,
        SAMPLES + "python__agents__travel-concierge__eval__data__test_config.json",
        {"tool_trajectory_avg_score": 0.1, "response_match_score": 0.1},
    ),
    Config(
        35,
        "yuichi1000__ghostinthearchive/tests__eval__test_config.json",
        {"tool_trajectory_avg_score": 0.7, "response_match_score": 0.5},
        ("judge_model", "num_samples", "timeout_seconds", "advanced_metrics"),
    ),
    Config(
        36,
        SAMPLES + "core__python__long-horizon-harness__tests__eval__eval_config.json",
        {"rubric_based_final_response_quality_v1": 0.8},
    ),
    Config(
        37,
        "vksundararajan__cross-check/eval__data__test_config.json",
        {"final_response_match_v2": 0.5, "rubric_based_tool_use_quality_v1": 0.5},
    ),
    Config(
        38,
        "graceliu__vid2trip/eval__data__test_config.json",
        {"tool_trajectory_avg_score": 0.2, "final_response_match_v2": 0.5},
    ),
    Config(
        39,
        "pyljain__adk-evals/agent__local_eval_config.json",
        {
            "tool_trajectory_avg_score": 1.0,
            "final_response_match_v2": 0.7,
            "response_is_concise": 1.0,
            "rubric_based_final_response_quality_v1": 0.7,
        },
    ),
    Config(
        40,
        "ayushworks__adk-eval-workshop/exercises__02_judge__test_config.json",
        {"rubric_based_final_response_quality_v1": 0.7, "hallucinations_v1": 0.8},
        ("_comment",),
    ),
    Config(
        41,
        "LiuYuWei__google_adk_evaluation_example/weather_agent__test_config.json",
        {
            "tool_trajectory_avg_score": 1.0,
            "response_match_score": 0.0,
            "final_response_match_v2": 0.8,
            "rubric_based_final_response_quality_v1": 0.8,
            "hallucinations_v1": 0.8,
        },
    ),
    Config(
        42,
        "aliahmedd24__noor/tests__eval__test_config.json",
        {
            "tool_trajectory_avg_score": 0.8,
            "response_match_score": 0.5,
            "final_response_match_v2": 0.7,
            "rubric_based_final_response_quality_v1": 0.8,
        },
    ),
    Config(
        43, "allenporter__journal-assistant/tests__eval__test_config.json", {"final_response_match_v2": 0.8}
    ),
]


def _id(item) -> str:
    return f"row{item.row}"


@pytest.fixture(scope="module")
def real(real_evalsets_dir: Path) -> Path:
    return real_evalsets_dir


def test_every_real_file_is_covered(real):
    """A file added to the shared folder must get an expectation here."""
    covered = {a.file for a in ACCEPTED} | {f for f, _ in REJECTED.values()} | {c.file for c in CONFIGS}
    on_disk = {p.relative_to(real).as_posix() for p in real.glob("*/*.json")}
    assert on_disk == covered
    assert len(on_disk) == 43


@pytest.mark.parametrize("expected", ACCEPTED, ids=_id)
def test_accepted_files_load_with_adks_counts(real, expected):
    loaded = read_eval_file(real / expected.file)
    cases = loaded.eval_set.eval_cases
    invocations = [inv for case in cases for inv in case.conversation or []]
    assert loaded.format == expected.format
    assert len(cases) == expected.cases
    assert len(invocations) == expected.invocations
    assert sum(isinstance(i.intermediate_data, InvocationEvents) for i in invocations) == expected.events
    assert sum(case.conversation_scenario is not None for case in cases) == expected.scenarios


@pytest.mark.parametrize("expected", ACCEPTED, ids=_id)
def test_accepted_files_round_trip(real, expected):
    original = read_eval_file(real / expected.file).eval_set
    for compact in (True, False):
        again = eval_set_from_data(json.loads(original.to_json(compact=compact))).eval_set
        assert again == original


@pytest.mark.parametrize("expected", [a for a in ACCEPTED if a.format == "evalset"], ids=_id)
def test_eval_set_files_write_back_the_same_data(real, expected):
    """``to_json()`` of a loaded new-schema file is the file's own data (nulls included)."""
    path = real / expected.file
    original = json.loads(path.read_text(encoding="utf-8-sig"))
    assert json.loads(read_eval_file(path).eval_set.to_json()) == original


@pytest.mark.parametrize("row", sorted(REJECTED))
def test_rejected_files_give_a_specific_data_error(real, row):
    file, fragments = REJECTED[row]
    path = real / file
    with pytest.raises(DataError) as info:
        read_eval_file(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    for fragment in fragments:
        assert fragment in message


@pytest.mark.parametrize("expected", CONFIGS, ids=_id)
def test_configs_load(real, expected):
    path = real / expected.file
    config = load_config(path)
    assert {c.name: c.threshold for c in config.criteria} == expected.criteria
    assert [c.name for c in config.criteria] == list(expected.criteria)
    assert len(config.warnings) == len(expected.warned_keys)
    for key, warning in zip(expected.warned_keys, config.warnings, strict=True):
        assert warning.startswith(f"{path}: unknown top-level key {key!r} ignored")


# -- file-specific facts SOURCES.md points out ------------------------------------------


def load(real: Path, row: int):
    return read_eval_file(real / next(a.file for a in ACCEPTED if a.row == row))


def test_row1_legacy_ids_are_deterministic(real):
    es = load(real, 1).eval_set
    stem = "tests__integration__fixture__home_automation_agent__simple_test2"
    assert es.eval_set_id == stem and es.eval_cases[0].eval_id == stem
    assert es.eval_cases[0].conversation[0].invocation_id == f"{stem}-1"
    assert load(real, 1).eval_set == es


def test_row2_with_its_initial_session_file(real):
    session_data = json.loads((real / REJECTED[26][0]).read_text(encoding="utf-8"))
    session = SessionInput(
        app_name=session_data["app_name"], user_id=session_data["user_id"], state=session_data["state"]
    )
    path = real / next(a.file for a in ACCEPTED if a.row == 2)
    loaded = read_eval_file(path, initial_session=session)
    assert loaded.eval_set.eval_cases[0].session_input == session
    calls = [c.name for i in loaded.eval_set.eval_cases[0].conversation for c in i.tool_calls()]
    assert "transfer_to_agent" in calls


def test_row3_null_reference(real):
    tool_turn = [i for i in load(real, 3).eval_set.eval_cases[0].conversation if i.tool_calls()][0]
    assert tool_turn.final_response.parts[0].text is None
    assert tool_turn.final_text() == ""


def test_row5_scenario(real):
    [case] = load(real, 5).eval_set.eval_cases
    assert case.conversation is None and case.session_input is None
    assert case.conversation_scenario.starting_prompt


def test_row6_null_text_and_ids(real):
    first = load(real, 6).eval_set.eval_cases[0].conversation[0]
    assert first.final_response.parts[0].text is None
    assert all(call.id is None for call in first.tool_calls())


def test_row8_multi_case_keeps_adks_behaviour_and_warns_about_initial_state(real):
    loaded = load(real, 8)
    assert loaded.eval_set.eval_cases[0].session_input is None
    assert any("initial_state" in w and "ignored" in w for w in loaded.warnings)


def test_row12_intermediate_responses(real):
    turns = load(real, 12).eval_set.eval_cases[0].conversation
    assert any(author == "pre_trip_agent" for t in turns for author, _ in t.intermediate_texts())


def test_row15_japanese_text(real):
    texts = [i.user_content.text() for c in load(real, 15).eval_set.eval_cases for i in c.conversation]
    assert any(any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in t) for t in texts)


def test_row16_call_without_args(real):
    [invocation] = load(real, 16).eval_set.eval_cases[0].conversation
    [call] = invocation.tool_calls()
    assert call.name == "exit_loop" and call.args is None
    assert len(invocation.tool_responses()) == 1


def test_row17_mixed_forms_in_one_case(real):
    turns = load(real, 17).eval_set.eval_cases[0].conversation
    forms = [type(t.intermediate_data) for t in turns]
    assert forms.count(InvocationEvents) == 3 and forms.count(IntermediateData) == 1
    authors = {
        e.author
        for t in turns
        if isinstance(t.intermediate_data, InvocationEvents)
        for e in t.intermediate_data.invocation_events
    }
    assert {"root_agent", "gather_videos_agent", "build_itinerary_agent"} <= authors


def test_row18_traditional_chinese(real):
    [invocation] = load(real, 18).eval_set.eval_cases[0].conversation
    assert "台北" in invocation.user_content.text()


def test_row21_empty_text_part_with_thought_signature(real):
    [invocation] = load(real, 21).eval_set.eval_cases[0].conversation
    assert len(invocation.final_response.parts) == 2
    assert invocation.final_response.parts[1].thought_signature
    assert invocation.final_text() == invocation.final_response.parts[0].text


def test_row24_duplicate_invocation_ids_across_cases(real):
    ids = [c.conversation[0].invocation_id for c in load(real, 24).eval_set.eval_cases]
    assert ids.count("inv-001") == len(ids)


def test_row35_criterion_params_are_kept_for_resolution(real):
    config = load_config(real / CONFIGS[8].file)
    trajectory = config.get("tool_trajectory_avg_score")
    assert trajectory.params == {
        "match_type": "IN_ORDER",
        "description": "Minimum score for tool usage trajectory matching",
    }
    assert config.get("response_match_score").params["method"] == "ROUGE_1"


def test_row36_camel_case_params_are_kept_as_written(real):
    [criterion] = load_config(real / CONFIGS[9].file).criteria
    assert criterion.params["includeIntermediateResponsesInFinal"] is True
    assert criterion.params["judgeModelOptions"] == {"judgeModel": "gemini-3.7-flash", "numSamples": 1}


def test_row39_custom_metrics_section(real):
    config = load_config(real / CONFIGS[12].file)
    assert config.custom_metrics["response_is_concise"]["code_config"]["name"] == (
        "agent.custom_metrics.response_is_concise"
    )


def test_row30_user_simulator_config_without_type(real):
    config = load_config(real / CONFIGS[3].file)
    assert config.user_simulator_config is not None and "type" not in config.user_simulator_config
