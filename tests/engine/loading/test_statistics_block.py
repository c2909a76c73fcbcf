"""The ``statistics`` block of ``test_config.json``: agenteval's run-wide settings beside
ADK's keys, checked with clear errors, never warned about as an unknown key."""

from __future__ import annotations

import pytest
from agenteval._loading import config_from_data
from agenteval._loading._statistics import StatisticsConfig, parse_statistics
from agenteval.errors import ConfigError
from hypothesis import given
from hypothesis import strategies as st

CRITERIA = {"response_match_score": 0.8}


def test_the_block_is_read_and_is_not_an_unknown_key():
    block = {
        "confidence": 0.9,
        "num_runs": "auto",
        "run_budget": 60,
        "judge_sampling": "pivotal",
        "judge_budget": 500,
        "fail_on_inconclusive": True,
        "set_verdict": "any-case",
        "max_judge_tokens": 20000,
        "judge_rpm": 600,
        "judge_tpm": 250000.5,
    }
    config = config_from_data({"criteria": CRITERIA, "statistics": block})
    assert config.statistics == StatisticsConfig(
        0.9, "auto", 60, "pivotal", 500, True, "any-case", 20000, judge_rpm=600.0, judge_tpm=250000.5
    )
    assert config.warnings == []


def test_no_block_and_a_null_block_are_none_and_keys_may_be_left_out():
    assert config_from_data({"criteria": CRITERIA}).statistics is None
    assert config_from_data({"criteria": CRITERIA, "statistics": None}).statistics is None
    assert config_from_data({"criteria": CRITERIA, "statistics": {"num_runs": 5}}).statistics == (
        StatisticsConfig(num_runs=5)
    )


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ({"confidence": 1.5}, "statistics.confidence: expected a number from 0.5 to 0.999"),
        ({"confidence": True}, "statistics.confidence: expected a number"),
        ({"num_runs": "lots"}, 'statistics.num_runs: expected a whole number of at least 1 or "auto"'),
        ({"num_runs": 0}, "statistics.num_runs"),
        ({"num_runs": 2.5}, "statistics.num_runs"),
        ({"judge_sampling": "best"}, 'statistics.judge_sampling: expected one of "majority", "curtailed"'),
        ({"judge_budget": -1}, "statistics.judge_budget: expected a whole number of at least 0"),
        ({"max_judge_tokens": 1.5}, "statistics.max_judge_tokens: expected a whole number of at least 0"),
        ({"judge_rpm": 0}, "statistics.judge_rpm: expected a positive number of judge requests a minute"),
        ({"judge_rpm": True}, "statistics.judge_rpm: expected a positive number"),
        ({"judge_tpm": "lots"}, "statistics.judge_tpm: expected a positive number of judge tokens a minute"),
        ({"judge_tpm": -5}, "statistics.judge_tpm: expected a positive number"),
        ({"set_verdict": "strict"}, 'statistics.set_verdict: expected one of "holm", "any-case", "mean"'),
        ({"run_budget": 10}, 'statistics.run_budget: caps the runs of "num_runs": "auto"'),
        ({"fail_on_inconclusive": "yes"}, "statistics.fail_on_inconclusive: expected true or false"),
        ({"confidnce": 0.9}, "statistics.confidnce: unknown key; the statistics block takes confidence"),
    ],
)
def test_a_bad_value_names_the_json_path_and_the_choices(block, message, tmp_path):
    path = tmp_path / "test_config.json"
    with pytest.raises(ConfigError) as caught:
        config_from_data({"criteria": CRITERIA, "statistics": block}, source=path)
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_every_problem_is_reported_at_once():
    with pytest.raises(ConfigError, match="2 problems") as caught:
        parse_statistics({"confidence": 2, "judge_budget": "many"}, "cfg.json")
    assert "statistics.confidence" in str(caught.value) and "statistics.judge_budget" in str(caught.value)


def test_a_block_that_is_not_an_object_is_an_error():
    with pytest.raises(ConfigError, match="statistics: expected an object"):
        config_from_data({"criteria": CRITERIA, "statistics": [1]})


@given(
    st.dictionaries(
        st.text(max_size=8), st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text())
    )
)
def test_any_block_is_either_read_or_a_config_error(block):
    try:
        parsed = parse_statistics(block, "cfg.json")
    except ConfigError:
        return
    assert isinstance(parsed, StatisticsConfig)


def test_the_calibration_cards_are_found_from_the_configs_folder(tmp_path):
    path = tmp_path / "evals" / "test_config.json"
    block = {"calibration": "cards/calibration.json", "min_kappa": 0.6}
    config = config_from_data({"criteria": CRITERIA, "statistics": block}, source=path)
    assert config.statistics is not None
    assert config.statistics.calibration == str(tmp_path / "evals" / "cards" / "calibration.json")
    assert config.statistics.min_kappa == 0.6
    absolute = str(tmp_path / "elsewhere.json")
    assert parse_statistics({"calibration": absolute}, str(path)).calibration == absolute


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ({"calibration": 3}, "statistics.calibration: expected the path of a calibration.json"),
        ({"calibration": "c.json", "min_kappa": 1.5}, "statistics.min_kappa: expected a number from -1 to 1"),
        ({"min_kappa": 0.5}, "statistics.min_kappa: is a floor on the calibration cards' κ; set"),
    ],
)
def test_a_bad_calibration_key_names_the_json_path_and_the_fix(block, message):
    with pytest.raises(ConfigError) as caught:
        parse_statistics(block, "cfg.json")
    assert message in str(caught.value)


def test_judge_prices_are_read_per_model():
    block = {"judge_prices": {"gemini-2.5-flash": {"input_per_mtok": 0.3, "output_per_mtok": 2}}}
    assert parse_statistics(block, "cfg.json").judge_prices == (("gemini-2.5-flash", 0.3, 2.0),)


@pytest.mark.parametrize(
    ("prices", "message"),
    [
        ([1], "statistics.judge_prices: expected an object of judge models"),
        ({"m": {"input_per_mtok": 1}}, "statistics.judge_prices.m: expected exactly input_per_mtok and"),
        (
            {"m": {"input_per_mtok": -1, "output_per_mtok": 1}},
            "statistics.judge_prices.m.input_per_mtok: expected a price of 0 or more",
        ),
    ],
)
def test_a_bad_price_names_the_json_path(prices, message):
    with pytest.raises(ConfigError) as caught:
        parse_statistics({"judge_prices": prices}, "cfg.json")
    assert message in str(caught.value)
