"""A live run's index patches (``GET index?since=``): the whole index carries the cursor taken
before it was built, each patch the rows appended since and the next cursor."""

from __future__ import annotations

import json

import agenteval_viewer_server_test_helpers as helpers
from agenteval.runs import RecordedRun, complete_end
from agenteval_viewer._index_patch import PATCH_SCHEMA
from agenteval_viewer._store import RunStore


def test_a_running_runs_patch_has_only_the_rows_appended_since_the_cursor(tmp_path, runs_dir, run_ids):
    live = helpers.LiveRun(tmp_path / "live", RecordedRun.open(runs_dir / run_ids[0]))
    try:
        store = RunStore(live.folder.parent)
        whole = json.loads(store.index(live.run_id).plain())
        assert whole["cursor"] == 0 and whole["n"] == 3
        live.append()
        live.append()
        patch = json.loads(store.index_since(live.run_id, whole["cursor"]).plain())
        assert patch["schema"] == PATCH_SCHEMA and patch["rows"] == [0, 1]
        again = json.loads(store.index(live.run_id).plain())  # the whole index, for comparison
        assert patch["status"] == again["status"][:2] and patch["search"] == again["search"][:2]
        for name, columns in again["by_criterion"].items():
            assert patch["by_criterion"][name]["score"] == columns["score"][:2]
            assert patch["by_criterion"][name]["reason_code"] == {
                k: v for k, v in columns["reason_code"].items() if k in ("0", "1")
            }
        assert patch["cursor"] == complete_end(live.folder / "results.jsonl") == again["cursor"]
        live.append()
        later = json.loads(store.index_since(live.run_id, patch["cursor"]).plain())
        assert later["rows"] == [2] and later["since"] == patch["cursor"]
        nothing = json.loads(store.index_since(live.run_id, later["cursor"]).plain())
        assert nothing["rows"] == [] and nothing["status"] == []
        # a cursor past the end (the file got shorter): the whole index
        past = json.loads(store.index_since(live.run_id, 10**9).plain())
        assert past["schema"] != PATCH_SCHEMA and past["n"] == 3
        live.finish()
        done = json.loads(store.index_since(live.run_id, later["cursor"]).plain())
        assert done["schema"] != PATCH_SCHEMA and done["n"] == 3  # a finished run: the whole index
    finally:
        live.close()


def test_the_server_answers_since_with_a_patch(tmp_path, runs_dir, run_ids):
    live = helpers.LiveRun(tmp_path / "live", RecordedRun.open(runs_dir / run_ids[0]))
    try:
        with helpers.serving(live.folder.parent) as server:
            status, whole = helpers.get_json(server, f"/api/runs/{live.run_id}/index")
            assert status == 200
            live.append()
            status, patch = helpers.get_json(server, f"/api/runs/{live.run_id}/index?since={whole['cursor']}")
            assert status == 200 and patch["schema"] == PATCH_SCHEMA and patch["rows"] == [0]
    finally:
        live.close()
