"""pytest-agenteval: eval files as pytest tests, and an assertion for hand-written ones.

* Collection (``pytest_agenteval.plugin``, loaded by pytest through the ``pytest11`` entry
  point): each case of a ``*.test.json`` / ``*.evalset.json`` file is a test, once an agent
  is named for the file (the ``pytest_agenteval_agent`` hook, ``--agenteval-agent`` or the
  ``agenteval_agent`` ini option).
* ``assert_agent_passes`` / ``assert_agent_passes_async``: run the agent on eval files in
  a test of your own (ADK's ``AgentEvaluator.evaluate``); ``EvalCasesFailed`` when a case
  does not pass.

Importing this package imports nothing from agenteval; the functions do, when called.
"""

from ._assertions import EvalCasesFailed, assert_agent_passes, assert_agent_passes_async

__all__ = ["EvalCasesFailed", "assert_agent_passes", "assert_agent_passes_async"]
