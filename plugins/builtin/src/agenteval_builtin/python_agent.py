"""The ``python`` agent adapter: any Python function is an agent.

``agenteval run EVALSET --agent my_pkg.agent:respond`` (or ``--agent path/to/agent.py:respond``,
or ``--agent path/to/folder`` for a folder whose ``agent.py`` defines ``respond`` and no ADK
``root_agent``) calls the function once per user turn::

    def respond(message: str, history: list[Invocation]) -> str | dict | Invocation: ...
    async def respond(message: str, history: list[Invocation]) -> ...   # also fine

``message`` is the user's text; ``history`` holds the turns so far in this conversation
(each an ``agenteval.models.Invocation``), so a stateless function can still hold a
conversation. A case that starts with history (an Agent Platform dataset's
``conversation_history``, ``EvalCase.history()``) starts with those turns, as recorded, in
``history``: the first call of such a case already has them, and they are never scored.
The reply is one of:

* a ``str``: the final response, no tool calls;
* a ``dict``: ``{"text": str, "tool_calls": [{"name": str, "args": {...}}],
  "tool_responses": [{"name": str, "response": {...}}], "intermediate": [[author, text]],
  "model_calls": [{"model": str, "usage": {...}}]}`` (every key optional), recorded in the
  legacy ``tool_uses`` form, or, when it reports ``model_calls``, in ADK's event form: one
  event per model call the function made, carrying its token usage (OpenAI's names,
  ``{"prompt_tokens": 12, "completion_tokens": 5}``, or Gemini's ``usage_metadata``
  names; ``{}`` or no ``usage`` when unknown) and model name, which the efficiency
  criteria read (``inference_call_count_v1``, ``token_usage_v1``). Without
  ``model_calls`` those criteria are NOT_EVALUATED for the turn, never 0;
* an ``Invocation``, used as it is.

Each call runs outside the engine's event loop (``_agent_threads``): a synchronous function
in its own daemon thread, a coroutine function on the adapter's own event loop thread. A
slow or hung agent does not hold up other cases, its timeout fires in wall time, and a call
that cannot be stopped is abandoned (the case's failure names the thread) without keeping
the run from ending. For calls that must be killed, run with process isolation
(``agenteval._agents.ProcessIsolatedAgent``).

This is how agents built on any framework are evaluated: wrap the framework's call in such
a function.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agenteval.errors import ConfigError
from agenteval.models import Content, EvalCase, Invocation
from agenteval.plugins import Agent, AgentSession
from pydantic import ValidationError

from ._agent_threads import FunctionCaller
from ._usage import model_call_event

__all__ = ["PythonAgent", "reply_to_invocation"]

_TARGET = re.compile(r"^(?P<module>[^:]+?):(?P<function>[A-Za-z_][A-Za-z0-9_.]*)$")
_REPLY_KEYS = {"text", "tool_calls", "tool_responses", "intermediate", "model_calls"}
_MODEL_CALL_KEYS = {"model", "usage"}
#: The author of the events recorded for a function's turn.
_AUTHOR = "agent"
#: A folder target runs ``FOLDER/agent.py:respond``.
_FOLDER_MODULE, _FOLDER_FUNCTION = "agent.py", "respond"
#: Names that make ``agent.py`` an ADK agent (the ``adk`` adapter's), not a plain function.
_ADK_NAMES = {"root_agent", "app", "get_agent_async"}


def _folder_function(folder: Path) -> bool:
    """Whether ``folder/agent.py`` defines ``respond`` and none of ADK's agent names (read
    with ``ast``; nothing is imported). A file that does not parse is not claimed."""
    source = folder / _FOLDER_MODULE
    if not source.is_file():
        return False
    try:
        tree = ast.parse(source.read_bytes())
    except (SyntaxError, ValueError):
        return False
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return _FOLDER_FUNCTION in names and not names & _ADK_NAMES


def reply_to_invocation(reply: Any, user_content: Content, turn: int) -> Invocation:
    """The agent function's reply as an ``Invocation`` (see the module docstring)."""
    if isinstance(reply, Invocation):
        return reply if reply.user_content else reply.model_copy(update={"user_content": user_content})
    if isinstance(reply, str):
        reply = {"text": reply}
    if not isinstance(reply, dict):
        raise TypeError(f"the agent returned {type(reply).__name__}; return a str, a dict or an Invocation")
    unknown = set(reply) - _REPLY_KEYS
    if unknown:
        raise ValueError(
            f"the agent's reply has unknown keys {sorted(unknown)}; known: {sorted(_REPLY_KEYS)}"
        )
    calls = reply.get("tool_calls") or []
    responses = reply.get("tool_responses") or []
    steps = reply.get("intermediate") or []
    if reply.get("model_calls") is not None:
        intermediate = {"invocation_events": _events(calls, responses, steps, reply["model_calls"])}
    else:
        intermediate = {
            "tool_uses": calls,
            "tool_responses": responses,
            "intermediate_responses": [[author, [{"text": text}]] for author, text in steps],
        }
    data = {
        "invocation_id": f"turn-{turn}",
        "user_content": user_content,
        "final_response": {"role": "model", "parts": [{"text": reply.get("text")}]},
        "intermediate_data": intermediate,
    }
    try:
        return Invocation.model_validate(data)
    except ValidationError as exc:
        raise ValueError(f"the agent's reply is not a valid turn: {exc}") from None


def _events(calls: Any, responses: Any, steps: Any, model_calls: Any) -> list[dict[str, Any]]:
    """The reply in ADK's event form: tool calls, tool responses, intermediate texts, then
    one content-less event per model call (``ValueError`` for a malformed report)."""
    if not isinstance(model_calls, list):
        raise ValueError(f"the agent's reply: model_calls is a list of {{model, usage}}, got {model_calls!r}")
    events: list[dict[str, Any]] = [
        {"author": _AUTHOR, "content": {"role": "model", "parts": [{"function_call": c}]}} for c in calls
    ]
    events += [
        {"author": _AUTHOR, "content": {"role": "user", "parts": [{"function_response": r}]}}
        for r in responses
    ]
    events += [{"author": a, "content": {"role": "model", "parts": [{"text": t}]}} for a, t in steps]
    for index, call in enumerate(model_calls):
        where = f"the agent's reply: model_calls[{index}]"
        if not isinstance(call, dict) or set(call) - _MODEL_CALL_KEYS:
            raise ValueError(
                f'{where}: expected {{"model": str, "usage": {{...}}}} (both optional), got {call!r}'
            )
        try:
            events.append(model_call_event(_AUTHOR, call.get("usage") or {}, call.get("model")))
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
    return events


class _Session(AgentSession):
    def __init__(self, caller: FunctionCaller, history: list[Invocation]) -> None:
        self._caller = caller
        self._history = history
        self._left_behind: list[str] = []
        self._stopped: list[str] = []

    def left_behind(self) -> tuple[str, ...]:
        return tuple(self._left_behind)

    def stopped(self) -> tuple[str, ...]:
        return tuple(self._stopped)

    async def turn(self, user_content: Content) -> Invocation:
        message = user_content.text()
        history = list(self._history)
        reply = await self._caller.call(
            message, history, left_behind=self._left_behind, stopped=self._stopped
        )
        invocation = reply_to_invocation(reply, user_content, len(self._history) + 1)
        self._history.append(invocation)
        return invocation


class PythonAgent(Agent):
    """Calls a Python function ``module:function`` or ``file.py:function`` per user turn."""

    description = "a Python function: package.module:function or path/to/file.py:function"
    takes_history = True  # the case's history is the first turns of the function's ``history``

    def __init__(self, target: str) -> None:
        super().__init__(target)
        self._function: Callable[..., Any] | None = None
        self._caller: FunctionCaller | None = None

    @classmethod
    def claims(cls, target: str) -> bool:
        if "://" in target:
            return False
        return bool(_TARGET.match(target)) or (Path(target).is_dir() and _folder_function(Path(target)))

    def check_ready(self) -> None:
        self._function = self._load()

    def _load(self) -> Callable[..., Any]:
        spec_text = self.target
        if Path(spec_text).is_dir():
            if not (Path(spec_text) / _FOLDER_MODULE).is_file():
                raise ConfigError(
                    f"--agent {spec_text!r}: a folder target runs its {_FOLDER_MODULE}:{_FOLDER_FUNCTION}, "
                    f"and this folder has no {_FOLDER_MODULE}; name the function as path/to/file.py:function"
                )
            spec_text = f"{Path(spec_text) / _FOLDER_MODULE}:{_FOLDER_FUNCTION}"
        match = _TARGET.match(spec_text)
        if not match:
            raise ConfigError(
                f"--agent {self.target!r}: expected package.module:function or path/to/file.py:function"
            )
        module_name, function_name = match["module"], match["function"]
        try:
            if module_name.endswith(".py"):
                path = Path(module_name)
                if not path.is_file():
                    raise ConfigError(f"--agent {self.target!r}: no such file {module_name!r}")
                spec = importlib.util.spec_from_file_location(f"agenteval_agent_{path.stem}", path)
                module = importlib.util.module_from_spec(spec)
                sys.modules[spec.name] = module
                spec.loader.exec_module(module)
            else:
                module = importlib.import_module(module_name)
        except ConfigError:
            raise
        except Exception as exc:  # the user's module failed to import: stop before any work
            msg = f"--agent {self.target!r}: importing {module_name!r} failed: {type(exc).__name__}: {exc}"
            raise ConfigError(msg) from exc
        target: Any = module
        for part in function_name.split("."):
            target = getattr(target, part, None)
        if not callable(target):
            raise ConfigError(f"--agent {self.target!r}: {module_name!r} has no function {function_name!r}")
        return target

    async def session(self, case: EvalCase) -> AgentSession:
        if self._caller is None:
            if self._function is None:
                self._function = self._load()
            self._caller = FunctionCaller(self._function)
        return _Session(self._caller, case.history())

    async def aclose(self) -> None:
        if self._caller is not None:
            self._caller.close()
            self._caller = None
