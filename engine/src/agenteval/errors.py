"""agenteval's exceptions, in one place: what stops a run before any work, and what fails
during one.

Stop before any work (exit code 2, one message, never a traceback)::

    AgentEvalError
    ├── DataError            a malformed eval file, actual-invocations file or selection
    ├── ConfigError          a malformed config or criterion parameters
    ├── PluginLoadError      a requested plugin (criterion, judge-model provider, agent
    │                        adapter, user simulator...) is unknown, not installed, broken,
    │                        breaks its contract, or is provided twice
    └── RecordingError       the run folder cannot be written

Each carries a short, complete message: what is wrong, where (file, JSON path or
line:column), what is expected, and the fix.

Failures *during* a run never stop it: each becomes an ERRORED or NOT_EVALUATED result with
a reason code. These are the exception types plugins raise and embedders may catch:

    AgentCrashed         an adapter's agent process died (``agent_crashed``)
    AgentBaseException   an agent raised a ``BaseException`` (``SystemExit``...), carried as
                         an ordinary exception so it ends the case, not the run
    RemoteAgentError     the agent raised in its isolated worker process
    UserSimulatorError   a user simulator could not produce the next message
    JudgeCallError       a judge-model provider's one failed call (``retryable``, ``code``)
    JudgeUnavailable     a judge answer could not be had; the criterion's result is
                         NOT_EVALUATED with its ``code`` (one of ``REASON_CODES``)
"""

from __future__ import annotations

from typing import Optional

__all__ = [
    "ENDPOINT_DOWN_CODES",
    "JUDGE_BUDGET",
    "LEGACY_REASON_CODES",
    "REASON_CODES",
    "AgentBaseException",
    "AgentCrashed",
    "AgentEvalError",
    "ConfigError",
    "DataError",
    "JudgeCallError",
    "JudgeUnavailable",
    "PluginLoadError",
    "RecordingError",
    "RemoteAgentError",
    "UserSimulatorError",
]


class AgentEvalError(Exception):
    """Base class: a problem with the user's input that stops a run before any work."""

    exit_code = 2

    def __init__(self, message: str, *, source: Optional[str] = None) -> None:
        self.message = message
        self.source = source
        super().__init__(f"{source}: {message}" if source else message)


class DataError(AgentEvalError, ValueError):
    """An eval file, actual-invocations file or case selection is malformed."""


class ConfigError(AgentEvalError, ValueError):
    """A config file or a criterion's parameters are malformed."""


class PluginLoadError(AgentEvalError, LookupError):
    """A requested plugin cannot be loaded (unknown, not installed, broken, breaks its
    contract, or provided by two distributions)."""


class RecordingError(AgentEvalError):
    """The run folder could not be written (disk full, removed, no permission)."""


# Failures during a run: each becomes a result, never a stop.


class AgentCrashed(Exception):
    """Raised by an adapter when the agent's process died (``os._exit``, a signal, a
    segfault): the case is ERRORED with ``agent_crashed`` and the message."""


class AgentBaseException(Exception):
    """An agent raised a ``BaseException`` that is not an ``Exception`` (``SystemExit``,
    ``KeyboardInterrupt``, a custom one): carried as an ordinary exception so that it ends
    the case, not the run. ``original`` is what the agent raised."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(f"{type(original).__name__}: {original}")
        self.original = original


class RemoteAgentError(Exception):
    """The agent raised in its worker process: ``description`` (``ValueError: boom``) and
    the worker's ``remote_traceback``."""

    def __init__(self, description: str, remote_traceback: str) -> None:
        super().__init__(description)
        self.description = description
        self.remote_traceback = remote_traceback


class UserSimulatorError(Exception):
    """A simulator could not produce the next message; its message says why (the case
    becomes ERRORED with ``user_simulator_error``). Any other exception does the same,
    with its type named."""


#: The reason codes of judge-call failures, the same for every provider.
REASON_CODES: dict[str, str] = {
    "judge_error": "the call failed after retries (5xx, 429), or in a way retrying cannot fix "
    "(400, 404, an empty or blocked answer)",
    "judge_timeout": "every attempt timed out, or the endpoint stopped answering",
    "judge_unreachable": "the endpoint cannot be reached (connection refused, DNS, TLS); "
    "no further calls go to it",
    "judge_auth": "the endpoint refused the credentials (HTTP 401/403); no further calls go to it",
    "judge_unparseable": "an answer arrived but cannot be read (not the API's response "
    "format, or not the JSON the criterion asked for)",
    "judge_response_too_large": "the answer was larger than the response-size cap",
    "judge_interrupted": "the run was interrupted before the call finished",
    "judge_budget": "the run's judge budget (--judge-budget calls or --max-judge-tokens tokens) was "
    "spent before this call; the result it leaves unjudged is INCONCLUSIVE",
}
#: The reason code of a judge call the run's budget refused (``REASON_CODES``).
JUDGE_BUDGET = "judge_budget"
#: Reason codes older engines recorded -> the code they are read as now (run folders,
#: JSON documents and plugins written for an older engine).
LEGACY_REASON_CODES: dict[str, str] = {"judge_budget_exhausted": JUDGE_BUDGET}
#: Codes after which an endpoint gets no further calls in the run.
ENDPOINT_DOWN_CODES = frozenset({"judge_unreachable", "judge_auth"})


class JudgeCallError(Exception):
    """One judge call failed.

    Attributes:
        retryable: a later attempt may succeed (HTTP 408/429/5xx, timeouts, dropped
            connections); false for bad requests, auth failures and the like.
        status: the HTTP status, when there was one.
        retry_after: seconds the server asked to wait (``Retry-After``), if it said.
        code: the reason code (``REASON_CODES``) the call's NOT_EVALUATED result gets
            when it fails for good: ``judge_error`` by default. ``judge_unreachable`` and
            ``judge_auth`` stop every further call to the same endpoint.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: Optional[int] = None,
        retry_after: Optional[float] = None,
        code: str = "judge_error",
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.code = code

    @property
    def endpoint_down(self) -> bool:
        """Whether no further call should go to this endpoint in this run."""
        return self.code in ENDPOINT_DOWN_CODES


class JudgeUnavailable(Exception):
    """A judge answer could not be had; the invocation becomes NOT_EVALUATED.

    ``code`` is the reason code recorded in results (``REASON_CODES``); criteria raise
    ``judge_unparseable`` themselves when an answer cannot be read.
    """

    def __init__(self, message: str, code: str = "judge_error") -> None:
        super().__init__(message)
        self.code = code
