"""A seeded file of many traces (sessions matched by case id, session id and first user text,
other apps' sessions, content in a logs file beside, findings; spans shuffled across JSONL lines
in mixed encodings) reads exactly as it did before the reader streamed and kept only the
selected cases' traces: ``--actual``, ``lint-trace`` and ``import-trace`` give the recorded
outputs (``fixtures/many_traces.golden.json``, written by the reader that held every span)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from agenteval.errors import DataError
from agenteval.models import EvalCase, Invocation
from agenteval_otel import OtelReader, _select
from agenteval_otel._golden import eval_set_from_trace
from agenteval_otel._lint_command import lint_trace
from agenteval_otel._otlp import Span, read_spans
from agenteval_otel._span import value_of
from agenteval_otel._turns import turns_of

from tests.plugins.otel._encode import encode_span, split_logs

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = FIXTURES / "many_traces.golden.json"
SOURCES = (FIXTURES / "adk_v2.otlp.json", FIXTURES / "openai_agents.otlp.json")
#: How each copy of the source traces is matched: by ``agenteval.case_id``, by its session id,
#: by its first user text, not at all (another app's), or by case id with its tool arguments dropped.
MODES = ("case_id", "session", "text", "other", "lacking")
COPIES = 15
SEED = 23


def _copy(span: Span, n: int, mode: str, source: int) -> Span:
    attributes: dict[str, Any] = dict(span.attributes)
    for key in ("gen_ai.conversation.id", "gcp.vertex.agent.session_id"):
        if key in attributes:
            attributes[key] = f"{attributes[key]}-{n}{'ab'[source]}"
    attributes.pop("agenteval.case_id", None)
    if mode == "lacking":  # from the tool spans and from the model's output that records each call
        attributes.pop("gen_ai.tool.call.arguments", None)
        outputs = attributes.get("gen_ai.output.messages")
        if isinstance(outputs, list):
            attributes["gen_ai.output.messages"] = [
                {**m, "parts": [{k: v for k, v in p.items() if k != "arguments"} for p in m["parts"]]}
                for m in outputs
            ]
    messages = value_of(attributes, "gen_ai.input.messages")
    if isinstance(messages, list):
        attributes["gen_ai.input.messages"] = [
            {
                **m,
                "parts": [
                    {**p, "content": f"[{n}{'ab'[source]}] {p['content']}"} if p.get("type") == "text" else p
                    for p in m.get("parts") or ()
                ],
            }
            if m.get("role") == "user"
            else m
            for m in messages
        ]

    def ident(value: str) -> str:
        return f"{n:04x}{value[4:]}"

    return Span(
        ident(span.trace_id),
        ident(span.span_id),
        ident(span.parent_id) if span.parent_id else None,
        span.name,
        span.start + n * 10**9,
        span.end + n * 10**9,
        attributes,
    )


def write_many(folder: Path) -> tuple[Path, list[EvalCase], set[str]]:
    """The seeded file (with its logs beside), the cases of its selected sessions, and the ids
    of those whose traces lack tool arguments."""
    rng = random.Random(SEED)
    spans: list[Span] = []
    logged: list[Span] = []
    cases: list[EvalCase] = []
    lacking: set[str] = set()
    for n in range(COPIES):
        mode = MODES[n % len(MODES)]
        for i, source in enumerate(SOURCES):
            copies = [_copy(span, n, mode, i) for span in read_spans(source)]
            turns, _ = turns_of(copies)
            firsts: dict[str, str] = {}
            for turn in turns:
                firsts.setdefault(turn.session_id, turn.user_text)
                if mode in ("case_id", "lacking", "other") and not turn.session_id.startswith("s-other-app"):
                    [root] = [s for s in copies if s.span_id == turn.span_id]
                    prefix = "elsewhere" if mode == "other" else "case"
                    root.attributes["agenteval.case_id"] = f"{prefix}-{turn.session_id}"
            (logged if n % 4 == 3 else spans).extend(copies)
            for session, text in firsts.items():
                if session.startswith("s-other-app") or mode == "other":
                    continue
                eval_id = {"case_id": f"case-{session}", "lacking": f"case-{session}", "session": session}
                user = Invocation.model_validate(
                    {"user_content": {"role": "user", "parts": [{"text": text}]}}
                )
                cases.append(EvalCase(eval_id=eval_id.get(mode, f"text-{session}"), conversation=[user]))
                if mode == "lacking":
                    lacking.add(cases[-1].eval_id)
    bare, logs = split_logs(logged, elide=True)
    spans.extend(bare)
    rng.shuffle(spans)
    path = folder / "many.jsonl"
    lines = []
    while spans:
        size = rng.randint(1, 7)
        batch, spans = spans[:size], spans[size:]
        options = {"base64_ids": rng.random() < 0.3, "plain": rng.random() < 0.3, "json_strings": True}
        items = [encode_span(span, **options) for span in batch]
        lines.append(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": items}]}]}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "many.logs.jsonl").write_text(logs + "\n" + logs + "\n", encoding="utf-8")
    return path, cases, lacking


def _actual(path: Path, cases: list[EvalCase]) -> dict[str, Any]:
    reader = OtelReader()
    try:
        eval_set = reader.read_actual(path, cases)
    except DataError as exc:
        return {"error": str(exc).replace(str(path.parent), "DIR")}
    # each case's turns are built when read (``Conversation``): as the eval set a run reads
    cases_read = [
        EvalCase(eval_id=c.eval_id, conversation=list(c.conversation or ())) for c in eval_set.eval_cases
    ]
    read = eval_set.model_copy(update={"eval_cases": cases_read})
    return {"eval_set": read.model_dump(mode="json"), "warnings": reader.warnings}


def _outputs(folder: Path) -> dict[str, Any]:
    from click.testing import CliRunner

    path, cases, lacking = write_many(folder)
    clean = [c for c in cases if c.eval_id not in lacking]
    lint = CliRunner().invoke(lint_trace, [str(path)])
    try:
        imported: Any = eval_set_from_trace(path, "many", as_expected=False).model_dump(mode="json")
    except DataError as exc:
        imported = str(exc).replace(str(folder), "DIR")
    chosen = [c for c in cases if int(hashlib.sha256(c.eval_id.encode()).hexdigest(), 16) % 3 == 0]
    return {
        "cases": [c.eval_id for c in cases],
        "actual": _actual(path, cases),
        "actual_some": _actual(path, chosen),
        "actual_missing": _actual(
            path, [*chosen, EvalCase(eval_id="nowhere", conversation=cases[0].conversation)]
        ),
        "lint": [lint.exit_code, lint.output.replace(str(folder), "DIR")],
        "import_all": imported,
        "import_cases": eval_set_from_trace(path, "many", as_expected=True, cases=clean[:6]).model_dump(
            mode="json"
        )
        if clean
        else None,
    }


def _fingerprints(outputs: dict[str, Any]) -> dict[str, Any]:
    """Short outputs as they are, eval sets by the SHA-256 of their canonical JSON."""
    return {
        key: value
        if len(json.dumps(value)) < 8000
        else "sha256:" + hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()
        for key, value in outputs.items()
    }


@pytest.mark.parametrize("pending", [_select.PENDING_SPANS, 3], ids=["held", "dropped-and-read-again"])
def test_many_traces_read_as_the_reader_that_held_every_span_read_them(tmp_path, monkeypatch, pending):
    monkeypatch.setattr(_select, "PENDING_SPANS", pending)
    got = _outputs(tmp_path)
    assert len(got["actual"]["eval_set"]["eval_cases"]) == len(got["cases"]) == 36
    assert len(got["actual_some"]["eval_set"]["eval_cases"]) == 19
    assert got["actual"]["warnings"] and got["lint"][0] == 1
    assert _fingerprints(got) == json.loads(GOLDEN.read_text(encoding="utf-8"))


if __name__ == "__main__":  # rewrites the golden file (only with the reader it was recorded from)
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        outputs = _fingerprints(_outputs(Path(folder)))
        GOLDEN.write_text(json.dumps(outputs, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    pytest.main([__file__, "-q"])


@pytest.mark.parametrize("pending", [_select.PENDING_SPANS, 3], ids=["held", "dropped-and-read-again"])
def test_a_jsonl_file_cut_in_its_last_line_exits_2_naming_the_file_the_line_and_the_fix(
    tmp_path, monkeypatch, pending
):
    from agenteval.cli import main
    from click.testing import CliRunner

    monkeypatch.setattr(_select, "PENDING_SPANS", pending)
    path, cases, _ = write_many(tmp_path)
    text = path.read_text(encoding="utf-8")
    last = text.rstrip("\n").rsplit("\n", 1)[1]
    path.write_text(
        text[: len(text) - len(last) // 2 - 1], encoding="utf-8"
    )  # as an exporter killed mid-write
    number = text.count("\n")
    expected = f"{path}: line {number}: not valid JSON ("
    with pytest.raises(DataError) as info:
        OtelReader().read_actual(path, cases[:3])
    assert str(info.value).startswith(expected) and "Fix: each line of an OTLP JSONL file" in str(info.value)
    for command in (
        ["lint-trace", str(path)],
        ["import-trace", str(path), "-o", str(tmp_path / "x.evalset.json")],
    ):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 2, result.output
        assert f"line {number}: not valid JSON" in result.output and "Traceback" not in result.output
