"""Before any case runs: can the agent's models be reached with the credentials at hand?

Checked without a network call, for every LLM agent of the tree under evaluation (the
root, or the ``agent_name`` sub-agent, and their sub-agents), on the model each resolves
to (``canonical_model``, which inherits a parent's):

* a Gemini model (``google.adk.models.Gemini``): ``GOOGLE_API_KEY`` or ``GEMINI_API_KEY``
  for the Gemini API, or ``GOOGLE_GENAI_USE_VERTEXAI=true`` with ``GOOGLE_CLOUD_PROJECT``
  and ``GOOGLE_CLOUD_LOCATION`` for Vertex AI (or ``GOOGLE_API_KEY`` for Vertex express
  mode); whether Application Default Credentials work cannot be told offline, but a
  ``GOOGLE_APPLICATION_CREDENTIALS`` that names no file is refused;
* a LiteLLM model (``google.adk.models.lite_llm.LiteLlm``): LiteLLM's own
  ``validate_environment`` for the model name (e.g. ``GROQ_API_KEY`` for ``groq/...``);
* any other model (a custom ``BaseLlm``, a model with its own client), or a model name
  ADK cannot resolve (ADK reports it when the agent runs): not checked.

Agents made by ``get_agent_async`` are only known once awaited, so they are not checked.
"""

from __future__ import annotations

import os
from typing import Any, Optional

from agenteval.errors import ConfigError

__all__ = ["check_credentials"]

_TRUE = {"1", "true", "yes", "on"}


def _env(name: str) -> str:
    return (os.environ.get(name) or "").strip()


def _gemini_problem() -> Optional[str]:
    if _env("GOOGLE_GENAI_USE_VERTEXAI").lower() in _TRUE:
        if _env("GOOGLE_API_KEY"):
            return None  # Vertex AI express mode
        missing = [n for n in ("GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION") if not _env(n)]
        if missing:
            return (
                f"GOOGLE_GENAI_USE_VERTEXAI is true but {' and '.join(missing)} "
                f"{'is' if len(missing) == 1 else 'are'} not set: set them for Vertex AI "
                "(or unset GOOGLE_GENAI_USE_VERTEXAI and set GOOGLE_API_KEY for the Gemini API)"
            )
        credentials = _env("GOOGLE_APPLICATION_CREDENTIALS")
        if credentials and not os.path.isfile(credentials):
            return f"GOOGLE_APPLICATION_CREDENTIALS points to {credentials!r}, which is not a file"
        return None
    if _env("GOOGLE_API_KEY") or _env("GEMINI_API_KEY"):
        return None
    return (
        "no credentials are set: set GOOGLE_API_KEY (or GEMINI_API_KEY) for the Gemini API, "
        "or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION "
        "for Vertex AI"
    )


def _litellm_problem(model: str) -> Optional[str]:
    try:
        import litellm
    except ImportError:
        return None  # ADK itself will say that LiteLLM is missing
    try:
        found = litellm.validate_environment(model=model)
    except Exception:  # noqa: BLE001 - an unknown provider: LiteLLM will say so when called
        return None
    missing = found.get("missing_keys") or []
    if found.get("keys_in_environment") or not missing:
        return None
    verb = "it is" if len(missing) == 1 else "they are"
    return f"LiteLLM needs {', '.join(missing)} for it, and {verb} not set"


def _problem(model: Any) -> Optional[tuple[str, str]]:
    """``(model description, what is wrong)`` for a model that cannot be reached."""
    from google.adk.models.google_llm import Gemini

    if isinstance(model, Gemini):
        problem = _gemini_problem()
        return (f"the Gemini model {model.model!r}", problem) if problem else None
    try:
        from google.adk.models.lite_llm import LiteLlm
    except ImportError:  # LiteLLM not installed: no agent can use it
        return None
    if isinstance(model, LiteLlm):
        problem = _litellm_problem(model.model)
        return (f"the LiteLLM model {model.model!r}", problem) if problem else None
    return None


def _llm_agents(agent: Any) -> list[Any]:
    from google.adk.agents import LlmAgent

    found, pending = [], [agent]
    while pending:
        current = pending.pop(0)
        if isinstance(current, LlmAgent):
            found.append(current)
        pending.extend(getattr(current, "sub_agents", None) or [])
    return found


def check_credentials(target: str, agent: Any, where: str = "") -> None:
    """``ConfigError`` naming the first agent whose model cannot be reached and what to
    set (see the module docstring); ``where`` adds e.g. "(or in the agent folder's .env)"."""
    for llm_agent in _llm_agents(agent):
        try:
            model = llm_agent.canonical_model
        except Exception:  # noqa: BLE001 - a name ADK cannot resolve: ADK says so when it runs
            continue
        found = _problem(model)
        if found is not None:
            model_text, problem = found
            msg = f"--agent {target!r}: the agent {llm_agent.name!r} uses {model_text}, but {problem}{where}"
            raise ConfigError(msg)
