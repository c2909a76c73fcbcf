"""The agent-adapter contract (entry-point group ``agenteval.agents``).

An adapter runs the agent under test, one conversation per eval case: the engine opens a
session for the case, sends each user turn, and records what the agent did as an
``Invocation`` (final response and intermediate data, in either form the data model knows).

    [project.entry-points."agenteval.agents"]
    python = "agenteval_builtin.python_agent:PythonAgent"

``agenteval run --agent TARGET`` picks the adapter whose ``claims(target)`` accepts the
target (or the one named by ``--agent-type``).

A case may start in the middle of a conversation: its first ``context_turns`` are history
(``EvalCase.history()``: an Agent Platform dataset's ``conversation_history``), recorded turns
the judged ones follow. An adapter with ``takes_history = True`` starts such a case's session
with that history, as if the agent had had those turns (``session(case)`` reads it from the
case); the engine then sends only the turns after it and scores only those. An adapter
without it never runs such a case: the case is NOT_EVALUATED ``history_unsupported``, never
run as if the conversation started fresh.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import ClassVar, Optional

from ..errors import AgentCrashed
from ..models import Content, EvalCase, Invocation

__all__ = ["Agent", "AgentCrashed", "AgentSession"]


class AgentSession(ABC):
    """One conversation with the agent (one eval case, one run)."""

    @abstractmethod
    async def turn(self, user_content: Content) -> Invocation:
        """Send one user message; return the agent's turn as an ``Invocation`` (its
        ``user_content`` is the message sent). Raise on failure: the engine records the
        case as ERRORED with the exception."""

    async def aclose(self) -> None:  # noqa: B027 - an optional hook, a no-op by default
        """End the conversation."""

    def output(self) -> str:
        """What the agent printed that the engine could not capture itself (in another
        process, at the file-descriptor level); added to the case's output."""
        return ""

    def left_behind(self) -> tuple[str, ...]:
        """What a cancelled (timed-out) call left running, one description each
        (``"thread agenteval-agent-3 (respond)"``); reported in the case's failure."""
        return ()

    def stopped(self) -> tuple[str, ...]:
        """What a cancelled (timed-out) call was running that the adapter stopped, one
        description each (``"thread agenteval-agent-3 (respond)"``): it costs the run
        nothing more; reported in the case's failure."""
        return ()


class Agent(ABC):
    """An adapter for one kind of agent, built once per run from ``--agent TARGET``."""

    #: A one-line description for ``--help`` texts and errors.
    description: ClassVar[str] = ""
    #: Whether ``session(case)`` starts the conversation with ``case.history()`` (see the
    #: module docstring); ``False``: a case with history is NOT_EVALUATED for this adapter.
    takes_history: ClassVar[bool] = False
    #: Why this adapter cannot run in worker processes (``--agent-isolation process``), with the
    #: fix; ``""`` when it can.
    not_in_workers: ClassVar[str] = ""

    def __init__(self, target: str) -> None:
        self.target = target

    @classmethod
    def claims(cls, target: str) -> bool:
        """Whether ``target`` looks like this adapter's kind (used when no type is given)."""
        return False

    def adk_app(self) -> Optional[tuple[Path, str]]:
        """For an ADK agent folder: ``(folder, app name)``, so that the run is also written
        to ``<folder>/.adk/eval_history`` as ``adk eval`` writes it; ``None`` otherwise."""
        return None

    def check_ready(self) -> None:  # noqa: B027 - an optional hook, a no-op by default
        """Preflight before any case runs: import the agent, check credentials. Raise
        ``agenteval.errors.ConfigError`` saying what is wrong and how to fix it."""

    @abstractmethod
    async def session(self, case: EvalCase) -> AgentSession:
        """Open a conversation for ``case`` (its ``session_input`` seeds app, user, state;
        with ``takes_history``, ``case.history()`` is the conversation so far)."""

    async def aclose(self) -> None:  # noqa: B027 - an optional hook, a no-op by default
        """Release resources at the end of the run."""
