"""The user-simulator contract (entry-point group ``agenteval.user_simulators``).

A conversation-scenario case has no fixed user turns: a *user simulator* plays the user,
following the scenario's ``conversation_plan``. The engine drives the conversation:

1. it sends the scenario's ``starting_prompt`` verbatim as the first user message (no
   simulator call);
2. it then asks the simulator for each further message, with the invocations so far,
   and sends it to the agent, until the simulator answers with a status other than
   ``SUCCESS`` or ``max_allowed_invocations`` is reached (the starting prompt counts).

One simulator instance serves one conversation: one case in one run. The type is chosen by
``user_simulator_config.type`` (``llm_backed`` when absent, as in ADK)::

    [project.entry-points."agenteval.user_simulators"]
    llm_backed = "agenteval_llm_judges.user_simulator:LlmBackedUserSimulator"

A simulator that cannot produce a message (its model call failed for good, an empty
answer) raises; the engine then records that case as ERRORED with the reason code
``user_simulator_error``, and the other cases go on.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Optional

from .._loading._simulator_config import UserSimulatorConfig
from ..errors import UserSimulatorError
from ..models import Content, ConversationScenario, EvalCase, Invocation

if TYPE_CHECKING:  # the engine's judging package is imported only by the factory
    from .._judging import JudgeClient, JudgeService

__all__ = [
    "NextUserMessage",
    "SimulationContext",
    "SimulatorStatus",
    "UserSimulator",
    "UserSimulatorError",
]


class SimulatorStatus(str, enum.Enum):
    """How a request for the next user message ended (ADK's ``Status`` values)."""

    SUCCESS = "success"
    TURN_LIMIT_REACHED = "turn_limit_reached"
    STOP_SIGNAL_DETECTED = "stop_signal_detected"
    NO_MESSAGE_GENERATED = "no_message_generated"


@dataclass(frozen=True)
class NextUserMessage:
    """The next user message (``status`` SUCCESS), or why the conversation ends.

    ``details`` is what the engine records about this turn (model version, cache hit...);
    JSON-serialisable values only.
    """

    status: SimulatorStatus
    content: Optional[Content] = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if (self.status is SimulatorStatus.SUCCESS) != (self.content is not None):
            raise ValueError("a NextUserMessage has content if and only if its status is SUCCESS")

    @classmethod
    def say(cls, text: str, **details: Any) -> NextUserMessage:
        """A SUCCESS carrying one text message from the user."""
        return cls(SimulatorStatus.SUCCESS, Content.from_text(text, role="user"), details)

    @classmethod
    def stop(cls, status: SimulatorStatus, **details: Any) -> NextUserMessage:
        """The end of the conversation, for a reason other than SUCCESS."""
        return cls(SimulatorStatus(status), None, details)


@dataclass(frozen=True)
class SimulationContext:
    """What a simulator sees when asked for the next message.

    Attributes:
        case: the eval case (its ``session_input``, rubrics...).
        scenario: the case's ``conversation_scenario``.
        history: the invocations so far, oldest first; never empty (the first one is the
            starting prompt's turn).
        run_index: which run of the case this conversation is (0 for the first). A
            simulator whose answers are cached keys them on it, so that repeated runs
            (``num_runs``) can play different conversations.
    """

    case: EvalCase
    scenario: ConversationScenario
    history: Sequence[Invocation]
    run_index: int = 0

    @property
    def turn(self) -> int:
        """The number of the user message being asked for (2 for the first simulated one)."""
        return len(self.history) + 1


class UserSimulator(ABC):
    """A simulated user for one conversation (one case, one run).

    Built by the engine as ``cls(config, judge)``: ``config`` is the run's
    ``user_simulator_config``; ``judge`` is a ``JudgeClient`` of the run's judge service
    (its concurrency limit, retries, timeouts and cache), ``None`` when the caller gave
    no service.
    """

    #: A one-line description for listings and errors.
    description: ClassVar[str] = ""

    def __init__(self, config: UserSimulatorConfig, judge: Optional[JudgeClient] = None) -> None:
        self.config = config
        self.judge = judge

    @classmethod  # noqa: B027 - an optional hook, a no-op by default
    def check_ready(
        cls,
        config: UserSimulatorConfig,
        judge: Optional[JudgeService],
        cases: Sequence[EvalCase],
    ) -> None:
        """Preflight before any case runs, given the scenario cases it will play: check
        the model and its credentials (never call it), the config and each scenario
        (e.g. persona ids). Raise ``agenteval.errors.ConfigError`` saying what to fix."""

    def describe(self) -> dict[str, Any]:
        """What identifies this simulator's messages (prompt version and hash, model),
        recorded with each simulated conversation. JSON-serialisable values only."""
        return {}

    @abstractmethod
    async def next_message(self, ctx: SimulationContext) -> NextUserMessage:
        """The user's next message (``NextUserMessage.say``) or why the conversation
        ends (``NextUserMessage.stop``). Called for the second and later user messages
        only, and never past ``max_allowed_invocations``. Raise when no message can be
        had (see ``UserSimulatorError``)."""

    async def aclose(self) -> None:  # noqa: B027 - an optional hook, a no-op by default
        """The conversation is over (called whatever happened)."""
