"""Human labels from the case drawer: the labels file ``agenteval calibrate`` reads, written by
``_labels.LabelsFile`` and served by the labelling route (``_labels_api``)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import agenteval_viewer_server_test_helpers as helpers
import pytest
from agenteval.calibration import HumanLabel, read_labels
from agenteval_viewer._labels import LabelRefused, LabelsFile
from agenteval_viewer._labels_api import Labelling


def _label(case: str, verdict: str = "pass", criterion: str = "judge", note=None) -> HumanLabel:
    return HumanLabel(eval_id=case, criterion=criterion, passed=verdict == "pass", line=0, note=note)


def test_a_label_is_appended_replaced_in_place_and_removed_and_other_lines_stay(tmp_path):
    path = tmp_path / "labels.jsonl"
    hand_written = '{"criterion": "other", "eval_id": "c0", "label": "fail"}'
    path.write_text(hand_written + "\n", encoding="utf-8")
    labels = LabelsFile(path)
    labels.put(("c1", "judge", None), _label("c1"))
    labels.put(("c2", "judge", None), _label("c2", "fail", note="wrong city"))
    labels.put(("c1", "judge", None), _label("c1", "fail"))
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == hand_written  # byte for byte
    assert [json.loads(line) for line in lines[1:]] == [
        {"eval_id": "c1", "criterion": "judge", "label": "fail"},
        {"eval_id": "c2", "criterion": "judge", "label": "fail", "note": "wrong city"},
    ]
    assert [label.key for label in read_labels(path)] == [
        ("c0", "other", None),
        ("c1", "judge", None),
        ("c2", "judge", None),
    ]
    after = labels.put(("c1", "judge", None), None)
    assert [label.eval_id for label in after] == ["c0", "c2"]


def test_concurrent_writers_lose_no_label(tmp_path):
    """Sixteen threads, each with its own ``LabelsFile`` (as two viewers would be), label one
    case each at the same time: every label is in the file once."""
    path = tmp_path / "labels.jsonl"
    start = threading.Barrier(16)

    def label(number: int) -> None:
        start.wait()
        LabelsFile(path).put((f"c{number}", "judge", None), _label(f"c{number}"))

    threads = [threading.Thread(target=label, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(label.eval_id for label in read_labels(path)) == sorted(f"c{n}" for n in range(16))


@pytest.mark.skipif(
    os.name != "posix" or os.geteuid() == 0, reason="needs a POSIX user that permissions bind"
)
def test_a_read_only_run_folder_is_refused_with_the_way_out(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        labels = LabelsFile(folder / "labels.jsonl")
        assert "read-only" in (labels.writable() or "")
        with pytest.raises(LabelRefused) as refused:
            labels.put(("c1", "judge", None), _label("c1"))
        assert refused.value.status == 403
        assert "is read-only" in str(refused.value) and "--labels FILE" in str(refused.value)
        assert not (folder / "labels.jsonl").exists()
    finally:
        folder.chmod(0o755)


def test_a_folder_the_viewer_may_not_write_is_refused_even_for_root(tmp_path, monkeypatch):
    """(root passes every permission check: what ``os.access`` answers is what counts.)"""
    from agenteval_viewer import _labels

    monkeypatch.setattr(_labels.os, "access", lambda path, mode: not mode & os.W_OK)
    with pytest.raises(LabelRefused) as refused:
        LabelsFile(tmp_path / "labels.jsonl").put(("c1", "judge", None), _label("c1"))
    assert refused.value.status == 403 and "is read-only" in str(refused.value)
    assert not (tmp_path / "labels.jsonl").exists()


def test_a_labels_file_broken_by_hand_is_named_and_never_overwritten(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text('{"eval_id": "c1", "criterion": "judge", "label": "maybe"}\n', encoding="utf-8")
    with pytest.raises(LabelRefused) as refused:
        LabelsFile(path).put(("c2", "judge", None), _label("c2"))
    assert refused.value.status == 409
    assert f"{path}:1:1" in str(refused.value) and "'label' must be" in str(refused.value)
    assert "maybe" in path.read_text(encoding="utf-8")


# -- the route ------------------------------------------------------------------------------


@pytest.fixture
def runs(runs_dir, tmp_path):
    """A copy of the module's runs folder, for this test's labels alone."""
    import shutil

    return shutil.copytree(runs_dir, tmp_path / "runs")


@pytest.fixture
def labelled_server(runs):
    with helpers.serving(runs, labelling=Labelling(token="t0ken")) as server:
        yield server


def _post(server, run_id: str, body: object, token: str = "t0ken", **headers: str):
    data = json.dumps(body).encode()
    return helpers.request(
        server,
        f"/api/runs/{run_id}/labels",
        "POST",
        {"Content-Type": "application/json", "X-Agenteval-Token": token, **headers},
        data,
    )


def test_the_route_writes_the_run_folders_labels_file_and_reads_it_back(labelled_server, runs, run_ids):
    run_id = run_ids[0]
    status, _, body = helpers.request(labelled_server, "/api/capabilities")
    assert json.loads(body)["labels"] == {"token": "t0ken", "file": None}
    status, _, body = _post(labelled_server, run_id, {"eval_id": "c1", "criterion": "judge", "label": "fail"})
    assert status == 200, body
    answer = json.loads(body)
    path = Path(answer["file"])
    assert path == (runs / run_id / "labels.jsonl").absolute()
    assert answer["labels"] == [{"eval_id": "c1", "criterion": "judge", "label": "fail"}]
    assert answer["writable"] is True and answer["refused"] is None
    assert answer["calibrate"] == f"agenteval calibrate {(runs / run_id).absolute()} --labels {path}"
    status, _, body = helpers.request(labelled_server, f"/api/runs/{run_id}/labels")
    assert status == 200 and json.loads(body)["labels"] == answer["labels"]


@pytest.mark.parametrize(
    ("token", "headers", "message"),
    [
        ("", {}, "labelling needs the session's token"),
        ("wrong", {}, "wrong session token"),
        ("t0ken", {"Origin": "http://evil.example"}, "another origin"),
    ],
)
def test_a_write_without_the_token_or_from_another_origin_is_refused(
    labelled_server, runs, run_ids, token, headers, message
):
    label = {"eval_id": "c1", "criterion": "j", "label": "pass"}
    status, _, body = _post(labelled_server, run_ids[0], label, token, **headers)
    assert status == 403 and message in json.loads(body)["error"]
    assert not (runs / run_ids[0] / "labels.jsonl").exists()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"eval_id": "c1", "criterion": "j", "label": "maybe"}, "'label' must be"),
        ({"criterion": "j", "label": "pass"}, "'eval_id' must be a non-empty string"),
        (["not", "an", "object"], "send {"),
    ],
)
def test_a_bad_label_is_refused_with_what_to_send(labelled_server, run_ids, body, message):
    status, _, answer = _post(labelled_server, run_ids[0], body)
    assert status == 400 and message in json.loads(answer)["error"]


def test_without_labelling_the_route_does_not_exist_and_writes_stay_refused(runs, run_ids):
    with helpers.serving(runs) as server:
        _refused_without_labelling(server, run_ids[0])


def _refused_without_labelling(server, run_id: str) -> None:
    status, _, body = helpers.request(server, "/api/capabilities")
    assert "labels" not in json.loads(body)
    status, _, _ = _post(server, run_id, {"eval_id": "c1", "criterion": "j", "label": "pass"})
    assert status == 405
    status, _, _ = helpers.request(server, f"/api/runs/{run_id}/labels")
    assert status == 404


def test_view_labels_file_gets_every_runs_labels(runs, run_ids, tmp_path):
    labels = tmp_path / "all.jsonl"
    with helpers.serving(runs, labelling=Labelling(labels, token="t0ken")) as server:
        for run_id, case in zip(run_ids[:2], ("c1", "c2"), strict=True):
            status, _, body = _post(server, run_id, {"eval_id": case, "criterion": "j", "label": "pass"})
            assert status == 200, body
    assert [label.eval_id for label in read_labels(labels)] == ["c1", "c2"]
