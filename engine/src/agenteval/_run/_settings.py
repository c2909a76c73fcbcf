"""A run's settings: what the caller set, merged with the config's ``statistics`` block.

``merge_settings`` is the one merge every caller goes through (the CLI, ``evaluate*``, the
pytest plugin, the viewer's runs): a default, then the config's ``statistics`` block, then
the caller's explicit option, key by key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, TypeVar, Union, overload

from .._judging._cache import DEFAULT_CACHE_DIR
from .._judging._rates import JudgeRates
from .._judging._service import DEFAULT_JUDGE_CONCURRENCY
from .._loading._statistics import StatisticsConfig
from ..errors import ConfigError
from ._executor import DEFAULT_EXECUTOR

__all__ = ["DEFAULT_CONFIDENCE", "DEFAULT_SET_VERDICT", "RunOptions", "RunSettings", "merge_settings"]

#: The level of the tri-state verdicts' intervals when neither an option nor the config sets one.
DEFAULT_CONFIDENCE = 0.95
#: How an eval set's verdict is drawn from its cases when neither an option nor the config says.
DEFAULT_SET_VERDICT = "holm"

T = TypeVar("T")


@dataclass(frozen=True)
class RunOptions:
    """What the caller of a run set (the CLI's flags, the API's arguments).

    ``None`` for a statistics key means "not given": the config's ``statistics`` block, else
    the default, decides. The other options have their defaults here, once."""

    #: Runs per case (``"auto"``: look by look); with recorded turns, their number decides.
    num_runs: Union[int, str, None] = None
    #: With ``num_runs="auto"``: the most agent runs of the whole run.
    run_budget: Optional[int] = None
    confidence: Optional[float] = None
    #: ``False``: no tri-state verdicts (``--no-stats``).
    statistics: bool = True
    fail_on_inconclusive: Optional[bool] = None
    judge_budget: Optional[int] = None
    #: The most judge tokens (input + output, as the providers report them) the criteria may
    #: use; a soft budget: once reached no new judge call starts (``--max-judge-tokens``).
    max_judge_tokens: Optional[int] = None
    #: Judge requests / tokens (input + output, as reported) a minute each judge (provider,
    #: model, endpoint) may take, over every worker of the run (``--judge-rpm``, ``--judge-tpm``).
    judge_rpm: Optional[float] = None
    judge_tpm: Optional[float] = None
    judge_sampling: Optional[str] = None
    #: How an eval set's verdict is drawn from its cases: ``holm`` (default), ``any-case``, ``mean``.
    set_verdict: Optional[str] = None
    #: The calibration cards (a ``calibration.json`` or its run folder) that gate the judge
    #: criteria's verdicts: without a current card, INCONCLUSIVE (``--calibration``).
    calibration: Optional[Path] = None
    #: The floor of a card's κ lower bound (``--min-kappa``; needs ``calibration``).
    min_kappa: Optional[float] = None
    #: How many evaluations may run at once (``None``: ``EvalRun``'s default).
    concurrency: Optional[int] = None
    judge_concurrency: int = DEFAULT_JUDGE_CONCURRENCY
    agent_concurrency: int = 4
    #: Seconds the agent may take for one turn.
    agent_timeout: float = 300.0
    #: ``"process"``: the agent's calls run in worker processes killed on a timeout or crash.
    agent_isolation: str = "none"
    #: Re-raise evaluator exceptions instead of recording ERRORED results.
    strict: bool = False
    #: Where the judge answer cache lives (``None``: no cache).
    cache_dir: Optional[Path] = DEFAULT_CACHE_DIR
    #: What runs the units of work (an ``agenteval.executors`` plugin; ``local``: this process).
    executor: str = DEFAULT_EXECUTOR
    #: ``"I/N"``: run only shard I of N of the plan (``agenteval._run._shards``).
    shard: Optional[str] = None


@dataclass(frozen=True)
class RunSettings:
    """The run's statistics keys after the merge (see ``merge_settings``)."""

    num_runs: Union[int, str]
    run_budget: Optional[int]
    #: ``None``: no tri-state verdicts.
    confidence: Optional[float]
    fail_on_inconclusive: bool
    judge_budget: Optional[int]
    max_judge_tokens: Optional[int]
    judge_sampling: Optional[str]
    set_verdict: str
    #: What each judge's limit allows a minute (the caller's ``judge_rpm`` / ``judge_tpm``,
    #: else the block's).
    judge_rates: JudgeRates = field(default_factory=JudgeRates)
    calibration: Optional[Path] = None
    min_kappa: Optional[float] = None
    #: Judge model -> ``{"input_per_mtok", "output_per_mtok"}`` (the block's ``judge_prices``).
    judge_prices: dict[str, dict[str, float]] = field(default_factory=dict)


def merge_settings(
    options: RunOptions, statistics: Optional[StatisticsConfig], *, runs_agent: bool
) -> RunSettings:
    """Each key: the caller's option, else the ``statistics`` block's, else the default.

    The block's ``num_runs`` (and with it its ``run_budget``) applies only when the agent
    runs: recorded turns bring their own runs. A ``run_budget`` option completes a block's
    ``"auto"``."""
    block = statistics or StatisticsConfig()
    num_runs, run_budget = options.num_runs, options.run_budget
    if num_runs is None and runs_agent:
        num_runs = block.num_runs
        run_budget = block.run_budget if run_budget is None else run_budget
    confidence = _first(options.confidence, block.confidence, DEFAULT_CONFIDENCE)
    calibration: Optional[Path] = _first(
        options.calibration, None if block.calibration is None else Path(block.calibration)
    )
    min_kappa = _first(options.min_kappa, block.min_kappa)
    if min_kappa is not None and calibration is None:
        raise ConfigError(
            "--min-kappa (statistics.min_kappa) is a floor on the calibration cards' κ: give the cards "
            "too (--calibration FILE or statistics.calibration)"
        )
    return RunSettings(
        num_runs=1 if num_runs is None else num_runs,
        run_budget=run_budget,
        confidence=confidence if options.statistics else None,
        fail_on_inconclusive=bool(_first(options.fail_on_inconclusive, block.fail_on_inconclusive, False)),
        judge_budget=_first(options.judge_budget, block.judge_budget),
        max_judge_tokens=_first(options.max_judge_tokens, block.max_judge_tokens),
        judge_sampling=_first(options.judge_sampling, block.judge_sampling),
        judge_rates=JudgeRates(
            requests_per_minute=_first(options.judge_rpm, block.judge_rpm),
            tokens_per_minute=_first(options.judge_tpm, block.judge_tpm),
        ),
        set_verdict=_first(options.set_verdict, block.set_verdict, DEFAULT_SET_VERDICT),
        calibration=calibration,
        min_kappa=min_kappa,
        judge_prices={
            model: {"input_per_mtok": inputs, "output_per_mtok": outputs}
            for model, inputs, outputs in block.judge_prices or ()
        },
    )


@overload
def _first(first: Optional[T], second: Optional[T], default: T, /) -> T: ...
@overload
def _first(*values: Optional[T]) -> Optional[T]: ...
def _first(*values: Optional[T]) -> Optional[T]:
    """The first value that is not ``None`` (never ``None`` when the last is not)."""
    return next((value for value in values if value is not None), None)
