"""Properties of the verdict rules' judge accounting (``agenteval._verdicts``): activity
summed per judge model, and the judge cost at configured prices."""

from __future__ import annotations

import math

from agenteval._results import JudgeActivity, ModelUsage
from agenteval._verdicts import judge_cost, sum_activity
from hypothesis import given
from hypothesis import strategies as st

_MODELS = ("m1", "m2", "m3")
_usage = st.builds(
    ModelUsage,
    calls=st.integers(0, 100),
    input_tokens=st.integers(0, 10**7),
    output_tokens=st.integers(0, 10**7),
)
_activity = st.dictionaries(st.sampled_from(_MODELS), _usage).map(
    lambda models: JudgeActivity(
        calls=sum(u.calls for u in models.values()),
        input_tokens=sum(u.input_tokens for u in models.values()),
        output_tokens=sum(u.output_tokens for u in models.values()),
        models=models,
    )
)
_price = st.fixed_dictionaries(
    {
        "input_per_mtok": st.floats(0, 100, allow_nan=False),
        "output_per_mtok": st.floats(0, 100, allow_nan=False),
    }
)
_prices = st.dictionaries(st.sampled_from(_MODELS), _price, min_size=1)


@given(st.lists(_activity, min_size=1, max_size=5))
def test_summed_activity_keeps_each_models_counts_and_the_totals(activities):
    summed = sum_activity(activities)
    assert summed is not None
    for name in _MODELS:
        parts = [a.models[name] for a in activities if name in a.models]
        if not parts:
            assert name not in summed.models
            continue
        assert summed.models[name].calls == sum(u.calls for u in parts)
        assert summed.models[name].input_tokens == sum(u.input_tokens for u in parts)
    assert summed.input_tokens == sum(u.input_tokens for u in summed.models.values())


@given(_activity, _prices)
def test_the_cost_is_the_priced_models_sum_and_no_model_is_free_by_omission(activity, prices):
    cost = judge_cost(activity, prices)
    assert cost is not None
    assert set(cost.by_model) | set(cost.unpriced) == set(activity.models)
    assert set(cost.unpriced) == set(activity.models) - set(prices)
    assert math.isclose(cost.total, math.fsum(cost.by_model.values()))
    for name, amount in cost.by_model.items():
        usage, price = activity.models[name], prices[name]
        expected = (
            usage.input_tokens * price["input_per_mtok"] + usage.output_tokens * price["output_per_mtok"]
        ) / 1e6
        assert math.isclose(amount, expected, rel_tol=1e-12, abs_tol=1e-12) and amount >= 0


def test_no_prices_or_no_activity_give_no_cost():
    assert judge_cost(JudgeActivity(), {}) is None
    assert judge_cost(None, {"m1": {"input_per_mtok": 1.0, "output_per_mtok": 1.0}}) is None
