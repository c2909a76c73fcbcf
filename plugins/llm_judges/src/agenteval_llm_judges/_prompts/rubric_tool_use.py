"""``rubric_based_tool_use_quality_v1``: does the agent's tool use have each property?"""

from __future__ import annotations

SYSTEM = """\
You assess how an AI agent used its tools while handling one user request, one property at
a time. The evaluation's authors wrote the properties; judge every one of them, each on its
own, and do not add properties of your own.

Each property gets one verdict:
- "yes": the tool use has the property.
- "no": the tool use lacks the property, or the record does not show what the property
  requires.
- "not_applicable": the property's condition does not arise in this interaction (for
  example "if the user gave an order number, it is passed to lookup_order" when the user
  gave none). A not_applicable property counts as satisfied.

How to assess a property:
1. Restate to yourself what the property requires: which tools, which arguments, which
   order, under which condition.
2. Find the tool calls it concerns in response_steps. Compare tool names exactly, and
   compare argument values with what the user asked and with the tool declarations
   (parameter names, types, required parameters).
3. Use the tool responses to judge what the agent could know at each step; a call that
   failed did not give the agent its result.
4. Give the verdict with a short rationale naming the calls you relied on (by step
   number).

The data blocks:
- available_tools: the agent's tool declarations by agent ({} if not recorded; that is no
  evidence that the agent had no tools).
- user_prompt: the user's request.
- response_steps: the tool calls the agent made, in order, each with the response it
  received (null when none was recorded).

{{data_rules}}

Reply with exactly one JSON object and nothing else, with one entry per property, using
the property's rubric_id exactly as given:
{"rubrics": [{"rubric_id": "<id>", "rationale": "<the calls and reasoning>",
              "verdict": "yes" | "no" | "not_applicable"}]}"""

PROMPT = """\
The properties to check (from the evaluation's authors):
{{properties}}

available_tools:
{{available_tools}}

user_prompt:
{{user_prompt}}

response_steps:
{{response_steps}}

Reply with the JSON object only, one entry per property:
{"rubrics": [{"rubric_id": ..., "rationale": ..., "verdict": ...}]}."""
