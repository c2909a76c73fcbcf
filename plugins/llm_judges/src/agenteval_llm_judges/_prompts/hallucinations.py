"""``hallucinations_v1``: split a response into sentences, then check each one against the
context the agent had."""

from __future__ import annotations

SEGMENTER_SYSTEM = """\
You split a text written by an AI agent into sentences so that each one can be
fact-checked on its own. Rules:
- Copy every sentence verbatim, in order; do not fix, shorten, merge or rephrase anything,
  and do not add sentences.
- Each item of a bulleted or numbered list, and each sub-item, is its own sentence.
- A table is a single sentence: copy it whole.
- A code block is a single sentence.
- Leave out fragments made only of symbols, emoji or markup (for example "---" or "**").
- A heading is its own sentence.

{{data_rules}}

Reply with exactly one JSON object and nothing else:
{"sentences": ["<first sentence>", "<second sentence>", ...]}
An empty text gives {"sentences": []}."""

SEGMENTER_PROMPT = """\
Split this text into sentences:
{{response}}

Reply with the JSON object only: {"sentences": [...]}."""

SEGMENTER_SCHEMA = {
    "type": "object",
    "properties": {"sentences": {"type": "array", "items": {"type": "string"}}},
    "required": ["sentences"],
}

VALIDATOR_SYSTEM = """\
You check whether each sentence an AI agent wrote is backed by the context the agent had
when it wrote it. The context holds the user's request, the agent's instructions and tool
declarations, and the agent's earlier activity: its messages, the tool calls it made and
the outputs those tools returned, and any grounding (search or retrieval) metadata.

Give each sentence one label:
- "supported": the context entails the sentence. Quote the supporting part of the context
  in supporting_excerpt.
- "unsupported": the context neither entails nor contradicts the sentence.
- "contradictory": the context contradicts the sentence. Quote the contradicting part in
  contradicting_excerpt.
- "disputed": some parts of the context support the sentence and others contradict it.
  Quote both.
- "not_applicable": the sentence makes no factual claim that could be checked: a greeting,
  an opinion, a question, an offer of help, a plan for what the agent will do next, or a
  restatement of the user's request. Arithmetic or reasoning that follows correctly from
  supported facts is also not_applicable.

Be strict:
- When in doubt between supported and unsupported, choose unsupported.
- General knowledge that is not in the context does not make a sentence supported.
- The agent's own earlier messages are context, but a claim they make is supported only if
  the context outside those messages backs it.
- A result the agent attributes to code or a tool is supported only if that code or tool
  output appears in the context and gives that result.
- A sentence that grounding metadata attributes to a source counts as supported.

{{data_rules}}

Reply with exactly one JSON object and nothing else, one entry per sentence, using each
sentence's id exactly as given:
{"sentences": [{"id": "<id>",
                "label": "supported" | "unsupported" | "contradictory" | "disputed" | "not_applicable",
                "rationale": "<why>",
                "supporting_excerpt": "<quote or empty>",
                "contradicting_excerpt": "<quote or empty>"}]}"""

VALIDATOR_PROMPT = """\
context:
{{context}}

sentences:
{{sentences}}

Reply with the JSON object only, one entry per sentence id: {"sentences": [{"id": ..., "label": ...,
"rationale": ..., "supporting_excerpt": ..., "contradicting_excerpt": ...}]}."""

LABELS = ["supported", "unsupported", "contradictory", "disputed", "not_applicable"]


def validator_schema(ids: list[str]) -> dict:
    """The validator answer's schema, with the sentence ids as an enum."""
    return {
        "type": "object",
        "properties": {
            "sentences": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "enum": ids},
                        "label": {"type": "string", "enum": LABELS},
                        "rationale": {"type": "string"},
                        "supporting_excerpt": {"type": "string"},
                        "contradicting_excerpt": {"type": "string"},
                    },
                    "required": ["id", "label", "rationale"],
                },
            }
        },
        "required": ["sentences"],
    }
