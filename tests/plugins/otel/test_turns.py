"""A turn's final response and its tool calls' arguments, read from hand-written span trees:
ADK's rule for ADK traces (the last model output ADK counts as a final response, whichever
agent wrote it), the last text of the agent that ended the turn for any other tree, and the
model's record of a call standing in for the arguments its tool span lacks."""

from __future__ import annotations

from typing import Any, Optional

import pytest
from agenteval_otel._otlp import Span
from agenteval_otel._turns import Turn, turns_of, turns_of_traces

USER = [{"role": "user", "parts": [{"type": "text", "content": "Plan my trip to Tokyo"}]}]
ANSWER = "Pack an umbrella and a light rain jacket."
HAND_OFF = "Let me hand you to our trip planner."


def _span(span_id: str, parent: Optional[str], name: str, start: int, **attributes: Any) -> Span:
    return Span("cd" * 16, span_id * 8, parent * 8 if parent else None, name, start, start + 10, attributes)


def _agent(span_id: str, parent: Optional[str], name: str, start: int) -> Span:
    attributes = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
    return _span(span_id, parent, f"invoke_agent {name}", start, **attributes)


def _chat(span_id: str, parent: str, start: int, *parts: dict[str, Any], adk: bool = False) -> Span:
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": USER,
        "gen_ai.output.messages": [{"role": "assistant", "parts": list(parts)}],
    }
    if adk:
        attributes["gcp.vertex.agent.invocation_id"] = "e-1"
    return _span(span_id, parent, "chat model", start, **attributes)


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "content": text}


def _call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}


def _tool(span_id: str, parent: str, name: str, call_id: str, start: int, **attributes: Any) -> Span:
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.call.result": {"ok": True},
        **attributes,
    }
    return _span(span_id, parent, f"execute_tool {name}", start, **attributes)


def _one_turn(spans: list[Span]) -> Turn:
    turns, _ = turns_of(spans)
    [turn] = turns
    return turn


def _final(turn: Turn) -> Optional[str]:
    final = turn.invocation.final_response
    return final.text() if final is not None else None


def _handoff(*, nested: bool) -> list[Span]:
    """Triage hands off to Planner (its agent span nested in Triage's, or after it under the
    workflow); Planner answers and the turn ends."""
    planner_parent = "02" if nested else "01"
    return [
        _span("01", None, "invoke_workflow trip", 0, **{"gen_ai.operation.name": "invoke_workflow"}),
        _agent("02", "01", "Triage", 1),
        _chat("03", "02", 2, _text(HAND_OFF), _call("transfer_to_planner", "h")),
        _tool("04", "02", "transfer_to_planner", "h", 20, **{"gen_ai.tool.call.arguments": {}}),
        _agent("05", planner_parent, "Planner", 40),
        _chat("06", "05", 41, _text(ANSWER)),
    ]


@pytest.mark.parametrize("nested", [True, False], ids=["nested", "sequential"])
def test_after_a_hand_off_the_final_response_is_the_answering_agent_s_last_text(nested):
    turn = _one_turn(_handoff(nested=nested))
    assert _final(turn) == ANSWER
    events = turn.invocation.intermediate_data.invocation_events
    assert [e.author for e in events] == ["Triage", "Triage", "Planner"]
    assert events[0].content.text() == HAND_OFF  # not the final: kept
    assert events[-1].content is None
    assert "no_final_text" not in {f.code for f in turn.findings}


def test_the_agent_that_ended_the_turn_gives_its_last_text_even_when_it_then_called_a_tool():
    spans = [
        *_handoff(nested=True)[:5],
        _chat("06", "05", 41, _text("Checking the forecast."), _call("get_forecast", "f1", city="Tokyo")),
        _tool("07", "05", "get_forecast", "f1", 60, **{"gen_ai.tool.call.arguments": {"city": "Tokyo"}}),
    ]
    assert _final(_one_turn(spans)) == "Checking the forecast."


def test_in_an_adk_trace_the_last_output_adk_counts_as_final_wins_whichever_agent_wrote_it():
    """ADK's ``is_final_response()``: an output that calls a tool is not a final response,
    so Planner's text beside its tool call is not the final; Triage's earlier answer is."""
    spans = [
        _span("01", None, "invoke_workflow trip", 0, **{"gen_ai.operation.name": "invoke_workflow"}),
        _agent("02", "01", "Triage", 1),
        _chat("03", "02", 2, _text(ANSWER), adk=True),
        _agent("04", "02", "Planner", 20),
        _chat("05", "04", 21, _text("Saving your trip."), _call("save_trip", "s1"), adk=True),
        _tool("06", "04", "save_trip", "s1", 40, **{"gen_ai.tool.call.arguments": {}}),
    ]
    turn = _one_turn(spans)
    assert _final(turn) == ANSWER
    events = turn.invocation.intermediate_data.invocation_events
    assert events[0].content is None and events[1].content.text() == "Saving your trip."
    # the same tree from another framework: the agent that ended the turn (Planner) gives it
    for span in spans:
        span.attributes.pop("gcp.vertex.agent.invocation_id", None)
    assert _final(_one_turn(spans)) == "Saving your trip."


@pytest.mark.parametrize("on_span", [None, "<elided>"], ids=["absent", "elided"])
def test_a_tool_span_without_arguments_takes_them_from_the_model_s_record_of_the_call(on_span):
    attributes = {} if on_span is None else {"gen_ai.tool.call.arguments": on_span}
    spans = [
        _agent("01", None, "weather", 0),
        _chat("02", "01", 1, _call("get_weather", "w1", city="Paris")),
        _tool("03", "01", "get_weather", "w1", 20, **attributes),
        _chat("04", "01", 40, _text("Sunny.")),
    ]
    turn = _one_turn(spans)
    assert turn.findings == []
    assert [(c.name, c.args) for c in turn.invocation.tool_calls()] == [("get_weather", {"city": "Paris"})]
    # when the model's output does not carry them either, they are reported missing
    spans[1].attributes["gen_ai.output.messages"][0]["parts"][0].pop("arguments")
    code = "tool_arguments_absent" if on_span is None else "tool_arguments_elided"
    assert [f.code for f in _one_turn(spans).findings] == [code]


def _top_level_agents(second_user: list[dict[str, Any]]) -> list[Span]:
    """Two outermost agent spans one after another in one trace, no workflow span above them
    (OpenAI Agents' hand-off); the second agent's model call reads ``second_user``."""
    planner = _chat("04", "03", 41, _text(ANSWER))
    planner.attributes["gen_ai.input.messages"] = second_user
    return [
        _agent("01", None, "Triage", 0),
        _chat("02", "01", 1, _text(HAND_OFF)),
        _agent("03", None, "Planner", 40),
        planner,
    ]


def test_top_level_agent_spans_one_after_another_in_a_trace_are_one_turn():
    handed = [*USER, {"role": "assistant", "parts": [_text(HAND_OFF)]}]  # the same user message
    turn = _one_turn(_top_level_agents(handed))
    assert _final(turn) == ANSWER
    assert turn.user_text == "Plan my trip to Tokyo"
    events = turn.invocation.intermediate_data.invocation_events
    assert [e.author for e in events] == ["Triage", "Planner"]
    assert turn.span_id == "01" * 8 and turn.invocation.duration == pytest.approx(50e-9)


def test_a_top_level_agent_span_with_a_new_user_message_starts_the_next_turn():
    later = [*USER, {"role": "user", "parts": [_text("And in May?")]}]
    turns, _ = turns_of(_top_level_agents(later))
    assert [t.user_text for t in turns] == ["Plan my trip to Tokyo", "And in May?"]
    assert [_final(t) for t in turns] == [HAND_OFF, ANSWER]


def test_turns_of_traces_reads_as_turns_of_and_lets_each_trace_s_spans_go():
    """The spans of a read trace are taken out of the caller's mapping (freed before the next
    trace is read: a file's spans and its turns are not held at once)."""
    spans = _handoff(nested=False)
    by_trace = {spans[0].trace_id: list(spans)}
    turns, empty = turns_of_traces(by_trace)
    assert by_trace == {} and empty == []
    assert [t.invocation for t in turns] == [t.invocation for t in turns_of(spans)[0]]
