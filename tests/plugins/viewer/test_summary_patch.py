"""A live run's summary patches (``GET summary?since=<version>``): each summary of a running
run carries its ``version``; a patch holds only the top-level keys and criterion keys that
changed since the summary of that version, and applied to it gives the summary now."""

from __future__ import annotations

import copy
import json

import agenteval_viewer_server_test_helpers as helpers
from agenteval.runs import RecordedRun
from agenteval_viewer._store import RunStore
from agenteval_viewer._summary_patch import SUMMARY_PATCH_SCHEMA, summary_patch
from hypothesis import given
from hypothesis import strategies as st


def applied(summary: dict, patch: dict) -> dict:
    """``patch`` applied to ``summary`` by the front end's rule (``live_summary.js``)."""
    if patch["schema"] != SUMMARY_PATCH_SCHEMA:
        return patch
    assert patch["since"] == summary["version"]
    after = {**summary, **patch["set"]}
    if "criteria" not in patch["set"]:
        after["criteria"] = [{**c, **patch["criteria"].get(c["name"], {})} for c in summary["criteria"]]
    return after


_values = st.one_of(
    st.none(), st.integers(0, 3), st.text(max_size=3), st.lists(st.integers(0, 2), max_size=2)
)
_entry = st.fixed_dictionaries({"a": _values, "b": _values})


@st.composite
def _summaries(draw):
    names = draw(st.lists(st.sampled_from("xyz"), unique=True, max_size=3))
    return {
        "run_id": "r",
        "version": draw(st.text("0123456789_", min_size=1, max_size=4)),
        "counts": draw(_values),
        "state": draw(_values),
        "criteria": [{"name": name, **draw(_entry)} for name in names],
    }


@given(_summaries(), _summaries())
def test_a_patch_applied_to_the_summary_it_starts_from_gives_the_later_one(before, after):
    patch = summary_patch(before, after, before["version"])
    assert applied(copy.deepcopy(before), patch) == after
    unchanged = [k for k in after if k != "criteria" and k in before and before[k] == after[k]]
    assert not set(unchanged) & set(patch["set"])  # only what changed is sent


def test_a_running_runs_summary_patch_has_only_what_changed(tmp_path, runs_dir, run_ids):
    live = helpers.LiveRun(tmp_path / "live", RecordedRun.open(runs_dir / run_ids[0]))
    try:
        store = RunStore(live.folder.parent)
        first = json.loads(store.summary(live.run_id).plain())
        assert first["version"] and first["verdict"] == "RUNNING"
        live.append()
        patch = json.loads(store.summary_since(live.run_id, first["version"]).plain())
        now = json.loads(store.summary(live.run_id).plain())
        assert patch["schema"] == SUMMARY_PATCH_SCHEMA and patch["version"] == now["version"]
        assert applied(first, patch) == now
        assert "cases_recorded" in patch["set"] and "engine_version" not in patch["set"]
        for changed in patch["criteria"].values():  # a criterion's configuration is never resent
            assert "threshold" not in changed and "distribution" not in changed and "counts" in changed
        assert len(json.dumps(patch)) < len(json.dumps(now)) / 2
        same = json.loads(store.summary_since(live.run_id, now["version"]).plain())
        assert same["set"] == {"version": now["version"]} or same["set"] == {} and same["criteria"] == {}
        # a version no longer kept (or made up): the whole summary
        assert json.loads(store.summary_since(live.run_id, "1_2").plain()) == now
        live.finish()
        done = json.loads(store.summary_since(live.run_id, now["version"]).plain())
        assert done.get("schema") != SUMMARY_PATCH_SCHEMA and done["state"] == "complete"
        assert "version" not in done  # a finished run's summary never changes: nothing to patch
    finally:
        live.close()


def test_the_server_answers_summary_since_with_a_patch(tmp_path, runs_dir, run_ids):
    live = helpers.LiveRun(tmp_path / "live", RecordedRun.open(runs_dir / run_ids[0]))
    try:
        with helpers.serving(live.folder.parent) as server:
            status, whole = helpers.get_json(server, f"/api/runs/{live.run_id}/summary")
            assert status == 200
            live.append()
            status, patch = helpers.get_json(
                server, f"/api/runs/{live.run_id}/summary?since={whole['version']}"
            )
            assert (
                status == 200
                and patch["schema"] == SUMMARY_PATCH_SCHEMA
                and patch["since"] == whole["version"]
            )
            status, bad = helpers.get_json(server, f"/api/runs/{live.run_id}/summary?since=x%22")
            assert status == 200 and bad["schema"] != SUMMARY_PATCH_SCHEMA  # not a version: the whole summary
    finally:
        live.close()
