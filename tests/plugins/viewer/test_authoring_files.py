# ruff: noqa: E501
"""The eval-set file layer of the authoring screens: load with the engine's loader, save
keeping the file's spelling, key order and formatting, refuse concurrent edits, write
atomically, and map the loader's errors to fields."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from agenteval_viewer._authoring_guard import WriteGuard
from agenteval_viewer._evalset_files import CaseExists, Conflict, EditRefused, EvalSetFiles, Invalid

CAMEL = """{
  "eval_set_id": "trips",
  "name": "Trips",
  "eval_cases": [
    {
      "evalId": "weather",
      "conversation": [
        {
          "invocationId": "i1",
          "userContent": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
          "finalResponse": {"role": "model", "parts": [{"text": "Sunny."}]},
          "intermediateData": {"toolUses": [{"name": "get_weather", "args": {"city": "Paris", "dayOfWeek": "mon"}}]}
        }
      ],
      "sessionInput": {"appName": "travel", "userId": "u", "state": {"userTier": "gold"}}
    },
    {
      "evalId": "flight",
      "conversation": [
        {"userContent": {"role": "user", "parts": [{"text": "A flight?"}]}}
      ]
    }
  ]
}
"""


@pytest.fixture
def files(tmp_path: Path) -> EvalSetFiles:
    (tmp_path / "trips.evalset.json").write_text(CAMEL, encoding="utf-8")
    return EvalSetFiles(WriteGuard([tmp_path]))


def _case(loaded: dict, case_id: str) -> dict:
    return copy.deepcopy(next(c for c in loaded["cases"] if c["eval_id"] == case_id))


def test_load_gives_snake_case_cases_and_the_files_spelling(files: EvalSetFiles) -> None:
    loaded = files.load(0, "trips.evalset.json")
    assert loaded["spelling"] == "camelCase" and loaded["editable"]
    weather = _case(loaded, "weather")
    assert weather["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"] == {
        "city": "Paris",
        "dayOfWeek": "mon",  # free-form data keeps its keys
    }
    assert weather["session_input"]["state"] == {"userTier": "gold"}


def test_an_edit_rewrites_only_that_case_in_the_files_spelling_and_order(
    files: EvalSetFiles, tmp_path: Path
) -> None:
    loaded = files.load(0, "trips.evalset.json")
    case = _case(loaded, "weather")
    case["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["city"] = "Lyon"
    case["rubrics"] = [{"rubric_id": "r1", "rubric_content": {"text_property": "Names the city."}}]
    out = files.save(
        0,
        "trips.evalset.json",
        loaded["sha256"],
        [{"op": "put_case", "case_id": "weather", "case": case}],
        preview=False,
    )
    assert out.written and out.changed
    text = (tmp_path / "trips.evalset.json").read_text()
    data = json.loads(text)
    weather, flight = data["eval_cases"]
    assert list(weather) == ["evalId", "conversation", "sessionInput", "rubrics"]  # order kept, new key last
    assert weather["rubrics"] == [{"rubricId": "r1", "rubricContent": {"textProperty": "Names the city."}}]
    assert weather["conversation"][0]["intermediateData"]["toolUses"][0]["args"] == {
        "city": "Lyon",
        "dayOfWeek": "mon",
    }
    # the other case and the top of the file are byte for byte as they were
    assert '{"userContent": {"role": "user", "parts": [{"text": "A flight?"}]}}' in text
    assert text.startswith('{\n  "eval_set_id": "trips",\n  "name": "Trips",\n')
    assert "-" in out.diff and "+" in out.diff and "Lyon" in out.diff


def test_a_save_that_changes_nothing_writes_nothing(files: EvalSetFiles, tmp_path: Path) -> None:
    path = tmp_path / "trips.evalset.json"
    before = path.stat().st_mtime_ns
    loaded = files.load(0, "trips.evalset.json")
    edits = [{"op": "put_case", "case_id": c["eval_id"], "case": c} for c in loaded["cases"]]
    out = files.save(0, "trips.evalset.json", loaded["sha256"], edits, preview=False)
    assert not out.changed and not out.written and out.diff == ""
    assert path.read_text() == CAMEL and path.stat().st_mtime_ns == before


def test_preview_shows_the_diff_and_writes_nothing(files: EvalSetFiles, tmp_path: Path) -> None:
    loaded = files.load(0, "trips.evalset.json")
    out = files.save(
        0, "trips.evalset.json", loaded["sha256"], [{"op": "delete_case", "case_id": "flight"}], preview=True
    )
    assert out.changed and not out.written and '-      "evalId": "flight",' in out.diff
    assert (tmp_path / "trips.evalset.json").read_text() == CAMEL
    assert [p.name for p in tmp_path.iterdir()] == ["trips.evalset.json"]  # no temporary file left


def test_a_file_changed_on_disk_since_loading_is_a_conflict_with_the_diff(
    files: EvalSetFiles, tmp_path: Path
) -> None:
    loaded = files.load(0, "trips.evalset.json")
    (tmp_path / "trips.evalset.json").write_text(CAMEL.replace("Sunny.", "Rainy."))
    with pytest.raises(Conflict) as caught:
        files.save(
            0,
            "trips.evalset.json",
            loaded["sha256"],
            [{"op": "delete_case", "case_id": "flight"}],
            preview=False,
        )
    assert "-" in caught.value.diff and "Rainy." in caught.value.diff and "Sunny." in caught.value.diff
    assert "Rainy." in (tmp_path / "trips.evalset.json").read_text()


def test_an_invalid_edit_is_refused_by_the_engines_loader_at_the_field(
    files: EvalSetFiles, tmp_path: Path
) -> None:
    loaded = files.load(0, "trips.evalset.json")
    case = _case(loaded, "flight")
    case["conversation"][0]["user_content"]["role"] = "bot"
    case["conversation"][0]["bogus"] = 1
    with pytest.raises(Invalid) as caught:
        files.save(
            0,
            "trips.evalset.json",
            loaded["sha256"],
            [{"op": "put_case", "case_id": "flight", "case": case}],
            preview=False,
        )
    fields = {(e["case_index"], e["field"]) for e in caught.value.errors}
    assert (1, "conversation[0].user_content.role") in fields and (1, "conversation[0].bogus") in fields
    assert str(tmp_path) not in str(caught.value)  # the temporary file's name is not shown
    assert (tmp_path / "trips.evalset.json").read_text() == CAMEL
    assert [p.name for p in tmp_path.iterdir()] == ["trips.evalset.json"]


def test_saving_over_another_case_asks_first(files: EvalSetFiles) -> None:
    loaded = files.load(0, "trips.evalset.json")
    new = {
        "eval_id": "flight",
        "conversation": [{"user_content": {"role": "user", "parts": [{"text": "hi"}]}}],
    }
    with pytest.raises(CaseExists):
        files.save(0, "trips.evalset.json", loaded["sha256"], [{"op": "put_case", "case": new}], preview=True)
    out = files.save(
        0,
        "trips.evalset.json",
        loaded["sha256"],
        [{"op": "put_case", "case": new, "overwrite": True}],
        preview=False,
    )
    assert out.written
    assert [c["eval_id"] for c in files.load(0, "trips.evalset.json")["cases"]] == ["weather", "flight"]


@pytest.mark.parametrize("bad", ["", "a b", "x,y", "f:c", "-x", "é"])
def test_case_ids_follow_our_rules(files: EvalSetFiles, bad: str) -> None:
    loaded = files.load(0, "trips.evalset.json")
    new = {"eval_id": bad, "conversation": []}
    with pytest.raises(EditRefused, match="case id"):
        files.save(0, "trips.evalset.json", loaded["sha256"], [{"op": "put_case", "case": new}], preview=True)


def test_a_new_eval_set_is_written_as_adk_writes_it(files: EvalSetFiles, tmp_path: Path) -> None:
    new = {
        "eval_id": "hello",
        "conversation": [{"user_content": {"role": "user", "parts": [{"text": "hi"}]}}],
        "session_input": {"app_name": "travel", "user_id": "u", "state": {"tier": "gold"}},
    }
    out = files.save(
        0,
        "fresh.evalset.json",
        None,
        [{"op": "put_case", "case": new}],
        preview=False,
        new_set={"eval_set_id": "fresh", "name": "Fresh"},
    )
    assert out.written
    text = (tmp_path / "fresh.evalset.json").read_text()
    assert text.startswith(
        '{\n  "eval_set_id": "fresh",\n  "name": "Fresh",\n  "eval_cases": [\n    {\n      "eval_id": "hello",'
    )
    with pytest.raises(EditRefused, match="already exists"):
        files.save(0, "fresh.evalset.json", None, [], preview=True, new_set={"eval_set_id": "fresh"})
    with pytest.raises(EditRefused, match="letters, digits and '_'"):
        files.save(0, "bad-id.evalset.json", None, [], preview=True, new_set={"eval_set_id": "bad-id"})
    adk = pytest.importorskip("google.adk.evaluation.eval_set")
    parsed = adk.EvalSet.model_validate_json(text)
    assert parsed.eval_cases[0].session_input.state == {"tier": "gold"}


def test_deleting_cases_keeps_the_rest_as_it_was(files: EvalSetFiles, tmp_path: Path) -> None:
    loaded = files.load(0, "trips.evalset.json")
    files.save(
        0,
        "trips.evalset.json",
        loaded["sha256"],
        [{"op": "delete_case", "case_id": "weather"}],
        preview=False,
    )
    text = (tmp_path / "trips.evalset.json").read_text()
    assert json.loads(text)["eval_cases"] == json.loads(CAMEL)["eval_cases"][1:]
    loaded = files.load(0, "trips.evalset.json")
    files.save(
        0, "trips.evalset.json", loaded["sha256"], [{"op": "delete_case", "case_id": "flight"}], preview=False
    )
    assert json.loads((tmp_path / "trips.evalset.json").read_text())["eval_cases"] == []
    loaded = files.load(0, "trips.evalset.json")
    new = {"eval_id": "again", "conversation": []}
    files.save(0, "trips.evalset.json", loaded["sha256"], [{"op": "put_case", "case": new}], preview=False)
    assert files.load(0, "trips.evalset.json")["cases"] == [{"eval_id": "again", "conversation": []}]


def test_a_legacy_list_file_is_shown_but_not_edited(tmp_path: Path) -> None:
    (tmp_path / "old.test.json").write_text(
        json.dumps([{"query": "hi", "expected_tool_use": [], "reference": "hello"}])
    )
    files = EvalSetFiles(WriteGuard([tmp_path]))
    loaded = files.load(0, "old.test.json")
    assert not loaded["editable"] and loaded["cases"][0]["eval_id"] == "old"
    with pytest.raises(EditRefused, match="agenteval migrate"):
        files.save(
            0, "old.test.json", loaded["sha256"], [{"op": "delete_case", "case_id": "old"}], preview=True
        )


def test_listing_finds_eval_files_and_skips_tool_folders(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.evalset.json").write_text("{}")
    (tmp_path / ".agenteval").mkdir()
    (tmp_path / ".agenteval" / "y.evalset.json").write_text("{}")
    (tmp_path / "z.test.json").write_text("{}")
    (tmp_path / "notes.json").write_text("{}")
    listed = EvalSetFiles(WriteGuard([tmp_path])).list()
    assert [f["path"] for f in listed] == ["z.test.json", "a/x.evalset.json"]


REAL = Path("/work/shared/real-evalsets")


def test_real_adk_files_round_trip_unchanged(tmp_path: Path) -> None:
    if not REAL.is_dir():
        pytest.skip("the real eval sets are not on this machine")
    checked = 0
    for source in sorted(REAL.rglob("*.json")):
        if not source.name.endswith((".evalset.json", ".test.json")) or source.stat().st_size > 2_000_000:
            continue
        target = tmp_path / f"f{checked}.evalset.json"
        target.write_bytes(source.read_bytes())
        files = EvalSetFiles(WriteGuard([tmp_path]))
        try:
            loaded = files.load(0, target.name)
        except Invalid:
            continue
        if not loaded["editable"]:
            continue
        edits = [{"op": "put_case", "case_id": c["eval_id"], "case": c} for c in loaded["cases"]]
        try:
            out = files.save(0, target.name, loaded["sha256"], edits, preview=True)
        except EditRefused:  # ids the UI would not create
            continue
        assert not out.changed, source
        checked += 1
    assert checked > 0


def test_a_scenario_case_is_created_and_edited(files: EvalSetFiles, tmp_path: Path) -> None:
    loaded = files.load(0, "trips.evalset.json")
    scenario = {
        "eval_id": "sim",
        "conversation_scenario": {
            "starting_prompt": "Hi",
            "conversation_plan": "Ask for a flight.",
            "user_persona": "NOVICE",
        },
    }
    files.save(
        0, "trips.evalset.json", loaded["sha256"], [{"op": "put_case", "case": scenario}], preview=False
    )
    loaded = files.load(0, "trips.evalset.json")
    case = _case(loaded, "sim")
    case["conversation_scenario"]["conversation_plan"] = "Ask for a flight, then stop."
    files.save(
        0,
        "trips.evalset.json",
        loaded["sha256"],
        [{"op": "put_case", "case_id": "sim", "case": case}],
        preview=False,
    )
    written = json.loads((tmp_path / "trips.evalset.json").read_text())["eval_cases"][2]
    assert written == {
        "evalId": "sim",  # the file's spelling
        "conversationScenario": {
            "startingPrompt": "Hi",
            "conversationPlan": "Ask for a flight, then stop.",
            "userPersona": "NOVICE",
        },
    }


def test_a_new_eval_set_can_go_to_any_folder_under_the_eval_set_folders(
    files: EvalSetFiles, tmp_path: Path
) -> None:
    (tmp_path / "suites" / "travel").mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    (tmp_path / "node_modules").mkdir()
    folders = [f["path"] for f in files.folders()]
    assert folders == ["", "suites", "suites/travel"]  # hidden and tool folders left out
    out = files.save(
        0, "suites/travel/fresh.evalset.json", None, [], preview=False, new_set={"eval_set_id": "fresh"}
    )
    assert out.written and (tmp_path / "suites" / "travel" / "fresh.evalset.json").is_file()


DATASET = (
    Path(__file__).parents[1]
    / "agent_platform"
    / "fixtures"
    / "shop_agent"
    / "tests"
    / "eval"
    / "datasets"
    / "orders-dataset.json"
)


@pytest.fixture
def datasets(tmp_path: Path) -> EvalSetFiles:
    (tmp_path / "orders-dataset.json").write_text(DATASET.read_text(encoding="utf-8"), encoding="utf-8")
    return EvalSetFiles(WriteGuard([tmp_path]))


def test_an_installed_formats_eval_files_are_listed_and_open_editable(
    datasets: EvalSetFiles, tmp_path: Path
) -> None:
    (tmp_path / "rows-dataset.jsonl").write_text('{"prompt": "hi", "response": "hello"}\n', encoding="utf-8")
    assert {f["path"] for f in datasets.list()} == {"orders-dataset.json", "rows-dataset.jsonl"}
    loaded = datasets.load(0, "orders-dataset.json")
    assert (loaded["format"], loaded["editable"], loaded["eval_set_id"]) == ("agent-platform", True, "orders")
    assert [c["eval_id"] for c in loaded["cases"]] == ["opening_hours", "order_status", "return_follow_up"]
    rows = datasets.load(0, "rows-dataset.jsonl")  # a table form: the writer writes JSON, so read-only
    assert (rows["format"], rows["editable"]) == ("agent-platform", False)


def test_a_dataset_case_is_saved_by_the_formats_writer_and_the_rest_stays(
    datasets: EvalSetFiles, tmp_path: Path
) -> None:
    from agenteval._loading import read_eval_file

    path = tmp_path / "orders-dataset.json"
    before = json.loads(path.read_text())
    loaded = datasets.load(0, "orders-dataset.json")
    case = _case(loaded, "opening_hours")
    case["conversation"][0]["final_response"]["parts"][0]["text"] = "It opens at 11:00."
    new = {
        "eval_id": "gift_wrap",
        "conversation": [{"user_content": {"role": "user", "parts": [{"text": "Gift wrap?"}]}}],
    }
    edits = [
        {"op": "put_case", "case_id": "opening_hours", "case": case},
        {"op": "put_case", "case": new},
        {"op": "delete_case", "case_id": "order_status"},
    ]
    out = datasets.save(0, "orders-dataset.json", loaded["sha256"], edits, preview=False)
    assert out.written
    assert any("responses not written by the agent-platform writer" in w for w in out.warnings)
    data = json.loads(path.read_text())
    hours, follow_up, gift = data["eval_cases"]
    assert hours == {
        "eval_case_id": "opening_hours",
        "prompt": before["eval_cases"][0]["prompt"],
        "reference": {"response": {"role": "model", "parts": [{"text": "It opens at 11:00."}]}},
    }
    assert follow_up == before["eval_cases"][2]  # untouched, its recorded response kept
    assert gift["eval_case_id"] == "gift_wrap" and gift["prompt"]["parts"] == [{"text": "Gift wrap?"}]
    reread = read_eval_file(path)
    assert reread.format == "agent-platform"
    assert [c.eval_id for c in reread.eval_set.eval_cases] == [
        "opening_hours",
        "return_follow_up",
        "gift_wrap",
    ]
    assert [p.name for p in tmp_path.iterdir()] == ["orders-dataset.json"]  # no temporary copy left


def test_saving_a_dataset_case_unchanged_keeps_its_text_and_recording(
    datasets: EvalSetFiles, tmp_path: Path
) -> None:
    loaded = datasets.load(0, "orders-dataset.json")
    edits = [{"op": "put_case", "case_id": c["eval_id"], "case": c} for c in loaded["cases"]]
    out = datasets.save(0, "orders-dataset.json", loaded["sha256"], edits, preview=False)
    assert not out.changed and not out.written
    assert (tmp_path / "orders-dataset.json").read_text() == DATASET.read_text()


def test_an_invalid_dataset_case_is_refused_and_nothing_is_written(
    datasets: EvalSetFiles, tmp_path: Path
) -> None:
    path = tmp_path / "orders-dataset.json"
    loaded = datasets.load(0, "orders-dataset.json")
    case = _case(loaded, "opening_hours")
    case["conversation"][0]["user_content"]["role"] = "bot"
    with pytest.raises(Invalid, match="role"):
        datasets.save(
            0,
            "orders-dataset.json",
            loaded["sha256"],
            [{"op": "put_case", "case_id": "opening_hours", "case": case}],
            preview=False,
        )
    assert path.read_text() == DATASET.read_text()
