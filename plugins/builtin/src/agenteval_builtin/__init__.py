"""agenteval's built-in deterministic criteria (loaded through entry points).

* ``tool_trajectory_avg_score`` (:mod:`.trajectory`): ADK 2.13's trajectory match;
* ``response_match_score`` (:mod:`.response_match`): ADK 2.13's ROUGE-1 response match;
* ``trajectory_precision``, ``trajectory_recall``, ``trajectory_single_tool_use``
  (:mod:`.partial_trajectory`): partial-credit trajectory measures;
* ``tool_call_count_v1`` (:mod:`.tool_call_count`): tool calls per invocation.
"""

__version__ = "0.9.0"
