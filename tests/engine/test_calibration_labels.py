"""The labels file's one writer (``HumanLabel.to_json``) against its reader (``read_labels``)."""

from __future__ import annotations

import json

from agenteval.calibration import HumanLabel, read_labels
from hypothesis import given
from hypothesis import strategies as st

_TEXT = st.text(min_size=1, max_size=20).filter(lambda t: t.strip() == t and t)

_LABELS = st.builds(
    HumanLabel,
    eval_id=_TEXT,
    criterion=_TEXT,
    passed=st.booleans(),
    line=st.just(1),
    invocation_id=st.none() | _TEXT,
    score=st.none() | st.floats(0, 1),
    note=st.none() | _TEXT,
)


@given(_LABELS)
def test_a_label_written_with_to_json_reads_back_the_same(tmp_path_factory, label):
    path = tmp_path_factory.mktemp("labels") / "labels.jsonl"
    path.write_text(json.dumps(label.to_json()) + "\n", encoding="utf-8")
    assert read_labels(path) == [label]


def test_to_json_writes_the_documented_keys_and_leaves_unset_ones_out():
    label = HumanLabel(eval_id="c1", criterion="judge", passed=False, line=3, note="too long")
    assert label.to_json() == {"eval_id": "c1", "criterion": "judge", "label": "fail", "note": "too long"}
