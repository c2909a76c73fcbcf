"""Spans → turns: each turn an ``Invocation`` as ADK's own recording gives it, with what
the trace lacks (lint findings).

* **Turn roots**, per trace, first rule that finds any: ADK v2 ``invoke_workflow`` spans
  that are not nested; ADK v1 ``invocation`` spans; the outermost ``invoke_agent`` spans;
  root spans whose subtree has inference spans. Turns are ordered by start time. Outermost
  agent spans one after another in a trace are one turn (a trace is one request: a hand-off
  with no workflow span above the agents, as OpenAI Agents exports it) until one's first
  model call brings a new user message, which starts the next turn.
* **Session**: ``gen_ai.conversation.id`` (else ``gcp.vertex.agent.session_id``) of the
  turn's spans; without either, the trace is the session. **Case id**: ``agenteval.case_id``.
* **Events**, walking the turn in start-time order: an inference span (operation ``chat``,
  ``generate_content``, ``text_completion``, or a ``gen_ai.request.model`` on a span that
  is not an agent, workflow or tool span) gives one event authored by the nearest
  ``invoke_agent``'s ``gen_ai.agent.name``, holding its output's text and tool calls, with
  its token usage (as Gemini ``usage_metadata``) and model; an ``execute_tool`` span gives
  a ``function_response`` event (and first the call itself, when no output carried it),
  joined to its call by ``gen_ai.tool.call.id`` (else by tool name, in order); a tool span
  without arguments is no finding when the output it answers recorded them. Nested
  inference spans are one model call (ADK schema 1's ``call_llm`` around
  ``generate_content``), whose ``llm_request`` / ``llm_response`` JSON and
  ``gcp.vertex.agent.tool_call_args`` / ``tool_response`` stand in for the GenAI attributes.
* **User content**: the last user message (with text) of the turn's first inference input.
  **Final response**: in an ADK trace (an ``invocation`` root or ADK's ``gcp.vertex.agent.*``
  ids) ADK's rule, the last output with text and no tool call or response, whichever
  agent wrote it; in any other, the last text of the agent whose model call ended the turn.
  Its event keeps no content unless it also calls tools, as in ADK's recording.
* **Times**: ``creation_timestamp`` the turn's start (seconds), ``duration`` its length,
  ``model_duration`` the union of the inference spans' intervals, ``tool_duration`` the
  union of the tool spans' intervals outside model time.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from agenteval.errors import DataError
from agenteval.models import Invocation, MissingInput, Part

from ._packed import PackedInvocation
from ._shape import check_invocation
from ._span import ELIDED, Span, loads, value_of

__all__ = [
    "CAPTURE_SETTING",
    "Finding",
    "Tree",
    "Turn",
    "in_order",
    "trace_turns",
    "turns_of",
    "turns_of_traces",
]

#: The setting an agent must turn on for message content on spans.
CAPTURE_SETTING = (
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (or SPAN_AND_EVENT) in the agent's "
    "environment (with EVENT_ONLY, export its logs too, as NAME.logs.json beside the trace; ADK's "
    "legacy spans: ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true)"
)
_INFERENCE_OPERATIONS = frozenset({"chat", "generate_content", "text_completion"})
_NOT_INFERENCE = frozenset({"invoke_agent", "invoke_workflow", "execute_tool", "create_agent", "embeddings"})
_NO_CALL_ID = "<not specified>"
#: Attributes only ADK's spans carry (schema 1 and 2): a trace with one is ADK's.
_ADK_ATTRIBUTES = frozenset(
    {"gcp.vertex.agent.invocation_id", "gcp.vertex.agent.event_id", "gcp.vertex.agent.session_id"}
)
#: ``gen_ai.usage.*`` → the Gemini usage keys ADK's token metric reads.
#: past the largest OTLP ``intValue``: no token count
_INT64 = 2**63
_USAGE = {
    "gen_ai.usage.input_tokens": "prompt_token_count",
    "gen_ai.usage.output_tokens": "candidates_token_count",
    "gen_ai.usage.reasoning.output_tokens": "thoughts_token_count",
    "gen_ai.usage.cache_read.input_tokens": "cached_content_token_count",
}
_USAGE_ITEMS = tuple(_USAGE.items())


#: The setting that makes a tool span record what its call received and returned.
_TOOL_SPANS = (
    "execute_tool spans for every tool call (instrument the agent's tool execution), with " + CAPTURE_SETTING
)
#: Per finding code: the invocation inputs it leaves unknown, and the setting that records them.
#: An output that is not recorded hides both the final text and any tool call it held.
_LACKS = {
    "content_absent": (("final_response", "tool_calls"), CAPTURE_SETTING),
    "content_elided": (("final_response", "tool_calls"), CAPTURE_SETTING),
    "tool_arguments_absent": (("tool_calls",), CAPTURE_SETTING),
    "tool_arguments_elided": (("tool_calls",), CAPTURE_SETTING),
    "tool_result_absent": (("tool_results",), CAPTURE_SETTING),
    "tool_result_elided": (("tool_results",), CAPTURE_SETTING),
    "unpaired_call": (("tool_results",), _TOOL_SPANS),
    "no_final_text": (("final_response",), CAPTURE_SETTING),
    "no_user_content": (("user_content",), CAPTURE_SETTING),
}


@dataclass(frozen=True)
class Finding:
    """Something a trace lacks: a code (``content_elided``...), the span, and the fix."""

    code: str
    message: str

    def missing(self) -> tuple[MissingInput, ...]:
        """The invocation inputs this finding leaves unknown (``()`` for a trace-level one)."""
        inputs, fix = _LACKS.get(self.code, ((), ""))
        return tuple(MissingInput(name, self.code, self.message, fix) for name in inputs)


@dataclass
class Turn:
    """One turn found in a trace, with its session, case id and findings."""

    trace_id: str
    session_id: str
    case_id: Optional[str]
    start: int
    #: The turn's ``Invocation``, packed (``_packed``): ``invocation`` builds it when asked.
    packed: PackedInvocation
    findings: list[Finding] = field(default_factory=list)
    #: The turn's root span (what an evaluation of the turn is parented to).
    span_id: str = ""

    @property
    def invocation(self) -> Invocation:
        """A new ``Invocation`` of the turn (each call builds one)."""
        return self.packed.build()

    @property
    def invocation_id(self) -> str:
        return self.packed.invocation_id

    @property
    def user_text(self) -> str:
        """The user message's text (``Content.text()``)."""
        return self.packed.user_text


class Tree:
    """The spans of one trace, as a tree ordered by start time (ties by span id)."""

    def __init__(self, spans: Sequence[Span]) -> None:
        self.by_id = {span.span_id: span for span in spans}
        self.children: dict[Optional[str], list[Span]] = defaultdict(list)
        for span in sorted(spans, key=lambda s: (s.start, s.span_id)):
            parent = span.parent_id if span.parent_id in self.by_id else None
            self.children[parent].append(span)

    def walk(self, span: Span) -> Iterable[Span]:
        """``span`` and its descendants, depth first in start order (each once: a damaged
        file's parent cycle cannot loop)."""
        stack, seen = [span], set()
        while stack:
            current = stack.pop()
            if current.span_id in seen:
                continue
            seen.add(current.span_id)
            yield current
            stack.extend(reversed(self.children.get(current.span_id, ())))

    def ancestors(self, span: Span) -> Iterable[Span]:
        seen = {span.span_id}
        parent = self.by_id.get(span.parent_id) if span.parent_id else None
        while parent is not None and parent.span_id not in seen:
            seen.add(parent.span_id)
            yield parent
            parent = self.by_id.get(parent.parent_id) if parent.parent_id else None


def is_inference(span: Span) -> bool:
    op = span.operation
    if op in _INFERENCE_OPERATIONS:
        return True
    if op in _NOT_INFERENCE:
        return False
    return "gen_ai.request.model" in span.attributes or span.name == "call_llm"


def _turn_roots(tree: Tree) -> list[list[Span]]:
    """The root spans of each turn of the trace (``_roots``): one each, except outermost agent
    spans one after another, which are one turn (a hand-off in one request) until one of them
    brings a new user message."""
    roots = _roots(tree)
    if not roots or roots[0].operation != "invoke_agent":
        return [[root] for root in roots]
    groups: list[list[Span]] = []
    said: Optional[str] = None
    for root in roots:
        user = _first_user_text(tree, root)
        if groups and (user is None or user == said):
            groups[-1].append(root)
        else:
            groups.append([root])
            said = user
    return groups


def _first_user_text(tree: Tree, root: Span) -> Optional[str]:
    """The user message of the first model call under ``root`` (``None``: none recorded)."""
    for span in tree.walk(root):
        if is_inference(span):
            user = _user_of(span.attributes)
            return _text(user) if user is not None else None
    return None


def _roots(tree: Tree) -> list[Span]:
    spans = sorted(tree.by_id.values(), key=lambda s: (s.start, s.span_id))

    def outermost(matches: list[Span], same: Any) -> list[Span]:
        return [s for s in matches if not any(same(a) for a in tree.ancestors(s))]

    workflows = [
        s
        for s in spans
        if s.operation == "invoke_workflow" and not s.attributes.get("gen_ai.workflow.nested")
    ]
    if workflows:
        return outermost(workflows, lambda a: a.operation == "invoke_workflow")
    invocations = [s for s in spans if s.name == "invocation"]
    if invocations:
        return outermost(invocations, lambda a: a.name == "invocation")
    agents = [s for s in spans if s.operation == "invoke_agent"]
    if agents:
        return outermost(agents, lambda a: a.operation == "invoke_agent")
    return [s for s in tree.children.get(None, ()) if any(is_inference(d) for d in tree.walk(s))]


def turns_of(spans: Iterable[Span]) -> tuple[list[Turn], list[tuple[str, Finding]]]:
    """The turns of every trace in ``spans`` (by start time), and the findings of traces
    that hold no turn (``(trace_id, finding)``)."""
    by_trace: dict[str, list[Span]] = defaultdict(list)
    for span in spans:
        by_trace[span.trace_id].append(span)
    return turns_of_traces(by_trace)


def turns_of_traces(
    by_trace: dict[str, list[Span]], *, content: bool = True, read: Optional[Callable[..., Any]] = None
) -> tuple[list[Turn], list[tuple[str, Finding]]]:
    """``turns_of`` the spans of each trace, taken out of ``by_trace`` as each trace is read:
    the spans of a read trace are freed before the next is read, so a file's spans and its
    turns are not held at once. ``content``: as ``trace_turns``; ``read``: what reads a trace
    (``trace_turns``'s signature; ``_parallel.Shared.turns``)."""
    read = read or trace_turns
    turns: list[Turn] = []
    empty: list[tuple[str, Finding]] = []
    for trace_id in sorted(by_trace):
        found, finding = read(trace_id, by_trace.pop(trace_id), content=content)
        turns.extend(found)
        if finding is not None:
            empty.append((trace_id, finding))
    return in_order(turns), empty


def in_order(turns: list[Turn]) -> list[Turn]:
    """``turns`` sorted as ``turns_of`` gives them: by start time, then trace id (a trace's own
    turns keep their order)."""
    turns.sort(key=lambda t: (t.start, t.trace_id))
    return turns


def trace_turns(
    trace_id: str, spans: Sequence[Span], *, content: bool = True
) -> tuple[list[Turn], Optional[Finding]]:
    """The turns of one trace's spans, or none and the finding that says why (``unknown_schema``).
    Without ``content``, each turn's invocation keeps only its user message (what a lint reads:
    the findings are the turn's own)."""
    tree = Tree(spans)
    roots = _turn_roots(tree)
    if not roots:
        return [], Finding(
            "unknown_schema",
            f"trace {trace_id}: no span of ADK (invoke_workflow, invocation) or the "
            "GenAI conventions (invoke_agent, chat, generate_content, gen_ai.request.model); "
            "nothing to read as a turn",
        )
    turns = []
    for group in roots:
        try:
            turns.append(_turn(tree, group, content=content))
        except ValueError as exc:  # pydantic's ValidationError: content no message can hold
            detail = str(exc).splitlines()
            root = group[0]
            raise DataError(
                f"the turn at span {root.where} [{root.span_id}] cannot be read: "
                f"{' '.join(line.strip() for line in detail[:3])}. Fix: export the trace again, or "
                "report the instrumentation that wrote it"
            ) from None
    return turns, None


def _first_attribute(spans: Iterable[Span], *keys: str) -> Optional[str]:
    for key in keys:
        for span in spans:
            value = span.attributes.get(key)
            if value not in (None, ""):
                return str(value)
    return None


#: A message, part, call or event as the plain dict pydantic validates: a turn's ``Invocation``
#: is validated once, whole (one call into pydantic-core instead of one per part and event).
_Dict = dict[str, Any]


def _text(content: _Dict) -> str:
    """``Content.text()`` of a message dict: its parts' texts joined with newlines."""
    return "\n".join(p["text"] for p in content.get("parts") or () if p.get("text"))


class _Builder:
    """The events of one turn, built span by span."""

    def __init__(self, tree: Tree, root: Span, spans: list[Span], *, end: int) -> None:
        self.tree = tree
        self.root = root
        self.end = end  # the turn's end: its last root span's
        self.spans = spans  # the turn's spans, walked from its root
        self.events: list[_Dict] = []
        self.findings: list[Finding] = []
        self.unanswered: list[_Dict] = []  # function calls
        self.user: Optional[_Dict] = None
        self.outputs: list[tuple[int, str, list[_Dict]]] = []  # (event index, author, parts) per model call
        first_agent = next((s for s in spans if s.operation == "invoke_agent"), None)
        self.root_agent = _agent_name(first_agent) if first_agent is not None else None
        #: ADK's spans: schema 1's ``invocation`` root, or ADK's own attributes (both schemas).
        self.adk = root.name == "invocation" or any(
            not _ADK_ATTRIBUTES.isdisjoint(span.attributes) for span in spans
        )
        #: Per span id: the nearest agent's name (``None``: no agent names one).
        self.authors: dict[str, Optional[str]] = {}

    def author(self, span: Span) -> str:
        """The name of the nearest agent span (``span`` itself or an ancestor)."""
        return self.authors.get(span.span_id) or self.root_agent or "agent"

    def find(self, code: str, span: Span, what: str) -> None:
        self.findings.append(Finding(code, f"span {span.where} [{span.span_id}]: {what}"))

    def inference(self, span: Span, attrs: dict[str, Any]) -> None:
        """One model call: ``span`` and the attributes of its nested inference spans."""
        if self.user is None:
            self.user = _user_of(attrs)
        output = attrs.get("gen_ai.output.messages")
        legacy = attrs.get("gcp.vertex.agent.llm_response")  # ADK schema 1: the LlmResponse as JSON
        parts: list[_Dict] = []
        if output is None and isinstance(legacy, dict):
            content = legacy.get("content") or {}
            # an LlmResponse's parts, in any key spelling: as the snake_case keys the builder reads
            parts = [
                Part.model_validate(p).model_dump(exclude_unset=True) for p in content.get("parts") or ()
            ]
        elif output is None:
            self.find("content_absent", span, "no gen_ai.output.messages: the model's output is not recorded")
        elif output == ELIDED or not isinstance(output, list):
            self.find("content_elided", span, "gen_ai.output.messages is <elided>")
        else:
            parts = [part for message in output if isinstance(message, dict) for part in _parts(message)]
        if parts:
            self.unanswered += [
                part["function_call"] for part in parts if part.get("function_call") is not None
            ]
        author = self.author(span)
        event = {
            "author": author,
            "content": {"role": "model", "parts": parts} if parts else None,
            "usage_metadata": _usage(attrs) or _legacy_usage(legacy),
            "model_version": attrs.get("gen_ai.response.model") or attrs.get("gen_ai.request.model"),
        }
        self.events.append(event)
        self.outputs.append((len(self.events) - 1, author, parts))

    def final(self) -> Optional[tuple[int, _Dict]]:
        """The final response (its event's index, its text): in an ADK trace, the last model
        output with text that ADK counts as a final response (no tool call or response in it),
        whichever agent wrote it; else the last text of the agent whose model call ended the
        turn (the author of the turn's last model call)."""
        if self.adk:
            candidates = [
                (index, parts)
                for index, _, parts in self.outputs
                if not any(p.get("function_call") or p.get("function_response") for p in parts)
            ]
        else:
            ending = self.outputs[-1][1] if self.outputs else None
            candidates = [(index, parts) for index, author, parts in self.outputs if author == ending]
        for index, parts in reversed(candidates):
            texts = [p for p in parts if p.get("text") and not p.get("thought")]
            if texts:
                return index, {"role": "model", "parts": texts}
        return None

    def tool(self, span: Span) -> None:
        attrs = span.attributes
        name = str(attrs.get("gen_ai.tool.name") or span.name.removeprefix("execute_tool ").strip() or "tool")
        call_id = attrs.get("gen_ai.tool.call.id")
        call_id = str(call_id) if call_id not in (None, "", _NO_CALL_ID) else None
        args = _first_present(attrs, "gen_ai.tool.call.arguments", "gcp.vertex.agent.tool_call_args")
        result = _first_present(attrs, "gen_ai.tool.call.result", "gcp.vertex.agent.tool_response")
        call = self._claim(call_id, name)
        if call is not None and call.get("args") is not None:
            pass  # the model's output recorded the arguments (ADK schema 2, EVENT_ONLY: from the logs)
        elif args is None:
            self.find("tool_arguments_absent", span, f"tool {name!r}: no gen_ai.tool.call.arguments")
        elif args == ELIDED:
            self.find("tool_arguments_elided", span, f"tool {name!r}: its arguments are <elided>")
        if result is None:
            self.find("tool_result_absent", span, f"tool {name!r}: no gen_ai.tool.call.result")
        elif result == ELIDED:
            self.find("tool_result_elided", span, f"tool {name!r}: its result is <elided>")
        author = self.author(span)
        if call is None:
            call = {"id": call_id, "name": name, "args": _object(args)}
            self.events.append(
                {"author": author, "content": {"role": "model", "parts": [{"function_call": call}]}}
            )
        response = {"id": call.get("id") or call_id, "name": name, "response": _object(result)}
        self.events.append(
            {"author": author, "content": {"role": "user", "parts": [{"function_response": response}]}}
        )

    def _claim(self, call_id: Optional[str], name: str) -> Optional[_Dict]:
        """The recorded call this tool span answers, taken off the unanswered list."""
        for index, call in enumerate(self.unanswered):
            recorded = call.get("id")
            by_id = call_id is not None and recorded is not None
            if (recorded == call_id) if by_id else (call["name"] == name):
                return self.unanswered.pop(index)
        return None

    def invocation(self, *, whole: bool) -> tuple[PackedInvocation, list[Finding]]:
        """The turn's invocation (not ``whole``: its user message alone) and findings."""
        events = list(self.events)
        final = None
        found = self.final()
        if found is not None:
            index, final = found
            event = events[index]
            content = event["content"]
            calls = [p for p in content["parts"] if p.get("function_call")] if content else []
            events[index] = {**event, "content": {"role": "model", "parts": calls} if calls else None}
        else:
            self.findings.append(
                Finding("no_final_text", f"the turn at span {self.root.where} has no final text")
            )
        for call in self.unanswered:
            self.findings.append(
                Finding(
                    "unpaired_call",
                    f"the tool call {call['name']!r} (id {call.get('id')}) of the turn at span "
                    f"{self.root.where} has no execute_tool span: its response is not recorded",
                )
            )
        if self.user is None:
            self.findings.append(
                Finding("no_user_content", f"the turn at span {self.root.where} records no user message")
            )
        user = self.user or {"role": "user", "parts": [{"text": ""}]}
        spans = self.spans
        model_times, tool_times = [], []
        for span in spans:  # (an execute_tool span is never an inference span)
            if span.operation == "execute_tool":
                tool_times.append((span.start, span.end))
            elif is_inference(span):
                model_times.append((span.start, span.end))
        model, tools = _union(model_times), _union(tool_times)
        record = {
            "invocation_id": _first_attribute(spans, "gcp.vertex.agent.invocation_id") or self.root.span_id,
            "user_content": user,
            "final_response": final,
            "intermediate_data": {"invocation_events": events},
            "creation_timestamp": self.root.start / 1e9,
            "duration": (self.end - self.root.start) / 1e9,
            "model_duration": _length(model) / 1e9 if model else None,
            "tool_duration": _length(_minus(tools, model)) / 1e9 if tools else None,
        }
        if not whole:  # checked whole all the same: what no message can hold is an error here too
            check_invocation(record)
            return PackedInvocation({"user_content": user}), self.findings
        missing = tuple(m for finding in self.findings for m in finding.missing())
        return PackedInvocation(record, missing), self.findings


def _named_agent(span: Span) -> Optional[str]:
    """The agent ``span`` names, when it is an agent span (or carries ``gen_ai.agent.name``)."""
    if span.operation == "invoke_agent" or "gen_ai.agent.name" in span.attributes:
        return _agent_name(span)
    return None


def _walk_turn(tree: Tree, top: Span) -> Iterable[tuple[Span, Optional[str], bool]]:
    """``tree.walk(top)`` with, per span, the nearest agent's name (itself or an ancestor) and
    whether an ancestor is an inference span: one pass, each span's ancestors not walked again."""
    above = list(tree.ancestors(top))
    author = next(filter(None, map(_named_agent, above)), None)
    stack = [(top, author, any(map(is_inference, above)))]
    seen: set[str] = set()
    while stack:
        span, inherited, nested = stack.pop()
        if span.span_id in seen:
            continue
        seen.add(span.span_id)
        author = _named_agent(span) or inherited
        yield span, author, nested
        below = nested or is_inference(span)
        stack.extend((child, author, below) for child in reversed(tree.children.get(span.span_id, ())))


def _turn(tree: Tree, roots: list[Span], *, content: bool) -> Turn:
    root = roots[0]
    walked = [step for top in roots for step in _walk_turn(tree, top)]
    spans = [span for span, _, _ in walked]
    builder = _Builder(tree, root, spans, end=max(top.end for top in roots))
    builder.authors = {span.span_id: author for span, author, _ in walked}
    for span, _, nested in walked:
        if span.operation == "execute_tool":
            builder.tool(span)
        elif not nested and is_inference(span):
            if span.span_id not in tree.children:
                builder.inference(span, span.attributes)  # read, never changed
                continue
            merged: dict[str, Any] = {}  # ADK schema 1: call_llm wraps generate_content
            for inner in tree.walk(span):
                if is_inference(inner):
                    for key, value in inner.attributes.items():
                        merged.setdefault(key, value)
            builder.inference(span, merged)
    packed, findings = builder.invocation(whole=content)
    session = _first_attribute(spans, "gen_ai.conversation.id", "gcp.vertex.agent.session_id")
    return Turn(
        trace_id=root.trace_id,
        session_id=session or root.trace_id,
        case_id=_first_attribute(spans, "agenteval.case_id"),
        start=root.start,
        packed=packed,
        findings=findings,
        span_id=root.span_id,
    )


def _user_of(attrs: dict[str, Any]) -> Optional[_Dict]:
    """The last user message with text of a model call's input (GenAI messages, else ADK
    schema 1's ``llm_request`` contents)."""
    messages = value_of(attrs, "gen_ai.input.messages")
    if isinstance(messages, list):
        for message in reversed(messages):
            if isinstance(message, dict) and message.get("role") == "user":
                texts = [p for p in _parts(message) if p.get("text")]
                if texts:
                    return {"role": "user", "parts": texts}
        return None
    request = value_of(attrs, "gcp.vertex.agent.llm_request")
    contents = request.get("contents") if isinstance(request, dict) else None
    for content in reversed(contents if isinstance(contents, list) else []):
        if isinstance(content, dict) and content.get("role") == "user":
            texts = [
                {"text": p["text"]}
                for p in content.get("parts") or ()
                if isinstance(p, dict) and p.get("text")
            ]
            if texts:
                return {"role": "user", "parts": texts}
    return None


def _legacy_usage(response: Any) -> Optional[dict[str, int]]:
    usage = response.get("usage_metadata") if isinstance(response, dict) else None
    if not isinstance(usage, dict):
        return None
    counts = {k: v for k, v in usage.items() if isinstance(v, int) and not isinstance(v, bool)}
    return counts or None


def _agent_name(span: Span) -> Optional[str]:
    name = span.attributes.get("gen_ai.agent.name")
    if name:
        return str(name)
    rest = span.name.removeprefix("invoke_agent").strip()
    return rest or None


def _parts(message: dict[str, Any]) -> list[_Dict]:
    """A GenAI message's parts as ADK parts (text, reasoning, tool calls and responses)."""
    found = []
    for part in message.get("parts") or ():
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("content"), str):
            found.append({"text": part["content"]})
        elif kind == "reasoning" and isinstance(part.get("content"), str):
            found.append({"text": part["content"], "thought": True})
        elif kind == "tool_call" and part.get("name"):
            call = {"id": part.get("id"), "name": str(part["name"]), "args": _object(part.get("arguments"))}
            found.append({"function_call": call})
        elif kind == "tool_call_response":
            response = {"id": part.get("id"), "response": _object(part.get("response", part.get("result")))}
            found.append({"function_response": response})
    return found


def _object(value: Any) -> Optional[dict[str, Any]]:
    """A tool's arguments or result as ADK holds them: an object (else ``{"result": value}``)."""
    if value is None or value == ELIDED:
        return None
    if isinstance(value, str):
        try:
            value = loads(value)
        except (ValueError, RecursionError):
            pass
    return value if isinstance(value, dict) else {"result": value}


def _first_present(attrs: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        value = attrs.get(key)
        if value is not None:
            return value
    return None


def _usage(attrs: dict[str, Any]) -> Optional[dict[str, int]]:
    usage = {}
    for key, gemini in _USAGE_ITEMS:
        value = attrs.get(key)
        if type(value) in (int, float) and 0 <= value < _INT64:  # a count (OTLP's intValue is an int64)
            usage[gemini] = int(value)
    if not usage:
        return None
    get = usage.get
    usage["total_token_count"] = (
        get("prompt_token_count", 0) + get("candidates_token_count", 0) + get("thoughts_token_count", 0)
    )
    return usage


def _union(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _minus(intervals: list[tuple[int, int]], cut: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``intervals`` outside ``cut``; both sorted and disjoint (``_union``)."""
    left = []
    first = 0
    for start, end in intervals:
        while first < len(cut) and cut[first][1] <= start:
            first += 1
        position, index = start, first
        while index < len(cut) and cut[index][0] < end:
            if cut[index][0] > position:
                left.append((position, cut[index][0]))
            position = max(position, cut[index][1])
            index += 1
        if position < end:
            left.append((position, end))
    return left


def _length(intervals: list[tuple[int, int]]) -> int:
    return sum(end - start for start, end in intervals)
