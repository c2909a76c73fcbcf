"""``_api.py``: ``evaluate`` input forms; ``plan_paths`` (what the CLI plans) run by ``EvalRun``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import agenteval
import pytest
from agenteval import (
    Criterion,
    EvalConfig,
    EvalRun,
    Evaluator,
    EvaluatorInfo,
    JudgeService,
    Score,
    Status,
    evaluate,
    plan_paths,
)
from agenteval._run import run_sync
from agenteval.errors import ConfigError, DataError, PluginLoadError
from agenteval.models import EvalSet
from agenteval.testing import make_case, make_invocation, registry_for

pytestmark = pytest.mark.usefixtures("no_max_file_env")


class Matches(Evaluator):
    """1.0 when the actual final text equals the expected one."""

    info = EvaluatorInfo(description="Exact final text.", requires_expected=True)

    class Params(agenteval.Params):
        ignore_case: bool = False

    def evaluate(self, ctx):
        def norm(text: str) -> str:
            return text.lower() if self.params.ignore_case else text

        return Score(
            value=sum(norm(a.final_text()) == norm(e.final_text()) for a, e in ctx.pairs()) / len(ctx.actual)
        )


class Turns(Evaluator):
    info = EvaluatorInfo(description="Number of turns.", informational=True, max_score=None)

    def evaluate(self, ctx):
        return Score(value=float(len(ctx.actual)))


class Always(Evaluator):
    info = EvaluatorInfo(description="Always 1.", default_threshold=0.5)

    def evaluate(self, ctx):
        return Score(value=1.0)


# ADK's default criteria are served by stand-ins so that ``criteria=None`` can run.
REGISTRY = registry_for(
    matches=Matches, turns=Turns, always=Always, tool_trajectory_avg_score=Always, response_match_score=Always
)


def expected_set(eval_set_id: str = "travel", ids=("a", "b", "c")) -> EvalSet:
    return EvalSet(
        eval_set_id=eval_set_id,
        eval_cases=[
            make_case([make_invocation(f"question {i}", f"Answer {i}", invocation_id=f"{i}-1")], eval_id=i)
            for i in ids
        ],
    )


def actual_set(eval_set_id: str = "travel", ids=("a", "b", "c"), wrong=()) -> EvalSet:
    return EvalSet(
        eval_set_id=eval_set_id,
        eval_cases=[
            make_case(
                [make_invocation(f"question {i}", "nope" if i in wrong else f"answer {i}", form="events")],
                eval_id=i,
            )
            for i in ids
        ],
    )


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = data.to_json() if isinstance(data, EvalSet) else json.dumps(data)
    path.write_text(text, encoding="utf-8")
    return path


# -- evaluate(): the forms of its arguments ---------------------------------------------------


@pytest.mark.parametrize(
    "criteria",
    [
        {"matches": {"threshold": 1.0, "ignore_case": True}},
        {"matches": {"threshold": 1, "ignoreCase": True}},
        [Criterion(name="matches", threshold=1.0, params={"ignore_case": True})],
        EvalConfig(criteria=[Criterion(name="matches", threshold=1.0, params={"ignore_case": True})]),
    ],
    ids=["mapping", "camel-mapping", "criterion-list", "config"],
)
def test_criteria_forms(criteria):
    result = evaluate(expected_set(), actual_set(wrong=("b",)), criteria, registry=REGISTRY)
    assert [c.status for c in result.cases()] == [Status.PASSED, Status.FAILED, Status.PASSED]


def test_names_list_uses_default_thresholds():
    result = evaluate(expected_set(), actual_set(), ["always", "turns"], registry=REGISTRY)
    assert [(c.criterion, c.threshold) for c in result.cases()[0].criteria] == [
        ("always", 0.5),
        ("turns", None),
    ]


def test_no_criteria_means_adks_defaults():
    result = evaluate(expected_set(), actual_set(), registry=REGISTRY)
    assert [(c.criterion, c.threshold) for c in result.cases()[0].criteria] == [
        ("tool_trajectory_avg_score", 1.0),
        ("response_match_score", 0.8),
    ]


def test_actual_as_a_mapping_and_as_a_file(tmp_path):
    expected = expected_set()
    mapping = {c.eval_id: c.conversation for c in actual_set().eval_cases}
    by_mapping = evaluate(expected, mapping, {"matches": 0.5}, registry=REGISTRY)
    path = write(tmp_path / "actual.json", actual_set())
    by_file = evaluate(expected, path, {"matches": 0.5}, registry=REGISTRY)
    by_str = evaluate(expected, str(path), {"matches": 0.5}, registry=REGISTRY)
    assert by_mapping.summary == by_file.summary == by_str.summary


def test_eval_sets_as_paths_and_lists(tmp_path, evalset_fixtures):
    first = write(tmp_path / "one.evalset.json", expected_set("one"))
    result = evaluate(
        [first, expected_set("two", ids=("d",))],
        actual_set(ids=("a", "b", "c", "d")),
        {"always": 0.5},
        registry=REGISTRY,
    )
    assert [(s.eval_set_id, s.source, len(s.cases)) for s in result.eval_sets] == [
        ("one", str(first), 3),
        ("two", None, 1),
    ]


def test_missing_actual_case_is_a_data_error():
    with pytest.raises(DataError) as info:
        evaluate(expected_set(), actual_set(ids=("a",)), {"always": 0.5}, registry=REGISTRY)
    assert "no actual invocations for case(s) 'b', 'c'" in str(info.value)


def test_errors_are_raised_before_any_work():
    class Spy(Always):
        calls = 0

        def evaluate(self, ctx):
            type(self).calls += 1
            return super().evaluate(ctx)

    registry = registry_for(spy=Spy)
    with pytest.raises(PluginLoadError):
        evaluate(expected_set(), actual_set(), {"spy": 0.5, "nope": 0.5}, registry=registry)
    with pytest.raises(ConfigError):
        evaluate(expected_set(), actual_set(), {"spy": {"threshold": 0.5, "treshold": 1}}, registry=registry)
    assert Spy.calls == 0


def test_warnings_reach_the_result():
    result = evaluate(
        expected_set(), actual_set(), {"always": {"threshold": 0.5, "description": "x"}}, registry=REGISTRY
    )
    assert result.warnings == [
        "criteria: criteria.always.description: always has no parameter 'description'; "
        "ignored (valid: threshold)"
    ]


def test_evaluate_async_is_awaitable():
    result = asyncio.run(
        agenteval.evaluate_async(expected_set(), actual_set(), {"always": 0.5}, registry=REGISTRY)
    )
    assert result.passed


# -- plan_paths(): files, folders, selections and configs ---------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """flights/flights.evalset.json (a, b, c) with test_config.json (matches 1.0),
    hotels/hotels.test.json (h1, h2) with no config, and actual.json for every case."""
    write(tmp_path / "flights" / "flights.evalset.json", expected_set("flights"))
    write(
        tmp_path / "flights" / "test_config.json",
        {"criteria": {"matches": {"threshold": 1.0, "ignore_case": True}, "turns": {}}, "_comment": "hi"},
    )
    write(tmp_path / "hotels" / "hotels.test.json", expected_set("hotels", ids=("h1", "h2")))
    actual = EvalSet(
        eval_set_id="run",
        eval_cases=[
            *actual_set("flights", wrong=("b",)).eval_cases,
            *actual_set("hotels", ids=("h1", "h2")).eval_cases,
        ],
    )
    write(tmp_path / "actual.json", actual)
    return tmp_path


def plan(project: Path, *paths: str, actual=("actual.json",), **kwargs):
    made = plan_paths(
        [str(project / p) if not p.startswith("/") else p for p in paths],
        [project / a for a in actual],
        registry=REGISTRY,
        judge=JudgeService(),
        **kwargs,
    )
    return list(made.sets), list(made.warnings), made


def run(planned) -> agenteval.RunResult:
    return run_sync(EvalRun(planned).execute())


def test_folder_with_per_folder_configs(project):
    jobs, warnings, made = plan(project, ".")
    assert [(j.eval_set.eval_set_id, [c.eval_id for c in j.cases]) for j in jobs] == [
        ("flights", ["a", "b", "c"]),
        ("hotels", ["h1", "h2"]),
    ]
    flights, hotels = jobs
    assert [(c.name, c.threshold) for c in flights.criteria] == [("matches", 1.0), ("turns", None)]
    assert flights.criteria[0].evaluator.params.ignore_case is True
    assert [(c.name, c.threshold) for c in hotels.criteria] == [
        ("tool_trajectory_avg_score", 1.0),
        ("response_match_score", 0.8),
    ]
    assert len(warnings) == 1 and "'_comment'" in warnings[0]
    assert flights.source == project / "flights" / "flights.evalset.json"
    result = run(made)
    assert [c.status for c in result.cases()] == [
        Status.PASSED,
        Status.FAILED,
        Status.PASSED,
        Status.PASSED,
        Status.PASSED,
    ]


def test_case_selection(project):
    jobs, _, made = plan(project, "flights/flights.evalset.json:c,a")
    assert [c.eval_id for c in jobs[0].cases] == ["a", "c"]  # file order
    assert set(made.recorded) == {(0, "a"), (0, "c")}


def test_unknown_case_id_lists_the_valid_ids(project):
    path = project / "flights" / "flights.evalset.json"
    with pytest.raises(DataError) as info:
        plan(project, f"{path}:a,zz,yy")
    assert str(info.value) == f"{path}: no case with eval_id 'zz', 'yy' in this file; its cases are: a, b, c"


def test_config_option_overrides_the_files_beside(project, tmp_path):
    shared = write(tmp_path / "elsewhere" / "cfg.json", {"criteria": {"always": 0.9}})
    jobs, warnings, _ = plan(project, ".", config_path=shared)
    assert all([(c.name, c.threshold) for c in j.criteria] == [("always", 0.9)] for j in jobs)
    assert warnings == []  # the folder config (with its _comment) was not read


def test_criteria_names_keep_configured_thresholds(project):
    jobs, _, _ = plan(project, "flights", criteria_names=["turns", "matches", "always"])
    assert [(c.name, c.threshold) for c in jobs[0].criteria] == [
        ("turns", None),
        ("matches", 1.0),
        ("always", 0.5),
    ]
    assert jobs[0].criteria[1].evaluator.params.ignore_case is True


def test_criteria_names_without_threshold_or_default(project):
    path = project / "hotels"
    with pytest.raises(ConfigError) as info:
        plan(project, str(path), criteria_names=["matches"])
    assert str(info.value).startswith("--criteria: criteria.matches: a threshold is required")


def test_missing_actual_case(project, tmp_path):
    write(project / "extra.test.json", expected_set("extra", ids=("x",)))
    with pytest.raises(DataError) as info:
        plan(project, "extra.test.json")
    message = str(info.value)
    assert message.startswith(f"{project / 'extra.test.json'}: case 'x' has no actual invocations")
    assert str(project / "actual.json") in message
    assert f"{project / 'extra.test.json'}:<case_id>" in message


def test_a_case_in_several_actual_files_is_several_runs(project):
    write(project / "more_actual.json", actual_set("other", ids=("h1",), wrong=("h1",)))
    shared = write(project / "cfg.json", {"criteria": {"matches": {"threshold": 1.0, "ignore_case": True}}})
    _, _, made = plan(project, "hotels", actual=("actual.json", "more_actual.json"), config_path=shared)
    assert made.num_runs == 2
    assert [turns[0].final_text() for turns in made.recorded[(0, "h1")]] == ["answer h1", "nope"]
    # h2 is only in the first file: the second run has nothing for it.
    assert len(made.recorded[(0, "h2")]) == 1
    result = run(made)
    (h1, h2) = result.cases()
    assert [r.score for r in h1.criteria[0].runs] == [1.0, 0.0]
    assert h2.criteria[0].status is Status.NOT_EVALUATED
    assert h2.criteria[0].runs[1].reason_code == "missing_run"


def test_actual_in_the_same_eval_set_wins(project):
    write(project / "more_actual.json", actual_set("hotels", ids=("h1",), wrong=("h1",)))
    _, _, made = plan(project, "hotels", actual=("actual.json", "more_actual.json"))
    assert [turns[0].final_text() for turns in made.recorded[(0, "h1")]] == ["nope"]


def test_actual_scenario_case_is_a_data_error(project):
    write(
        project / "actual.json", EvalSet(eval_set_id="x", eval_cases=[make_case(eval_id="h1", scenario="Hi")])
    )
    with pytest.raises(DataError) as info:
        plan(project, "hotels/hotels.test.json:h1")
    assert "holds a conversation scenario, not the agent's actual conversation" in str(info.value)


def test_problems_in_several_files_fail_before_any_work(project):
    write(project / "hotels" / "test_config.json", {"criteria": {"nope": 0.5}})
    with pytest.raises(PluginLoadError) as info:
        plan(project, ".")
    assert "'nope' is not an installed criterion" in str(info.value)


def test_bad_config_beside_a_file(project):
    path = write(project / "hotels" / "test_config.json", {"criteria": {"always": "high"}})
    with pytest.raises(ConfigError) as info:
        plan(project, "hotels")
    assert str(info.value).startswith(f"{path}: criteria.always:")


def test_a_custom_metric_that_cannot_be_imported_is_explained(project):
    write(
        project / "hotels" / "test_config.json",
        {
            "criteria": {"concise": 1.0},
            "custom_metrics": {"concise": {"code_config": {"name": "agent.metrics.concise"}}},
        },
    )
    with pytest.raises(ConfigError) as info:
        plan(project, "hotels")
    message = str(info.value)  # agenteval-adk missing, or the module not found
    assert ("custom metric 'concise'" in message or "custom_metrics.concise" in message) and (
        "agent.metrics.concise" in message
    )


def test_same_config_is_read_once_and_evaluators_are_shared(project):
    write(project / "flights" / "more.test.json", expected_set("more", ids=("a",)))
    jobs, warnings, _ = plan(project, "flights")
    assert [j.eval_set.eval_set_id for j in jobs] == ["flights", "more"]
    assert jobs[0].criteria[0].evaluator is jobs[1].criteria[0].evaluator
    assert len(warnings) == 1  # the _comment warning, once


def test_evaluate_rejects_an_actual_scenario_case():
    expected = expected_set(ids=("a",))
    actual = EvalSet(
        eval_set_id="travel",
        eval_cases=[
            {"eval_id": "a", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "p"}}
        ],
    )
    with pytest.raises(DataError, match="hold a conversation scenario"):
        evaluate(expected, actual, ["always"], registry=REGISTRY)


def test_in_memory_eval_set_with_duplicate_ids_is_a_data_error():
    duplicated = expected_set(ids=("a", "a"))
    with pytest.raises(DataError, match="duplicate id 'a'"):
        evaluate(duplicated, {"a": []}, ["always"], registry=REGISTRY)


def test_env_file_beside_an_eval_file_is_read_and_set_variables_win(tmp_path, monkeypatch):
    from agenteval._loading._env import load_env_files

    (tmp_path / ".env").write_text(
        "AGENTEVAL_TEST_A=from-file\nexport AGENTEVAL_TEST_B='quoted value'\n# c\n"
    )
    monkeypatch.delenv("AGENTEVAL_TEST_A", raising=False)
    monkeypatch.setenv("AGENTEVAL_TEST_B", "already set")
    assert load_env_files([tmp_path, tmp_path]) == [tmp_path.resolve() / ".env"]
    import os

    assert os.environ["AGENTEVAL_TEST_A"] == "from-file"
    assert os.environ["AGENTEVAL_TEST_B"] == "already set"
    monkeypatch.delenv("AGENTEVAL_TEST_A")


def test_problems_in_several_eval_files_are_reported_together(project):
    (project / "flights" / "broken.test.json").write_text("{", encoding="utf-8")
    (project / "hotels" / "also.test.json").write_text('{"eval_set_id": 1}', encoding="utf-8")
    with pytest.raises(DataError) as info:
        plan(project, ".")
    message = str(info.value)
    assert message.startswith("2 problems stop this run")
    assert "broken.test.json" in message and "also.test.json" in message
