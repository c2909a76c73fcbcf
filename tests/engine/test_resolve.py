"""``_resolve.py``: requested criteria -> ready evaluators, checked before any work."""

from __future__ import annotations

from typing import Literal

import agenteval
import pytest
from agenteval import Criterion, Evaluator, EvaluatorInfo, Score
from agenteval._resolve import resolve_criteria
from agenteval.errors import ConfigError, PluginLoadError
from agenteval.testing import registry_for

WHERE = "/cfg/test_config.json"


class Trajectory(Evaluator):
    info = EvaluatorInfo(description="Tool calls match.", requires_expected=True)

    class Params(agenteval.Params):
        match_type: Literal["EXACT", "IN_ORDER", "ANY_ORDER"] = "EXACT"
        ignore_args: bool = False

    def evaluate(self, ctx):
        return Score(value=1.0)


class WithDefault(Evaluator):
    info = EvaluatorInfo(description="Has a default threshold.", default_threshold=0.6)

    def evaluate(self, ctx):
        return Score(value=1.0)


class Count(Evaluator):
    info = EvaluatorInfo(description="Counts.", informational=True, min_score=0, max_score=None)

    def evaluate(self, ctx):
        return Score(value=3.0)


class NotReady(Evaluator):
    info = EvaluatorInfo(description="Needs credentials.", default_threshold=0.5)
    error: Exception = RuntimeError("GOOGLE_CLOUD_PROJECT is not set")

    def check_ready(self):
        raise type(self).error

    def evaluate(self, ctx):
        return Score(value=1.0)


REGISTRY = registry_for(trajectory=Trajectory, with_default=WithDefault, count=Count, not_ready=NotReady)


def resolve(*criteria: Criterion, warnings: list[str] | None = None):
    return resolve_criteria([(c, WHERE) for c in criteria], REGISTRY, [] if warnings is None else warnings)


def config_error(*criteria: Criterion) -> str:
    with pytest.raises(ConfigError) as info:
        resolve(*criteria)
    assert str(info.value).startswith(f"{WHERE}: ")
    return str(info.value)


def test_params_are_validated_into_the_evaluators_model():
    [resolved] = resolve(Criterion(name="trajectory", threshold=0.8, params={"match_type": "IN_ORDER"}))
    assert resolved.threshold == 0.8
    assert resolved.evaluator.params == Trajectory.Params(match_type="IN_ORDER")
    assert resolved.plugin.distribution == "<in-memory>"
    assert resolved.info is Trajectory.info


def test_camel_case_param_keys_are_accepted():
    [resolved] = resolve(
        Criterion(name="trajectory", threshold=1, params={"matchType": "ANY_ORDER", "ignoreArgs": True})
    )
    assert resolved.evaluator.params.match_type == "ANY_ORDER"
    assert resolved.evaluator.params.ignore_args is True


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("match_typ", "match_type"),
        ("ignore_arg", "ignore_args"),
        ("matchTyp", "match_type"),
        ("treshold", "threshold"),
    ],
)
def test_a_typo_is_an_error_with_a_suggestion(typo, meant):
    message = config_error(Criterion(name="trajectory", threshold=1, params={typo: "IN_ORDER"}))
    assert f"criteria.trajectory.{typo}: unknown parameter {typo!r}; did you mean {meant!r}?" in message
    assert "Valid parameters: ignore_args, match_type, threshold" in message


def test_an_unrelated_unknown_key_is_a_warning():
    warnings: list[str] = []
    [resolved] = resolve(
        Criterion(
            name="trajectory", threshold=1, params={"description": "Minimum score", "match_type": "IN_ORDER"}
        ),
        warnings=warnings,
    )
    assert resolved.evaluator.params.match_type == "IN_ORDER"
    assert warnings == [
        f"{WHERE}: criteria.trajectory.description: trajectory has no parameter "
        "'description'; ignored (valid: ignore_args, match_type, threshold)"
    ]


@pytest.mark.parametrize(
    "key", ["include_intermediate_responses_in_final", "includeIntermediateResponsesInFinal"]
)
def test_adks_base_criterion_key_has_no_effect_and_warns(key):
    warnings: list[str] = []
    resolve(Criterion(name="trajectory", threshold=1, params={key: True}), warnings=warnings)
    assert warnings == [f"{WHERE}: criteria.trajectory.{key} has no effect on trajectory; ignored"]


def test_bad_param_value_is_a_config_error_with_the_path():
    message = config_error(Criterion(name="trajectory", threshold=1, params={"match_type": "SOMETIMES"}))
    assert "invalid parameters for trajectory:" in message
    assert "criteria.trajectory.match_type:" in message
    assert '(got "SOMETIMES")' in message


def test_informational_criterion_with_a_threshold():
    message = config_error(Criterion(name="count", threshold=1.0))
    assert "criteria.count: count is informational" in message
    assert "takes no threshold" in message


def test_informational_criterion_without_a_threshold():
    [resolved] = resolve(Criterion(name="count"))
    assert resolved.threshold is None


def test_missing_threshold_without_a_default():
    message = config_error(Criterion(name="trajectory", params={"match_type": "IN_ORDER"}))
    assert 'criteria.trajectory: a threshold is required, e.g. {"threshold": 0.8}' in message


def test_missing_threshold_uses_the_evaluators_default():
    [resolved] = resolve(Criterion(name="with_default"))
    assert resolved.threshold == 0.6
    [resolved] = resolve(Criterion(name="with_default", threshold=0.0))
    assert resolved.threshold == 0.0


def test_check_ready_failure_is_a_config_error(monkeypatch):
    message = config_error(Criterion(name="not_ready"))
    assert "not_ready is not ready to run: RuntimeError: GOOGLE_CLOUD_PROJECT is not set" in message


def test_check_ready_agenteval_error_passes_through(monkeypatch):
    monkeypatch.setattr(NotReady, "error", ConfigError("set a project", source="env"))
    with pytest.raises(ConfigError) as info:
        resolve(Criterion(name="not_ready"))
    assert str(info.value) == "env: set a project"


def test_equal_params_share_one_evaluator_and_order_is_kept():
    resolved = resolve(
        Criterion(name="trajectory", threshold=1, params={"match_type": "IN_ORDER"}),
        Criterion(name="with_default"),
        Criterion(name="trajectory", threshold=0.5, params={"matchType": "IN_ORDER"}),
        Criterion(name="trajectory", threshold=0.5, params={"match_type": "ANY_ORDER"}),
    )
    assert [r.name for r in resolved] == ["trajectory", "with_default", "trajectory", "trajectory"]
    assert resolved[0].evaluator is resolved[2].evaluator
    assert resolved[0].evaluator is not resolved[3].evaluator
    assert [r.threshold for r in resolved] == [1, 0.6, 0.5, 0.5]


def test_a_shared_cache_spans_calls():
    cache: dict = {}
    first = resolve_criteria([(Criterion(name="with_default"), WHERE)], REGISTRY, [], cache)
    second = resolve_criteria([(Criterion(name="with_default"), WHERE)], REGISTRY, [], cache)
    assert first[0].evaluator is second[0].evaluator


def test_unknown_criteria_are_one_load_error():
    with pytest.raises(PluginLoadError) as info:
        resolve(Criterion(name="trajectori"), Criterion(name="nope"), Criterion(name="with_default"))
    message = str(info.value)
    assert message.startswith(f"{WHERE}: cannot load the requested criteria:")
    assert "'trajectori' is not an installed criterion; did you mean 'trajectory'?" in message
    assert (
        "'nope' is not an installed criterion; installed criteria: count, not_ready, trajectory, with_default"
        in message
    )


# -- thresholds against the criterion's declared range and direction --------------------------


class LowerIsBetter(Evaluator):
    info = EvaluatorInfo(description="Errors per turn.", min_score=0, max_score=None, higher_is_better=False)

    def evaluate(self, ctx):
        return Score(value=0.0)


RANGED = registry_for(trajectory=Trajectory, errors=LowerIsBetter)


@pytest.mark.parametrize(
    ("name", "threshold", "outcome"),
    [
        ("trajectory", -1.0, "[0, 1] (higher is better), so every score would pass"),
        ("trajectory", 1.5, "[0, 1] (higher is better), so no score could pass"),
        ("trajectory", 1e300, "no score could pass"),
        ("errors", -0.5, "[0, inf] (lower is better), so no score could pass"),
    ],
)
def test_a_threshold_outside_the_score_range_is_an_error(name, threshold, outcome):
    with pytest.raises(ConfigError) as info:
        resolve_criteria([(Criterion(name=name, threshold=threshold), WHERE)], RANGED, [])
    message = str(info.value)
    assert message.startswith(f"{WHERE}: criteria.{name}: threshold {threshold:g} is outside the score range")
    assert outcome in message and "give a threshold within the range" in message


@pytest.mark.parametrize(("name", "threshold"), [("trajectory", 1.0), ("trajectory", 0.5), ("errors", 1e6)])
def test_thresholds_within_the_range_resolve_quietly(name, threshold):
    warnings: list[str] = []
    [resolved] = resolve_criteria([(Criterion(name=name, threshold=threshold), WHERE)], RANGED, warnings)
    assert resolved.threshold == threshold and warnings == []


def test_a_threshold_every_score_passes_warns():
    warnings: list[str] = []
    resolve_criteria([(Criterion(name="trajectory", threshold=0.0), WHERE)], RANGED, warnings)
    [warning] = warnings
    assert warning.startswith(f"{WHERE}: criteria.trajectory: threshold 0 is the lowest score")
    assert "so every score passes" in warning


def test_an_unknown_criterion_names_the_configs_it_was_requested_in():
    requests = [(Criterion(name="trajectory"), WHERE), (Criterion(name="nope"), "/other/test_config.json")]
    with pytest.raises(PluginLoadError) as info:
        resolve_criteria(requests, REGISTRY, [])
    assert str(info.value).startswith(f"{WHERE}, /other/test_config.json: ")
    assert "'nope'" in str(info.value)
