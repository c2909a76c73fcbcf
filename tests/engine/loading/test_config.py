"""``loading/_config.py``: ``test_config.json`` parsing as ADK 2.13 accepts it.

Parameters are only collected here; ``_resolve.py`` checks them against the evaluator
(see ``tests/engine/test_resolve.py``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from agenteval import Criterion, EvalConfig, load_config
from agenteval._loading import DEFAULT_CRITERIA, EFFICIENCY_CRITERIA, config_from_data
from agenteval.errors import ConfigError
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.usefixtures("no_max_file_env")


def write(tmp_path: Path, data: Any, name: str = "test_config.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def config_error(tmp_path: Path, data: Any) -> str:
    path = write(tmp_path, data)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    return message


@pytest.mark.parametrize(
    ("value", "threshold"),
    [(0.7, 0.7), (1, 1.0), (0, 0.0), (-1, -1.0), (1e-9, 1e-9)],
)
def test_number_thresholds(tmp_path, value, threshold):
    config = load_config(write(tmp_path, {"criteria": {"response_match_score": value}}))
    [criterion] = config.criteria
    assert criterion == Criterion(name="response_match_score", threshold=threshold, params={})
    assert isinstance(criterion.threshold, float)


def test_object_with_threshold_and_params(tmp_path):
    config = load_config(
        write(
            tmp_path,
            {
                "criteria": {
                    "tool_trajectory_avg_score": {
                        "threshold": 0.8,
                        "match_type": "IN_ORDER",
                        "ignoreArgs": True,
                    }
                }
            },
        )
    )
    [criterion] = config.criteria
    assert criterion.threshold == 0.8
    assert criterion.params == {"match_type": "IN_ORDER", "ignoreArgs": True}


def test_object_without_threshold_is_allowed_here(tmp_path):
    # ADK rejects this at config load; agenteval lets the evaluator's default apply (or
    # fails at resolution when there is none; see test_resolve.py), with a warning (below).
    config = load_config(
        write(tmp_path, {"criteria": {"tool_trajectory_avg_score": {"match_type": "ANY_ORDER"}}})
    )
    assert config.criteria[0].threshold is None
    assert config.criteria[0].params == {"match_type": "ANY_ORDER"}


@pytest.mark.parametrize("value", ["0.9", {"threshold": "0.9"}, " 0.9 "])
def test_a_numeric_string_threshold_is_refused_with_the_number_to_write(tmp_path, value):
    # ADK converts "0.9"; a quoted number is more often a slip, and JSON has numbers.
    message = config_error(tmp_path, {"criteria": {"x": value}})
    assert "a threshold is a JSON number, e.g. 0.9, got" in message


def test_criteria_keep_file_order(tmp_path):
    names = ["z_last", "a_first", "m_middle"]
    config = load_config(write(tmp_path, {"criteria": {n: 0.5 for n in names}}))
    assert [c.name for c in config.criteria] == names
    assert config.get("a_first").threshold == 0.5
    assert config.get("nope") is None


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (True, "criteria.response_match_score: a threshold is a JSON number, e.g. 0.8, got true"),
        (False, "got false"),
        (None, "a threshold is a JSON number, e.g. 0.8, got null"),
        ("high", 'a threshold is a JSON number, e.g. 0.8, got "high"'),
        ("", 'a threshold is a JSON number, e.g. 0.8, got ""'),
        ([0.5], "a threshold is a JSON number, e.g. 0.8, got [0.5]"),
        ("NaN", 'got "NaN"'),
        ("inf", 'got "inf"'),
        ({"threshold": True}, "criteria.response_match_score.threshold: a threshold is a JSON number"),
        ({"threshold": None}, "criteria.response_match_score.threshold: a threshold is a JSON number"),
        ({"threshold": "x"}, "criteria.response_match_score.threshold: a threshold is a JSON number"),
    ],
)
def test_bad_thresholds(tmp_path, value, fragment):
    assert fragment in config_error(tmp_path, {"criteria": {"response_match_score": value}})


@pytest.mark.parametrize(
    "literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1e999", "9" * 400, "7" * 5000]
)
def test_non_finite_and_huge_json_numbers_are_errors_at_their_position(tmp_path, literal):
    from agenteval.errors import DataError

    path = write(tmp_path, '{"criteria": {\n  "response_match_score": ' + literal + "}}")
    with pytest.raises(DataError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}: 2:27: criteria.response_match_score: ")
    assert "float" in message or "not JSON" in message
    assert len(message) < 400


def test_every_threshold_problem_is_reported_at_once(tmp_path):
    message = config_error(tmp_path, {"criteria": {"a": "0.5", "b": 0.5, "c": None, "d": {"threshold": []}}})
    assert "3 problems:" in message
    for name in ("criteria.a:", "criteria.c:", "criteria.d.threshold:"):
        assert name in message
    assert "criteria.b" not in message


def test_huge_python_int_threshold_from_the_embedding_api():
    with pytest.raises(ConfigError) as info:
        config_from_data({"criteria": {"a": 10**400}})
    assert "criteria.a: the threshold must be a finite number" in str(info.value)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"criteria": {}}, "'criteria' is empty"),
        ({}, "'criteria' is missing"),
        ({"userSimulatorConfig": {"type": "llm_backed"}}, "'criteria' is missing"),
        ({"live_model_config": {"timeout_seconds": 60}}, "'criteria' is missing"),
    ],
    ids=["empty-criteria", "empty-config", "simulator-only", "live-model-only"],
)
def test_no_criteria_means_the_efficiency_metrics_alone_as_in_adk(tmp_path, data, said):
    """ADK 2.13 defaults ``criteria`` to {} and appends its efficiency metrics to every run."""
    config = load_config(write(tmp_path, data))
    assert [c.name for c in config.criteria] == list(EFFICIENCY_CRITERIA)
    assert all(c.threshold is None and not c.params for c in config.criteria)
    [warning] = [w for w in config.warnings if "nothing gates" in w]
    assert said in warning
    assert "nothing gates this run" in warning
    assert '{"criteria": {"response_match_score": 0.8}}' in warning
    adk_config = pytest.importorskip("google.adk.evaluation.eval_config")
    adk_metrics = adk_config.get_eval_metrics_from_config(adk_config.EvalConfig.model_validate(data))
    assert [m.metric_name for m in adk_metrics] == [c.name for c in config.criteria]


def test_a_misspelt_criteria_key_warns_twice(tmp_path):
    config = load_config(write(tmp_path, {"thresholds": {"a": 1}}))
    assert [c.name for c in config.criteria] == list(EFFICIENCY_CRITERIA)
    assert any("unknown top-level key 'thresholds'" in w for w in config.warnings)
    assert any("'criteria' is missing" in w for w in config.warnings)


@pytest.mark.parametrize("criteria", [[], ["response_match_score"], "response_match_score", 0.8, None])
def test_non_object_criteria(tmp_path, criteria):
    message = config_error(tmp_path, {"criteria": criteria})
    assert "criteria: expected an object of name -> threshold" in message


@pytest.mark.parametrize(
    ("data", "kind"), [([], "array"), (0.8, "number"), ('"x"', "string"), (None, "null")]
)
def test_non_object_config(tmp_path, data, kind):
    message = config_error(tmp_path, data)
    assert f'a config is a JSON object {{"criteria": {{...}}}}, got a JSON {kind}' in message


def test_unknown_top_level_keys_warn(tmp_path):
    path = write(tmp_path, {"criteria": {"a": 1}, "_comment": "x", "judge_model": "m"})
    config = load_config(path)
    assert len(config.warnings) == 2
    for key, warning in zip(["_comment", "judge_model"], config.warnings, strict=True):
        assert warning.startswith(f"{path}: unknown top-level key {key!r} ignored")
        known = "known keys: criteria, custom_metrics, live_model_config, statistics, user_simulator_config"
        assert known in warning


def test_known_sections_are_kept(tmp_path):
    data = {
        "criteria": {"my_metric": 0.5},
        "custom_metrics": {"my_metric": {"code_config": {"name": "pkg.mod.fn"}}},
        "user_simulator_config": {"model": "gemini-2.5-flash", "max_allowed_invocations": 10},
        "live_model_config": {"timeout_seconds": 300},
    }
    config = load_config(write(tmp_path, data))
    assert config.custom_metrics == data["custom_metrics"]
    assert config.user_simulator_config == data["user_simulator_config"]
    assert config.live_model_config == data["live_model_config"]
    [live] = config.warnings  # kept, but agenteval has no live mode: said so
    assert "live_model_config: ADK's live (bidirectional audio) mode is not supported" in live
    assert config.source == tmp_path / "test_config.json"


def test_user_simulator_config_is_checked_at_load(tmp_path):
    data = {"criteria": {"a": 0.5}, "user_simulator_config": {"maxAllowedInvocations": 10, "note": "x"}}
    path = write(tmp_path, data)
    config = load_config(path)
    assert config.user_simulator_config == data["user_simulator_config"]  # as written
    assert config.user_simulator.max_allowed_invocations == 10  # checked
    assert config.user_simulator.type == "llm_backed" and config.user_simulator.source == str(path)
    [warning] = config.warnings
    assert warning.startswith(f"{path}: user_simulator_config.note: not a user simulator key; ignored")
    bad = config_error(
        tmp_path, {"criteria": {"a": 0.5}, "user_simulator_config": {"max_allowed_invocations": 0}}
    )
    assert "user_simulator_config.max_allowed_invocations: must be -1 (no limit) or at least 1" in bad
    audio = config_error(tmp_path, {"criteria": {"a": 0.5}, "user_simulator_config": {"type": "llm_audio"}})
    assert "user_simulator_config.type: 'llm_audio'" in audio and "not supported" in audio
    assert EvalConfig.default().user_simulator is None
    built = EvalConfig(criteria=[], user_simulator_config={"model": "openai:m"})
    assert built.user_simulator.model == "openai:m"  # made from the dict on construction


def test_null_sections_are_empty(tmp_path):
    config = load_config(
        write(tmp_path, {"criteria": {"a": 0.5}, "custom_metrics": None, "user_simulator_config": None})
    )
    assert config.custom_metrics == {} and config.user_simulator_config is None


@pytest.mark.parametrize("key", ["custom_metrics", "user_simulator_config", "live_model_config"])
def test_non_object_sections(tmp_path, key):
    assert f"{key}: expected an object, got [1]" in config_error(tmp_path, {"criteria": {"a": 0.5}, key: [1]})


def test_config_syntax_error_is_a_data_error_with_position(tmp_path):
    from agenteval.errors import DataError

    path = write(tmp_path, '{"criteria": {"a": 0.5,}}')
    with pytest.raises(DataError) as info:
        load_config(path)
    assert f"{path}: 1:24: invalid JSON" in str(info.value)


def test_config_from_data_without_a_file():
    config = config_from_data({"criteria": {"a": 1}})
    assert config.source is None and config.criteria[0].threshold == 1.0
    with pytest.raises(ConfigError) as info:
        config_from_data({"criteria": {"a": "x"}})
    assert str(info.value).startswith("<config>: criteria.a:")


def test_default_config_is_adks():
    config = EvalConfig.default()
    assert DEFAULT_CRITERIA == {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}
    assert [(c.name, c.threshold) for c in config.criteria] == list(DEFAULT_CRITERIA.items())


# -- property: any JSON gives a config or one ConfigError ----------------------------------------

_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-2, 2),
        st.integers(),
        st.just(10**400),
        st.floats(),
        st.sampled_from(["0.5", "x", "", "nan"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["threshold", "criteria", "match_type", "a"]), inner, max_size=3),
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["criteria", "custom_metrics", "user_simulator_config", "x"]), _VALUES, max_size=3
    )
    | _VALUES
)
def test_any_json_is_a_config_or_one_config_error(data):
    try:
        config = config_from_data(data)
    except ConfigError as error:
        assert str(error).startswith("<config>: ")
    else:
        assert all(c.threshold is None or math.isfinite(c.threshold) for c in config.criteria)


# -- ADK 2.13's config model reads every section in both spellings ---------------------------


def _adk_reads(data: dict[str, Any]) -> Any:
    """ADK 2.13's own reading of a config (skipped where google-adk is not installed, as in
    the install at the dependency floors)."""
    adk_config = pytest.importorskip("google.adk.evaluation.eval_config")
    return adk_config.EvalConfig.model_validate(data)


@pytest.mark.parametrize(
    ("camel", "snake"),
    [
        ("userSimulatorConfig", "user_simulator_config"),
        ("liveModelConfig", "live_model_config"),
        ("customMetrics", "custom_metrics"),
    ],
)
def test_camel_case_sections_are_read_as_adk_reads_them(tmp_path, camel, snake):
    value = {
        "userSimulatorConfig": {"model": "gemini-2.5-pro", "maxAllowedInvocations": 7},
        "liveModelConfig": {"timeoutSeconds": 120},
        "customMetrics": {"my_metric": {"code_config": {"name": "pkg.mod.fn"}}},
    }[camel]
    data = {"criteria": {"my_metric": 0.5}, camel: value}
    config = load_config(write(tmp_path, data))
    if camel == "liveModelConfig":  # read, and said to be unused (no live mode here)
        [warning] = config.warnings
        assert "liveModelConfig: ADK's live (bidirectional audio) mode is not supported" in warning
    else:
        assert config.warnings == []
    assert getattr(config, snake) == value
    adk = _adk_reads(data)
    assert getattr(adk, snake) is not None  # ADK reads the camelCase section too
    if camel == "userSimulatorConfig":
        assert config.user_simulator.model == adk.user_simulator_config.model == "gemini-2.5-pro"
        assert config.user_simulator.max_allowed_invocations == 7
        assert adk.user_simulator_config.max_allowed_invocations == 7


def test_a_section_in_both_spellings_is_refused(tmp_path):
    data = {"criteria": {"a": 0.5}, "user_simulator_config": {}, "userSimulatorConfig": {"model": "m"}}
    message = config_error(tmp_path, data)
    twice = "'userSimulatorConfig' is given twice, as 'user_simulator_config' and 'userSimulatorConfig'"
    assert twice in message
    assert "keep one spelling" in message


def test_camel_case_non_object_section_names_the_key_as_written(tmp_path):
    assert "liveModelConfig: expected an object, got 3" in config_error(
        tmp_path, {"criteria": {"a": 0.5}, "liveModelConfig": 3}
    )


def test_unknown_key_warning_does_not_claim_adk_behaviour_it_lacks(tmp_path):
    path = write(tmp_path, {"criteria": {"a": 0.5}, "_comment": "x"})
    [warning] = load_config(path).warnings
    assert "ADK 2.13 does not read it either" in warning and "camelCase" in warning
    assert "_comment" not in _adk_reads({"criteria": {"a": 0.5}, "_comment": "x"}).model_dump()


def test_an_uninstalled_simulator_type_is_refused_at_load(tmp_path):
    message = config_error(tmp_path, {"criteria": {"a": 0.5}, "userSimulatorConfig": {"type": "scripted"}})
    assert "user_simulator_config.type: no user simulator 'scripted' is installed" in message
    assert "Installed types: llm_backed" in message
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="scripted"):  # ADK refuses a type it does not know
        _adk_reads({"criteria": {"a": 0.5}, "user_simulator_config": {"type": "scripted"}})


def test_a_missing_known_simulator_names_its_distribution(tmp_path, monkeypatch):
    import importlib.metadata

    real = importlib.metadata.entry_points

    def without_simulators(**kwargs):
        return [] if kwargs.get("group") == "agenteval.user_simulators" else real(**kwargs)

    monkeypatch.setattr(importlib.metadata, "entry_points", without_simulators)
    message = config_error(tmp_path, {"criteria": {"a": 0.5}, "user_simulator_config": {"model": "m"}})
    assert "no user simulator 'llm_backed' is installed; it comes with agenteval-llm-judges" in message
    assert "pip install -e ./plugins/llm_judges" in message and "Installed types: none" in message


# -- the efficiency criteria: ADK's rule, applied on request ---------------------------------


def test_with_efficiency_appends_the_four_not_named_in_adks_order():
    from agenteval._loading._config import EFFICIENCY_CRITERIA, with_efficiency

    adk_config = pytest.importorskip("google.adk.evaluation.eval_config")
    AdkEvalConfig, get_eval_metrics_from_config = (
        adk_config.EvalConfig,
        adk_config.get_eval_metrics_from_config,
    )

    config = config_from_data({"criteria": {"response_match_score": 0.5, "token_usage_v1": {}}})
    extended = with_efficiency(config)
    assert [c.name for c in extended.criteria] == [
        "response_match_score",
        "token_usage_v1",
        "tool_call_count_v1",
        "inference_call_count_v1",
        "invocation_duration_v1",
    ]
    assert all(c.threshold is None and c.params == {} for c in extended.criteria[1:])
    assert [c.name for c in config.criteria] == ["response_match_score", "token_usage_v1"]  # unchanged
    assert with_efficiency(extended).criteria == extended.criteria
    adk = get_eval_metrics_from_config(AdkEvalConfig(criteria={"response_match_score": 0.5}))
    assert [m.metric_name for m in adk][1:] == list(EFFICIENCY_CRITERIA)


def _two_suites(tmp_path: Path, config_a: dict, config_b: dict) -> list[str]:
    """Two folders, each an eval file and its config; the CLI arguments that run both."""
    example = Path(__file__).resolve().parents[3] / "examples" / "travel" / "travel.evalset.json"
    for name, config in (("a", config_a), ("b", config_b)):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.test.json").write_bytes(example.read_bytes())
        write(tmp_path / name, config)
    return ["run", str(tmp_path / "a"), str(tmp_path / "b"), "--actual", str(example), "--no-record"]


def _run_cli(args: list[str]):
    from agenteval.cli import main
    from click.testing import CliRunner

    return CliRunner().invoke(main, args)


def test_problems_in_different_config_files_come_together(tmp_path):
    args = _two_suites(
        tmp_path,
        {"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_typ": "IN_ORDER"}}},
        {"criteria": {"response_match_score": 7}},
    )
    result = _run_cli(args)
    assert result.exit_code == 2 and "2 problems stop this run" in result.stderr
    assert (
        f"{tmp_path / 'a' / 'test_config.json'}: criteria.tool_trajectory_avg_score.match_typ"
        in result.stderr
    )
    assert (
        f"{tmp_path / 'b' / 'test_config.json'}: criteria.response_match_score: threshold 7" in result.stderr
    )


def test_a_judge_without_credentials_names_the_config_that_asked_for_it(tmp_path, clean_judge_env):
    args = _two_suites(
        tmp_path,
        {"criteria": {"tool_trajectory_avg_score": 1.0}},
        {"criteria": {"final_response_match_v2": 0.5}},
    )
    result = _run_cli(args)
    assert result.exit_code == 2
    assert (
        f"error: {tmp_path / 'b' / 'test_config.json'}: judge model 'gemini-2.5-flash': no Gemini credentials"
        in result.stderr
    )


def test_one_broken_file_given_as_eval_file_and_as_actuals_is_one_problem(tmp_path):
    path = tmp_path / "camel.evalset.json"
    path.write_text(json.dumps({"evalSetId": "s", "evalCases": []}), encoding="utf-8")
    result = _run_cli(["run", str(path), "--actual", str(path), "--no-record"])
    assert result.exit_code == 2 and result.stderr.count("the top level uses camelCase keys") == 1


def test_a_criterion_object_without_threshold_runs_with_its_default_and_a_warning(tmp_path):
    config = {
        "criteria": {"tool_trajectory_avg_score": {"match_type": "ANY_ORDER"}, "tool_call_count_v1": {}}
    }
    args = _two_suites(tmp_path, config, {"criteria": {"tool_trajectory_avg_score": 1.0}})
    result = _run_cli(args)
    assert result.exit_code == 0, result.output
    warning = (
        f'{tmp_path / "a" / "test_config.json"}: criteria.tool_trajectory_avg_score has no "threshold": '
    )
    flat = " ".join(result.stderr.split())
    assert flat.count(warning + "agenteval applies its default, 1; ADK refuses") == 1
    assert "criteria.tool_call_count_v1 has no" not in flat  # informational: it takes none


def test_eval_config_from_data_is_what_load_config_reads(tmp_path):
    data = {"criteria": {"response_match_score": 0.7}, "statistics": {"confidence": 0.8}}
    path = tmp_path / "test_config.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    from_data = EvalConfig.from_data(data, source=path)
    assert from_data == load_config(path)
    with pytest.raises(ConfigError, match="a config is a JSON object"):
        EvalConfig.from_data([], source=path)
