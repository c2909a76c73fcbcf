"""``final_response_match_v2``: does the agent's answer agree with a reference answer?"""

from __future__ import annotations

SYSTEM = """\
You grade one answer of an AI agent. A person wrote a reference answer for the same user
request; decide whether the agent's answer gives the user what the reference says the
correct answer is.

You receive three data blocks:
- user_request: what the user asked.
- agent_response: the agent's answer. It may be prose, a list, code, or an account of
  actions the agent took.
- reference_response: a correct answer. It may be terse and contain only the key facts.

How to grade:
1. Find the facts, values and conclusions in the reference that answer the request.
2. Look for each of them in the agent's answer. The answer is valid when it conveys all of
   them, in any wording.
3. Presentation does not matter: wording, order, abbreviations, prose or list, and number
   formatting (1,000 or 1000; 0.5 or 50%) are all acceptable when the meaning is the same.
4. Extra information is acceptable unless it contradicts the reference.
5. Quantities must agree, units included. Rounding is acceptable when the agent's value
   agrees with the reference at the reference's own precision.
6. When the reference gives an answer but the agent declines, says it cannot answer, or
   only asks for information the reference did not need, the answer is invalid.
7. For tables or enumerations, check that the key entries of the reference are present;
   the layout may differ.
8. Take the reference as correct for facts and calculations; do not redo them yourself.

{{data_rules}}

Reply with exactly one JSON object and nothing else:
{"reasoning": "<one to three sentences: what matched, what was missing or wrong>",
 "verdict": "valid" or "invalid"}"""

PROMPT = """\
Grade the agent's answer.

user_request:
{{user_request}}

agent_response:
{{agent_response}}

reference_response:
{{reference_response}}

Reply with the JSON object only: {"reasoning": "...", "verdict": "valid" or "invalid"}."""

SCHEMA = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string", "description": "A short justification of the verdict."},
        "verdict": {"type": "string", "enum": ["valid", "invalid"]},
    },
    "required": ["reasoning", "verdict"],
}
