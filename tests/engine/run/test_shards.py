"""``--shard I/N``: the shards of a plan are its partition, stable across machines."""

from __future__ import annotations

import dataclasses
import random

import pytest
from agenteval._run import Plan, PlannedSet
from agenteval._run._shards import parse_shard, shard_of, shard_plan
from agenteval.errors import ConfigError
from hypothesis import given, settings
from hypothesis import strategies as st

_IDS = st.text(min_size=1, max_size=12)
_SETS = st.lists(st.tuples(_IDS, st.lists(_IDS, unique=True, max_size=30)), min_size=1, max_size=4)


def _plan(sets: list[tuple[str, list[str]]], **more) -> Plan:
    return Plan(
        sets=tuple(
            PlannedSet(index=i, eval_set_id=set_id, case_ids=tuple(ids), criteria=(), entries=(), sha256="x")
            for i, (set_id, ids) in enumerate(sets)
        ),
        **more,
    )


@settings(max_examples=150, deadline=None)
@given(sets=_SETS, count=st.integers(min_value=1, max_value=9))
def test_the_shards_of_a_plan_are_its_partition_in_plan_order(sets, count):
    plan = _plan(sets)
    shards = [shard_plan(plan, index, count) for index in range(1, count + 1)]
    for set_index, (_, ids) in enumerate(sets):
        sliced = [shard.sets[set_index].case_ids for shard in shards]
        together = [case for part in sliced for case in part]
        assert sorted(together) == sorted(ids)  # the union is the plan, nothing twice
        assert len(together) == len(set(together))
        for part in sliced:  # each shard keeps the plan's order
            assert list(part) == [c for c in ids if c in set(part)]
    for shard in shards:
        assert shard.shard.plan_fingerprint == plan.fingerprint()
        assert [list(ids) for ids in shard.shard.plan_case_ids] == [ids for _, ids in sets]
    assert len({shard.fingerprint() for shard in shards}) == count  # each resumes only itself


@settings(max_examples=100, deadline=None)
@given(sets=_SETS, count=st.integers(min_value=1, max_value=9), seed=st.integers(0, 1000))
def test_a_case_s_shard_depends_on_its_ids_and_n_only_never_on_order_or_position(sets, count, seed):
    plan = _plan(sets)
    shuffled = [(set_id, random.Random(seed).sample(ids, len(ids))) for set_id, ids in reversed(sets)]
    moved = _plan(shuffled)

    def where(p: Plan) -> dict:
        return {
            (s.eval_set_id, c): index
            for index in range(1, count + 1)
            for s in shard_plan(p, index, count).sets
            for c in s.case_ids
        }

    assert where(plan) == where(moved)


def test_the_documented_rule_gives_these_shards():
    """The rule docs/scale-out.md states, pinned: a change would move cases between shards
    (and mix shards of two engine versions)."""
    import hashlib

    for case in ("a", "weather_paris", "é"):
        digest = hashlib.sha256(f"shop\0{case}".encode()).digest()
        assert shard_of("shop", case, 5) == int.from_bytes(digest[:8], "big") % 5 + 1


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", "", "1/2/3"])
def test_a_bad_shard_is_refused_with_how_to_write_it(text):
    with pytest.raises(ConfigError, match=r"give I/N, the shard I of N counted from 1.*JOB_COMPLETION_INDEX"):
        parse_shard(text)


@pytest.mark.parametrize(("text", "parsed"), [("1/1", (1, 1)), ("2/4", (2, 4)), (" 3 / 7 ", (3, 7))])
def test_a_shard_is_read(text, parsed):
    assert parse_shard(text) == parsed


def test_a_budget_over_the_whole_plan_cannot_be_sharded():
    plan = dataclasses.replace(_plan([("s", ["a", "b"])]), looks=(3, 6), num_runs=6, run_budget=10)
    with pytest.raises(ConfigError, match="--shard cannot be combined with --run-budget"):
        shard_plan(plan, 1, 2)
