"""The ``adk`` agent adapter: runs a Google ADK agent in-process, as ``adk eval`` does.

``agenteval run EVALSET --agent path/to/agent_folder`` (the folder ``adk eval`` takes: its
``agent.py`` defines ``root_agent``, or an ``App`` as ``app``, or ``get_agent_async``) or
``--agent my_pkg.agent`` (a dotted module, as ``AgentEvaluator.evaluate`` takes).

Each eval case is one ADK session, seeded from the case's ``session_input`` (app name, user
id, state, pinned session id) with ADK's defaults otherwise (app ``EvaluationGenerator``,
user ``test_user_id``, a generated ``adk-eval-session-...`` id). A case that starts with
history (``EvalCase.history()``, an Agent Platform dataset's ``conversation_history``) has
its recorded turns appended to the new session as the events ADK would have recorded
(``_history``: the user's message, the tool calls and responses, the final response), so the
agent answers the judged turns with that conversation behind it. Every user turn is one
``Runner.run_async`` call, whose events become that turn's ``Invocation`` (see
``_events``). Each case gets its own ``Runner`` (cheap: a fraction of a millisecond) with its
own in-memory memory service, so nothing one case stores in memory leaks into another, as
with ``adk eval``; sessions and artifacts live in in-memory services shared by the run's
cases, as ``adk eval`` shares them. An exception raised by the agent (a tool, a callback,
the model) makes that case ERRORED.

``AdkAgent(target, intermediate_form="legacy")`` records the legacy ``tool_uses`` form
instead of ADK's ``invocation_events``; the builtin criteria score both alike.

``--agent path/to/agent_folder#sub_agent_name`` (or ``AdkAgent(target, agent_name=...)``)
evaluates one sub-agent of the tree on its own, as ``AgentEvaluator``'s ``agent_name``
does. A ``reset_data()`` function beside the agent is called before each case's
conversation, as ADK does. Before any case runs, ``check_ready`` imports the agent and checks that its models
can be reached with the credentials at hand (``_preflight``; no network call). Each turn's
duration is split into model and tool time with ADK's own instrumentation, as ``adk eval``
does. What ADK logs (its ``google_adk`` loggers, warnings and up) while a case's turns run
is kept in that session's ``log`` (``_logs``) instead of going to stderr, and reaches the
case's recorded output through ``AgentSession.output()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import inspect
import logging
import time
import uuid
from collections.abc import Iterator
from contextlib import aclosing
from pathlib import Path
from typing import Any, Optional

from agenteval.errors import ConfigError
from agenteval.models import Content, EvalCase, Invocation
from agenteval.plugins import Agent, AgentSession

from . import _logs, _target
from ._events import Form, app_details, build_invocation, to_genai_content
from ._history import history_events
from ._loading import LoadedAgent, load_agent
from ._preflight import check_credentials

__all__ = ["AdkAgent"]

logger = logging.getLogger(__name__)

#: ADK's eval defaults for a case without ``session_input``.
DEFAULT_APP_NAME = "EvaluationGenerator"
DEFAULT_USER_ID = "test_user_id"
SESSION_ID_PREFIX = "adk-eval-session-"
_WHERE_TO_SET = " (in the environment, or in a .env file in the agent's folder or a folder above it)"
#: ``--agent FOLDER#NAME`` evaluates the sub-agent ``NAME`` (ADK's ``agent_name``).
AGENT_NAME_SEPARATOR = "#"


class _Session(AgentSession):
    def __init__(self, runner: Any, recorder: Any, user_id: str, session_id: str, form: Form) -> None:
        self._runner = runner
        self._recorder = recorder
        self._user_id = user_id
        self._session_id = session_id
        self._form = form
        #: What ADK logged (warnings and up) during this conversation's turns, in order:
        #: ``{"turn", "level", "logger", "message"}`` each (see ``_logs``).
        self.log: list[dict[str, Any]] = []
        self._turns = 0

    def output(self) -> str:
        """ADK's log records of this conversation, one line each (``turn N: LEVEL logger:
        message``): the engine adds them to the case's output."""
        return "".join(f"turn {r['turn']}: {r['level']} {r['logger']}: {r['message']}\n" for r in self.log)

    async def turn(self, user_content: Content) -> Invocation:
        message = to_genai_content(user_content)
        events: list[Any] = []
        self._turns += 1
        started_at, clock = time.time(), time.monotonic()
        stream = self._runner.run_async(
            user_id=self._user_id, session_id=self._session_id, new_message=message
        )
        with _logs.captured(self.log, self._turns), _busy_intervals() as busy:
            async with aclosing(stream):
                async for event in stream:
                    events.append(event)
        duration = round(time.monotonic() - clock, 3)
        invocation_id = next((e.invocation_id for e in events if e.invocation_id), "")
        invocation = build_invocation(
            user_content,
            events,
            form=self._form,
            app=app_details(self._recorder.take(invocation_id)),
            started_at=started_at,
            duration=duration,
        )
        if busy is None:
            return invocation
        model, tool = round(busy.model_seconds(), 3), round(busy.tool_seconds(), 3)
        return invocation.model_copy(update={"model_duration": model, "tool_duration": tool})


@contextlib.contextmanager
def _busy_intervals() -> Iterator[Any]:
    """ADK's own model/tool time collector (what ``adk eval`` splits a turn's duration
    with), or ``None`` when this google-adk has none: the split is then unknown."""
    try:
        from google.adk.telemetry import _instrumentation
    except ImportError:
        yield None
        return
    collect = getattr(_instrumentation, "collect_busy_intervals", None)
    if collect is None:
        yield None
        return
    with collect() as busy:
        yield busy


class _Run:
    """What one run shares between its cases: the root agent, services and runners."""

    def __init__(self, loaded: LoadedAgent) -> None:
        from google.adk.artifacts import InMemoryArtifactService
        from google.adk.memory import InMemoryMemoryService
        from google.adk.sessions import InMemorySessionService

        from ._plugins import RequestRecorder, RetryDefaults

        self.loaded = loaded
        self.sessions = InMemorySessionService()
        self.artifacts = InMemoryArtifactService()
        self.new_memory = InMemoryMemoryService
        self.recorder = RequestRecorder()
        self.plugins = [self.recorder, RetryDefaults()]
        self.apps: dict[str, Any] = {}
        #: Every case's runner wraps the same agent and plugins: closing one closes them.
        self.closer: Any = None
        self.root_agent: Any = loaded.root_agent
        self.exit_stack: Any = None
        self._lock = asyncio.Lock()

    async def root(self) -> Any:
        """The root agent; ``get_agent_async()`` is awaited once, on first use."""
        async with self._lock:
            if self.root_agent is None:
                made = await self.loaded.factory()
                agent, self.exit_stack = made if isinstance(made, tuple) else (made, None)
                self.root_agent = _checked_agent(agent, self.loaded.source)
        return self.root_agent

    def runner(self, app_name: str, root: Any) -> Any:
        """A new runner for one case: the shared sessions and artifacts, its own memory."""
        from google.adk.runners import Runner

        if app_name not in self.apps:
            from google.adk.apps import App

            app = self.loaded.app
            if app is not None:  # the app's plugins and configs apply; ours run after them
                app = app.model_copy(update={"plugins": [*app.plugins, *self.plugins], "root_agent": root})
            else:  # validation skipped, as Runner does for a bare agent: any folder name goes
                app = App.model_construct(name=self.loaded.name, root_agent=root, plugins=list(self.plugins))
            self.apps[app_name] = app
        runner = Runner(
            app=self.apps[app_name],
            app_name=app_name,
            session_service=self.sessions,
            artifact_service=self.artifacts,
            memory_service=self.new_memory(),
        )
        self.closer = self.closer or runner
        return runner

    async def close(self) -> None:
        closer, self.closer = self.closer, None
        try:
            if closer is not None:  # closes the agent's toolsets and the plugins, once
                await closer.close()
        except Exception as exc:  # noqa: BLE001 - closing must not hide the run's results
            logger.warning("closing the ADK runner failed: %s: %s", type(exc).__name__, exc)
        stack, self.exit_stack = self.exit_stack, None
        if stack is not None:
            try:
                await (stack.aclose() if hasattr(stack, "aclose") else stack.__aexit__(None, None, None))
            except Exception as exc:  # noqa: BLE001 - as above
                logger.warning("closing get_agent_async's exit stack failed: %s: %s", type(exc).__name__, exc)


def _checked_agent(agent: Any, source: str) -> Any:
    from google.adk.agents import BaseAgent
    from google.adk.workflow import BaseNode

    if not isinstance(agent, (BaseAgent, BaseNode)):
        raise TypeError(f"{source} returned a {type(agent).__name__}, not an ADK agent")
    return agent


class AdkAgent(Agent):
    """Runs a Google ADK agent (a folder holding ``agent.py`` with ``root_agent``, or a
    dotted module) in-process, one ADK session per eval case."""

    description = "a Google ADK agent: its folder (agent.py with root_agent) or a dotted module"
    takes_history = True  # appended to the new session as ADK events (``_history``)

    def __init__(
        self, target: str, *, intermediate_form: Form = "events", agent_name: Optional[str] = None
    ) -> None:
        super().__init__(target)
        if intermediate_form not in ("events", "legacy"):
            raise ValueError(f"intermediate_form must be 'events' or 'legacy', not {intermediate_form!r}")
        self.intermediate_form: Form = intermediate_form
        path, _, suffix = target.partition(AGENT_NAME_SEPARATOR)
        #: The agent folder or module, without a ``#agent_name`` suffix.
        self.agent_path = path
        #: The sub-agent to evaluate on its own (``None``: the root agent).
        self.agent_name = agent_name or suffix or None
        self._loaded: Optional[LoadedAgent] = None
        self._run: Optional[_Run] = None

    @classmethod
    def claims(cls, target: str) -> bool:
        return _target.claims(target.partition(AGENT_NAME_SEPARATOR)[0])

    def adk_app(self) -> Optional[tuple[Path, str]]:
        """An agent folder's path and app name (its folder name, as ``adk eval`` names it)."""
        folder = Path(self.agent_path)
        return (folder.resolve(), folder.resolve().name) if folder.is_dir() else None

    def check_ready(self) -> None:
        self._loaded = load_agent(self.agent_path)
        if self._loaded.root_agent is not None:
            agent = self._selected(self._loaded.root_agent)
            check_credentials(self.target, agent, _WHERE_TO_SET)

    def _selected(self, root: Any) -> Any:
        """The agent under evaluation: ``root``, or its sub-agent named ``agent_name``."""
        if self.agent_name is None:
            return root
        found = root.find_agent(self.agent_name)
        if found is None:
            names = []
            pending = [root]
            while pending:
                current = pending.pop(0)
                names.append(current.name)
                pending.extend(getattr(current, "sub_agents", None) or [])
            msg = (
                f"--agent {self.target!r}: the agent tree has no agent named {self.agent_name!r}; "
                f"its agents: {', '.join(names)}"
            )
            raise ConfigError(msg)
        return found

    async def session(self, case: EvalCase) -> AgentSession:
        if self._loaded is None:
            self._loaded = load_agent(self.agent_path)
        if self._run is None:
            self._run = _Run(self._loaded)
        run = self._run
        root = self._selected(await run.root())
        if self._loaded.reset_data is not None:  # as ADK's inference, before each case
            reset = self._loaded.reset_data()
            if inspect.isawaitable(reset):
                await reset
        given = case.session_input
        app_name = given.app_name if given else DEFAULT_APP_NAME
        user_id = given.user_id if given else DEFAULT_USER_ID
        pinned = given.session_id if given else None
        session = None
        if pinned:  # a pinned session that already exists is reused as it is, as ADK does
            session = await run.sessions.get_session(app_name=app_name, user_id=user_id, session_id=pinned)
        if session is None:
            session = await run.sessions.create_session(
                app_name=app_name,
                user_id=user_id,
                state=copy.deepcopy(given.state) if given else {},
                session_id=pinned or f"{SESSION_ID_PREFIX}{uuid.uuid4()}",
            )
            for event in history_events(case.history(), root):  # the conversation so far
                await run.sessions.append_event(session, event)
        runner = run.runner(app_name, root)
        return _Session(runner, run.recorder, user_id, session.id, self.intermediate_form)

    async def aclose(self) -> None:
        run, self._run = self._run, None
        if run is not None:
            await run.close()
