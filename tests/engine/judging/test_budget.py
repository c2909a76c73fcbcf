"""The run's judge budgets in ``JudgeService`` (calls, ``--judge-budget``; tokens,
``--max-judge-tokens``): calls past them fail at once with ``judge_budget``;
cache hits and the user simulator are not charged."""

from __future__ import annotations

import asyncio

import pytest
from agenteval import JudgeOptions, JudgeRequest, JudgeResponse, JudgeService
from agenteval._judging import JudgeUsage
from agenteval._judging._provider import JudgeModel
from agenteval.errors import JudgeUnavailable
from hypothesis import given, settings
from hypothesis import strategies as st


class Echo(JudgeModel):
    def __init__(self, model: str) -> None:
        super().__init__(model)

    async def generate(self, request: JudgeRequest) -> JudgeResponse:
        return JudgeResponse(text="{}")


class Providers:
    def names(self):
        return ["echo"]

    def load(self, name):
        return Echo


async def _calls(service: JudgeService, count: int, criterion: str = "c") -> list:
    options = JudgeOptions(judge_model="echo:m")
    return await asyncio.gather(
        *(service.generate(criterion, JudgeRequest(prompt=f"p{i}"), options) for i in range(count)),
        return_exceptions=True,
    )


def test_calls_past_the_budget_are_refused_and_counted():
    service = JudgeService(providers=Providers(), budget=3)
    outcomes = asyncio.run(_calls(service, 5))
    refused = [o for o in outcomes if isinstance(o, JudgeUnavailable)]
    assert len(refused) == 2 and all(o.code == "judge_budget" for o in refused)
    assert service.spent == 3 and service.refused == 2
    assert service.activity("c").failures == {"judge_budget": 2}


def test_the_user_simulator_is_not_charged_and_no_budget_means_no_limit():
    service = JudgeService(providers=Providers(), budget=0)
    outcomes = asyncio.run(_calls(service, 2, criterion="user_simulator"))
    assert not any(isinstance(o, Exception) for o in outcomes) and service.spent == 0
    free = JudgeService(providers=Providers())
    assert not any(isinstance(o, Exception) for o in asyncio.run(_calls(free, 20)))


def test_a_new_run_starts_with_the_whole_budget():
    service = JudgeService(providers=Providers(), budget=1)
    asyncio.run(_calls(service, 2))
    service.begin_run()
    assert service.spent == 0 and service.refused == 0
    with pytest.raises(ValueError):
        from agenteval_llm_judges._voting import JudgeSampling

        JudgeSampling().overridden("fastest")


class Costly(Echo):
    """Reports 10 input and 5 output tokens a call, as a provider does."""

    async def generate(self, request: JudgeRequest) -> JudgeResponse:
        return JudgeResponse(text="{}", usage=JudgeUsage(input_tokens=10, output_tokens=5))


class CostlyProviders(Providers):
    def load(self, name):
        return Costly


async def _one_at_a_time(service: JudgeService, count: int, criterion: str = "c") -> list:
    outcomes = []
    for i in range(count):
        try:
            outcomes.append(await service.generate(criterion, JudgeRequest(prompt=f"p{i}"), _OPTIONS))
        except JudgeUnavailable as exc:
            outcomes.append(exc)
    return outcomes


_OPTIONS = JudgeOptions(judge_model="echo:m")


def test_once_the_reported_tokens_reach_the_token_budget_no_new_call_starts():
    service = JudgeService(providers=CostlyProviders(), max_tokens=40)
    outcomes = asyncio.run(_one_at_a_time(service, 5))
    refused = [o for o in outcomes if isinstance(o, JudgeUnavailable)]
    # 15 tokens a call: after three calls (45 >= 40) the budget is reached; soft, so the
    # third call that crossed it is kept and counted.
    assert len(refused) == 2 and all(o.code == "judge_budget" for o in refused)
    assert "--max-judge-tokens" in str(refused[0])
    info = service.budget_info()
    assert info is not None
    assert (info.judge_tokens_limit, info.judge_tokens_used, info.judge_tokens_refused) == (40, 45, 2)
    assert info.judge_calls_limit is None
    assert service.activity("c").failures == {"judge_budget": 2}


def test_the_token_budget_spares_the_user_simulator_and_restarts_with_each_run():
    service = JudgeService(providers=CostlyProviders(), max_tokens=0)
    outcomes = asyncio.run(_one_at_a_time(service, 3, criterion="user_simulator"))
    assert not any(isinstance(o, Exception) for o in outcomes) and service.tokens_spent == 0
    asyncio.run(_one_at_a_time(service, 1))
    assert service.tokens_refused == 1
    service.begin_run()
    assert (service.tokens_spent, service.tokens_refused) == (0, 0)
    assert JudgeService(providers=CostlyProviders()).budget_info() is None


@settings(max_examples=40, deadline=None)
@given(limit=st.integers(0, 200), calls=st.integers(0, 20))
def test_one_call_at_a_time_overshoots_the_token_budget_by_less_than_one_call(limit, calls):
    service = JudgeService(providers=CostlyProviders(), max_tokens=limit)
    outcomes = asyncio.run(_one_at_a_time(service, calls))
    answered = sum(not isinstance(o, Exception) for o in outcomes)
    assert answered == min(calls, -(-limit // 15))
    assert service.tokens_spent == 15 * answered and service.tokens_spent < limit + 15
    assert service.tokens_refused == calls - answered


def test_calls_that_waited_while_the_tokens_ran_out_do_not_start_and_cost_no_call():
    """Five calls queued behind a limit of one: the first uses the whole token budget, the
    four that waited are refused when they get their slot, and --judge-budget is charged
    only for the call that was made."""
    service = JudgeService(providers=CostlyProviders(), max_tokens=15, budget=10, concurrency=1)
    outcomes = asyncio.run(_calls(service, 5))
    assert sum(not isinstance(o, Exception) for o in outcomes) == 1
    assert all(o.code == "judge_budget" for o in outcomes if isinstance(o, JudgeUnavailable))
    info = service.budget_info()
    assert info is not None
    assert (info.judge_calls_used, info.judge_tokens_used, info.judge_tokens_refused) == (1, 15, 4)
