"""What a recorded turn lacks: the inputs a criterion may read that the recording does not hold.

A turn read from a source that can lose content (a trace recorded without message content,
a tool span without its arguments) carries one ``MissingInput`` per lacking input; the engine
reports a criterion that reads one of them as NOT_EVALUATED instead of scoring the turn
without it (see ``agenteval._run._inputs``).
"""

from __future__ import annotations

from typing import Literal, NamedTuple, get_args

__all__ = ["INVOCATION_INPUTS", "InvocationInput", "MissingInput"]

#: The parts of an actual invocation a criterion can read (``EvaluatorInfo.reads``):
#: the user's message, the final response, the tool calls (names and arguments) and the
#: tool results.
InvocationInput = Literal["user_content", "final_response", "tool_calls", "tool_results"]
INVOCATION_INPUTS: tuple[InvocationInput, ...] = get_args(InvocationInput)


class MissingInput(NamedTuple):
    """One input a recorded turn lacks.

    ``input``: which (one of ``INVOCATION_INPUTS``); ``code``: the finding that says so
    (``content_elided``, ``tool_arguments_absent``...), used as the reason code;
    ``detail``: where and what (e.g. the span); ``fix``: the setting that records it.
    """

    input: InvocationInput
    code: str
    detail: str
    fix: str
