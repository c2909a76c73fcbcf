"""Running the agent under test to get each case's actual invocations.

Fixed conversations replay each expected ``user_content`` in order (ADK's behaviour).
Cases run concurrently up to a bound; each turn has a timeout. A case whose agent raised or
timed out gets an ``AgentFailure`` instead of invocations: its criteria are then ERRORED
with the agent's error, and the other cases go on. Conversation scenarios need the
LLM-backed user simulator, which is not available yet: they are reported as such.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

from ..models import EvalCase, Invocation
from ._contract import Agent

__all__ = ["AgentFailure", "run_agent"]


@dataclass(frozen=True)
class AgentFailure:
    """Why a case has no actual invocations: what happened, and the traceback if any."""

    message: str
    code: str
    traceback: str = ""


async def _one_case(
    agent: Agent, case: EvalCase, limit: asyncio.Semaphore, timeout: float
) -> Union[list[Invocation], AgentFailure]:
    if case.conversation is None:
        return AgentFailure(
            "this case is a conversation scenario: it needs the LLM-backed user simulator, "
            "which agenteval does not have yet; give its actual invocations with --actual",
            "no_user_simulator",
        )
    async with limit:
        turns: list[Invocation] = []
        session = None
        try:
            session = await asyncio.wait_for(agent.session(case), timeout)
            for index, expected in enumerate(case.conversation):
                try:
                    invocation = await asyncio.wait_for(session.turn(expected.user_content), timeout)
                except asyncio.TimeoutError:
                    return AgentFailure(
                        f"turn {index + 1}: the agent did not answer within {timeout:g} s", "agent_timeout"
                    )
                if not isinstance(invocation, Invocation):
                    kind = type(invocation).__name__
                    return AgentFailure(
                        f"turn {index + 1}: the adapter returned {kind}, not an Invocation", "agent_error"
                    )
                turns.append(invocation)
        except asyncio.TimeoutError:
            return AgentFailure(f"the agent's session did not start within {timeout:g} s", "agent_timeout")
        except Exception as exc:  # the agent's crash is this case's result; the run goes on
            trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            return AgentFailure(
                f"turn {len(turns) + 1}: the agent raised {type(exc).__name__}: {exc}", "agent_error", trace
            )
        finally:
            if session is not None:
                try:
                    await session.aclose()
                except Exception:  # noqa: BLE001 - closing must not hide the case's outcome
                    pass
        return turns


async def run_agent(
    agent: Agent, cases: Sequence[EvalCase], *, concurrency: int = 4, timeout: float = 300.0
) -> list[Union[list[Invocation], AgentFailure]]:
    """Each case's actual invocations (or why there are none), in the order of ``cases``."""
    limit = asyncio.Semaphore(max(1, concurrency))
    return list(await asyncio.gather(*(_one_case(agent, case, limit, timeout) for case in cases)))
