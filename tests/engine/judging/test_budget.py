"""The run's judge budget in ``JudgeService``: calls past it fail at once with
``judge_budget_exhausted``; cache hits and the user simulator are not charged."""

from __future__ import annotations

import asyncio

import pytest
from agenteval import JudgeOptions, JudgeRequest, JudgeResponse, JudgeService
from agenteval._judging._provider import JudgeModel
from agenteval.errors import JudgeUnavailable


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
    assert len(refused) == 2 and all(o.code == "judge_budget_exhausted" for o in refused)
    assert service.spent == 3 and service.refused == 2
    assert service.activity("c").failures == {"judge_budget_exhausted": 2}


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
