"""The run assembler's two rules, each written once: the settings merge (the caller's option,
else the config's ``statistics`` block, else the default) and ``run_command`` (a request as
the ``agenteval run`` argv that the CLI parses back into the same request)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import agenteval._run
import pytest
from agenteval import RunOptions, RunRequest, run_command
from agenteval._loading._statistics import JUDGE_SAMPLING_MODES, StatisticsConfig
from agenteval._run import DEFAULT_CONCURRENCY, merge_settings
from agenteval._run._settings import DEFAULT_CONFIDENCE
from agenteval.cli import main
from agenteval.errors import ConfigError
from agenteval.models import EvalSet
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

_runs = st.one_of(st.none(), st.integers(1, 50), st.just("auto"))
_confidence = st.one_of(st.none(), st.floats(0.5, 0.999))
_sampling = st.one_of(st.none(), st.sampled_from(JUDGE_SAMPLING_MODES))
_budget = st.one_of(st.none(), st.integers(0, 10_000))
_flag = st.one_of(st.none(), st.booleans())
_kappa = st.one_of(st.none(), st.floats(-1.0, 1.0))
_rate = st.one_of(st.none(), st.floats(0.5, 1e7), st.integers(1, 10_000).map(float))

_blocks = st.builds(
    StatisticsConfig,
    confidence=_confidence,
    num_runs=_runs,
    run_budget=st.one_of(st.none(), st.integers(1, 500)),
    judge_sampling=_sampling,
    judge_budget=_budget,
    max_judge_tokens=_budget,
    judge_rpm=_rate,
    judge_tpm=_rate,
    fail_on_inconclusive=_flag,
    calibration=st.one_of(st.none(), st.just("/block/calibration.json")),
    min_kappa=_kappa,
)
#: The statistics keys a caller may set (``None``: not given).
_STATISTICS_OPTIONS = {
    "num_runs": _runs,
    "run_budget": st.one_of(st.none(), st.integers(1, 500)),
    "confidence": _confidence,
    "statistics": st.booleans(),
    "fail_on_inconclusive": _flag,
    "judge_budget": _budget,
    "max_judge_tokens": _budget,
    "judge_rpm": _rate,
    "judge_tpm": _rate,
    "judge_sampling": _sampling,
    "calibration": st.one_of(st.none(), st.just(Path("/cards/calibration.json"))),
    "min_kappa": _kappa,
}
_options = st.builds(RunOptions, **_STATISTICS_OPTIONS)


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


@settings(deadline=None)  # a loaded machine once took more than hypothesis' 200 ms
@given(options=_options, block=st.one_of(st.none(), _blocks), runs_agent=st.booleans())
def test_each_key_is_the_option_else_the_block_else_the_default(options, block, runs_agent):
    found = block or StatisticsConfig()
    calibration = _first(options.calibration, found.calibration)
    min_kappa = _first(options.min_kappa, found.min_kappa)
    if min_kappa is not None and calibration is None:  # a floor without cards is refused
        with pytest.raises(ConfigError, match="--min-kappa"):
            merge_settings(options, block, runs_agent=runs_agent)
        return
    merged = merge_settings(options, block, runs_agent=runs_agent)
    assert merged.calibration == (None if calibration is None else Path(calibration))
    assert merged.min_kappa == min_kappa
    confidence = _first(options.confidence, found.confidence, DEFAULT_CONFIDENCE)
    assert merged.confidence == (confidence if options.statistics else None)
    assert merged.fail_on_inconclusive is bool(
        _first(options.fail_on_inconclusive, found.fail_on_inconclusive)
    )
    assert merged.judge_budget == _first(options.judge_budget, found.judge_budget)
    assert merged.max_judge_tokens == _first(options.max_judge_tokens, found.max_judge_tokens)
    assert merged.judge_sampling == _first(options.judge_sampling, found.judge_sampling)
    assert merged.judge_rates.requests_per_minute == _first(options.judge_rpm, found.judge_rpm)
    assert merged.judge_rates.tokens_per_minute == _first(options.judge_tpm, found.judge_tpm)
    # The block's runs only when the agent runs (recorded turns bring their own), and its
    # run budget only with its own num_runs; a run budget option completes a block's auto.
    if options.num_runs is not None or not runs_agent:
        assert merged.num_runs == _first(options.num_runs, 1)
        assert merged.run_budget == options.run_budget
    else:
        assert merged.num_runs == _first(found.num_runs, 1)
        assert merged.run_budget == _first(options.run_budget, found.run_budget)


_cli_options = st.builds(
    RunOptions,
    **{
        **_STATISTICS_OPTIONS,
        "fail_on_inconclusive": st.one_of(st.none(), st.just(True)),  # the CLI's flag cannot say "no"
        "concurrency": st.integers(1, 64),  # the CLI always gives one
        "judge_concurrency": st.integers(1, 64),
        "agent_concurrency": st.integers(1, 64),
        "agent_timeout": st.floats(0.001, 10_000, allow_nan=False),
        "agent_isolation": st.sampled_from(["none", "process"]),
        "strict": st.booleans(),
        "cache_dir": st.sampled_from([None, Path(".agenteval"), Path("/tmp/judge-cache")]),
    },
)
_names = st.text(st.sampled_from("abcdefghij_"), min_size=1, max_size=8)
_requests = st.builds(
    RunRequest,
    paths=st.lists(st.sampled_from(["evals/a.test.json", "b folder", "c.evalset.json:x,y"]), min_size=1).map(
        tuple
    ),
    agent=st.sampled_from(["agent.py:respond", "pkg.mod:fn", "http://127.0.0.1:1/v1?model=m"]),
    agent_type=st.one_of(st.none(), st.just("python")),
    criteria_names=st.one_of(st.none(), st.lists(_names, min_size=1, max_size=3, unique=True).map(tuple)),
    config_path=st.one_of(st.none(), st.just(Path("/some where/test_config.json"))),
    efficiency=st.booleans(),
    options=_cli_options,
)


class _Parsed(Exception):
    pass


@settings(max_examples=60, deadline=None)
@given(request=_requests)
def test_the_command_parses_back_into_the_same_request(request):
    """Whatever a request holds, ``agenteval run`` given ``run_command(request)`` asks the
    assembler for that very request."""
    seen: list[RunRequest] = []

    def capture(parsed: RunRequest, **_: Any) -> None:
        seen.append(parsed)
        raise _Parsed

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(agenteval._run, "assemble", capture)
        result = CliRunner().invoke(main, run_command(request)[1:])
    assert isinstance(result.exception, _Parsed), result.output
    assert seen == [request]


def test_the_command_of_recorded_turns_names_each_actual_file():
    request = RunRequest(paths=("a.json",), actual=(Path("r1.json"), Path("r2.json")))
    assert run_command(request) == [
        "agenteval",
        "run",
        "a.json",
        "--actual",
        "r1.json",
        "--actual",
        "r2.json",
    ]
    assert DEFAULT_CONCURRENCY == 16  # the CLI's --concurrency default, left out of the command


@pytest.mark.parametrize(
    "request_",
    [
        RunRequest(eval_sets=(EvalSet(eval_set_id="s", eval_cases=[]),), actual_turns={}),
        RunRequest(paths=("a.json",), config=agenteval._run.as_config(None)),
        RunRequest(paths=("a.json",), agent=object()),  # type: ignore[arg-type]
    ],
    ids=["eval set objects", "an in-memory config", "an Agent object"],
)
def test_what_a_command_line_cannot_carry_is_refused(request_):
    with pytest.raises(ValueError, match="command line"):
        run_command(request_)
