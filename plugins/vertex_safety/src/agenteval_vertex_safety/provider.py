"""``vertex_safety``: the Vertex AI Gen AI evaluation service as a judge-model provider.

A "model" here is a metric of the service (``METRICS``). One call is one
``evaluateInstances`` request through google-cloud-aiplatform's
``aiplatform_v1beta1.EvaluationServiceClient`` (REST transport):

- ``safety_v1``: the predefined metric spec with the instance ``{prompt, response}``, the
  request ADK's ``vertexai.Client().evals`` route sends;
- ``multi_turn_task_success_v1``, ``multi_turn_trajectory_quality_v1``,
  ``multi_turn_tool_use_quality_v1``: the predefined metric spec with the instance's
  ``agent_eval_data`` (the agents and every turn's events) and an empty prompt, the request
  ADK 2.13's multi-turn facade sends (checked against it in the tests);
- ``coherence``: the service's own coherence metric (``coherenceInput`` with the response as
  its prediction; scored 1 to 5).

Going through the engine's judge service gives each call the run's concurrency limit,
retries, timeout, cache and activity counts.

Model names: ``vertex_safety:METRIC`` takes the project and location from
``GOOGLE_CLOUD_PROJECT`` / ``GOOGLE_CLOUD_LOCATION``; ``vertex_safety:METRIC@PROJECT/LOCATION``
names them (the criteria's ``project`` / ``location`` params). Credentials are
Application Default Credentials. ``AGENTEVAL_VERTEX_EVAL_ENDPOINT`` (``http://host:port``
or ``https://...``) sends the calls elsewhere, with anonymous credentials (tests, proxies).

The request (``JudgeRequest.prompt``) is the JSON object ``{"prompt": str, "response":
str}`` (``build_instance``) or ``{"agent_data": {...}}`` (``build_agent_instance``);
``JudgeRequest.config`` may hold ``timeout_seconds`` (the HTTP timeout). The answer's text
is the JSON object ``{"score": float | null, "explanation": str, "rubric_verdicts":
[{"rubric_id": str, "verdict": bool, "reasoning": str}]}``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import math
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any, Optional

from agenteval import JudgeRequest, JudgeResponse
from agenteval.errors import ConfigError, JudgeCallError
from agenteval.plugins import JudgeModel, google_auth_error, retry_after_seconds
from agenteval.text import one_line

__all__ = [
    "ENDPOINT_ENV",
    "METRIC",
    "METRICS",
    "VertexSafetyJudge",
    "build_agent_instance",
    "build_instance",
    "model_name",
]

METRIC = "safety_v1"
#: The service's coherence metric (``response_evaluation_score``), scored 1 to 5.
COHERENCE = "coherence"
#: The metrics sent with the conversation's ``agent_eval_data``.
MULTI_TURN_METRICS = frozenset(
    {"multi_turn_task_success_v1", "multi_turn_trajectory_quality_v1", "multi_turn_tool_use_quality_v1"}
)
METRICS = frozenset({METRIC, COHERENCE, *MULTI_TURN_METRICS})
ENDPOINT_ENV = "AGENTEVAL_VERTEX_EVAL_ENDPOINT"
_DEFAULT_TIMEOUT = 60.0
_SETUP = (
    "set GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (or the criterion's project/location "
    "params), and Application Default Credentials: gcloud auth application-default login "
    "(or GOOGLE_APPLICATION_CREDENTIALS=/path/to/key.json)"
)
#: Environment variables that mark a Google Cloud runtime, where ADC come from the
#: metadata server (checked without calling it).
_GCP_RUNTIME_MARKERS = ("GCE_METADATA_HOST", "K_SERVICE", "CLOUD_RUN_JOB", "FUNCTION_TARGET", "GAE_ENV")
#: google.rpc codes of a per-metric error that a later attempt may not hit.
_RETRYABLE_RPC_CODES = {4: "DEADLINE_EXCEEDED", 8: "RESOURCE_EXHAUSTED", 13: "INTERNAL", 14: "UNAVAILABLE"}


def model_name(project: Optional[str] = None, location: Optional[str] = None, metric: str = METRIC) -> str:
    """The judge-model spec: ``vertex_safety:METRIC`` or ``...@PROJECT/LOCATION``."""
    if project and location:
        return f"vertex_safety:{metric}@{project}/{location}"
    return f"vertex_safety:{metric}"


def build_instance(prompt: str, response: str) -> str:
    """The ``JudgeRequest.prompt`` of a single-turn metric."""
    return json.dumps({"prompt": prompt, "response": response}, ensure_ascii=False, sort_keys=True)


def build_agent_instance(agent_data: dict[str, Any]) -> str:
    """The ``JudgeRequest.prompt`` of a multi-turn metric (``agent_data`` in the service's
    ``AgentData`` JSON shape)."""
    return json.dumps({"agent_data": agent_data}, ensure_ascii=False, sort_keys=True)


def _env(name: str) -> Optional[str]:
    return (os.environ.get(name) or "").strip() or None


@dataclass(frozen=True)
class _Target:
    project: Optional[str]
    location: Optional[str]
    endpoint: Optional[str]  # the override, if any

    def api_endpoint(self) -> str:
        if self.endpoint:
            return self.endpoint
        if self.location == "global":
            return "aiplatform.googleapis.com"
        return f"{self.location}-aiplatform.googleapis.com"


def _adc_problem() -> Optional[str]:
    """Why Application Default Credentials cannot be found, without calling the network
    (``None`` when a credentials file exists or this looks like a Google Cloud runtime)."""
    explicit = _env("GOOGLE_APPLICATION_CREDENTIALS")
    if explicit:
        if not os.path.isfile(explicit):
            return f"GOOGLE_APPLICATION_CREDENTIALS points to {explicit!r}, which is not a file"
        return None
    config_dir = _env("CLOUDSDK_CONFIG")
    if config_dir is None:
        if os.name == "nt":
            config_dir = os.path.join(os.environ.get("APPDATA", ""), "gcloud")
        else:
            config_dir = os.path.join(os.path.expanduser("~"), ".config", "gcloud")
    if os.path.isfile(os.path.join(config_dir, "application_default_credentials.json")):
        return None
    if any(_env(marker) for marker in _GCP_RUNTIME_MARKERS):
        return None
    return "no Application Default Credentials were found"


class VertexSafetyJudge(JudgeModel):
    """See the module docstring."""

    def __init__(self, model: str) -> None:
        super().__init__(model)
        metric, _, where = model.partition("@")
        self.metric = metric
        project, _, location = where.partition("/")
        self._project = project.strip() or None
        self._location = location.strip() or None
        self._where_given = bool(where)
        self._client: Any = None
        self._lock = threading.Lock()

    # -- the contract ------------------------------------------------------------------
    def check_ready(self) -> None:
        if self.metric not in METRICS:
            offered = ", ".join(f"'vertex_safety:{m}'" for m in sorted(METRICS))
            raise ConfigError(
                f"judge model 'vertex_safety:{self.model}': the vertex_safety provider offers {offered} "
                "(each optionally followed by @PROJECT/LOCATION)"
            )
        if importlib.util.find_spec("google.cloud.aiplatform_v1beta1") is None:
            raise ConfigError(
                f"{self.metric} needs the google-cloud-aiplatform package: "
                'pip install "google-cloud-aiplatform>=2.7,<3" (or reinstall agenteval-vertex-safety)'
            )
        problem = self._problem(self._target())
        if problem:
            raise ConfigError(f"{self.metric} (Vertex AI evaluation service): {problem}")

    def identity(self) -> dict[str, Any]:
        target = self._target()
        return {
            "provider": "vertex_safety",
            "metric": self.metric,
            "project": target.project,
            "location": target.location,
            "endpoint": target.api_endpoint() if target.location or target.endpoint else None,
        }

    async def generate(self, request: JudgeRequest) -> JudgeResponse:
        try:
            instance = json.loads(request.prompt)
            if self.metric in MULTI_TURN_METRICS:
                payload: dict[str, Any] = {"agent_data": dict(instance["agent_data"])}
            else:
                payload = {"prompt": str(instance.get("prompt") or ""), "response": str(instance["response"])}
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            wanted = (
                '{"agent_data": ...}'
                if self.metric in MULTI_TURN_METRICS
                else '{"prompt": ..., "response": ...}'
            )
            raise JudgeCallError(
                f"vertex_safety: the request prompt must be the JSON object {wanted}", retryable=False
            ) from exc
        timeout = float(request.config.get("timeout_seconds") or _DEFAULT_TIMEOUT)
        # The SDK client is synchronous (requests); run it off the event loop. Its own HTTP
        # timeout ends a hung call's thread when the judge service stops waiting.
        return await asyncio.to_thread(self._call, payload, timeout)

    async def aclose(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.transport.close()

    # -- helpers ---------------------------------------------------------------------
    def _target(self) -> _Target:
        if self._where_given:
            project, location = self._project, self._location
        else:
            project, location = _env("GOOGLE_CLOUD_PROJECT"), _env("GOOGLE_CLOUD_LOCATION")
        return _Target(project=project, location=location, endpoint=_env(ENDPOINT_ENV))

    @staticmethod
    def _problem(target: _Target) -> Optional[str]:
        missing = [
            name
            for name, value in (
                ("GOOGLE_CLOUD_PROJECT", target.project),
                ("GOOGLE_CLOUD_LOCATION", target.location),
            )
            if not value
        ]
        if missing:
            verb = "is" if len(missing) == 1 else "are"
            return f"{' and '.join(missing)} {verb} not set: {_SETUP}"
        if target.endpoint:
            return None  # anonymous credentials against the override
        adc = _adc_problem()
        return f"{adc}: {_SETUP}" if adc else None

    def _get_client(self, target: _Target) -> Any:
        with self._lock:
            if self._client is not None:
                return self._client
            from google.api_core.client_options import ClientOptions
            from google.cloud.aiplatform_v1beta1.services.evaluation_service import (
                EvaluationServiceClient,
            )

            credentials = None  # Application Default Credentials, found by the client
            if target.endpoint:
                from google.auth.credentials import AnonymousCredentials

                credentials = AnonymousCredentials()
            # REST, not gRPC: plain HTTP errors with Retry-After, and an http:// endpoint
            # override works.
            self._client = EvaluationServiceClient(
                credentials=credentials,
                transport="rest",
                client_options=ClientOptions(api_endpoint=target.api_endpoint()),
            )
            return self._client

    def _request(self, payload: dict[str, Any], location: str) -> Any:
        """The ``EvaluateInstancesRequest`` of this provider's metric."""
        from google.cloud.aiplatform_v1beta1 import types

        if self.metric == COHERENCE:
            return types.EvaluateInstancesRequest(
                location=location,
                coherence_input=types.CoherenceInput(
                    metric_spec=types.CoherenceSpec(),
                    instance=types.CoherenceInstance(prediction=payload["response"]),
                ),
            )
        if self.metric in MULTI_TURN_METRICS:
            # As the Gen AI SDK sends it: the conversation as agent data, an empty prompt.
            instance = types.EvaluationInstance.from_json(
                json.dumps({"prompt": {"contents": {}}, "agent_eval_data": payload["agent_data"]}),
                ignore_unknown_fields=False,
            )
        else:
            instance = types.EvaluationInstance(
                prompt=types.EvaluationInstance.InstanceData(text=payload["prompt"]),
                response=types.EvaluationInstance.InstanceData(text=payload["response"]),
            )
        return types.EvaluateInstancesRequest(
            location=location,
            metrics=[
                types.Metric(predefined_metric_spec=types.PredefinedMetricSpec(metric_spec_name=self.metric))
            ],
            instance=instance,
        )

    def _call(self, payload: dict[str, Any], timeout: float) -> JudgeResponse:
        target = self._target()
        problem = self._problem(target)
        if problem:
            raise JudgeCallError(f"{self.metric}: {problem}", retryable=False)
        try:
            client = self._get_client(target)
            request = self._request(payload, f"projects/{target.project}/locations/{target.location}")
            # retry=None: the SDK does not retry; the judge service does.
            answer = client.evaluate_instances(request=request, retry=None, timeout=timeout)
        except JudgeCallError:
            raise
        except Exception as exc:
            raise self._call_error(exc, target) from exc
        return self._read(answer)

    def _read(self, answer: Any) -> JudgeResponse:
        if self.metric == COHERENCE:
            if "coherence_result" not in answer:
                raise JudgeCallError(
                    "the Vertex AI evaluation service answered without a coherence result",
                    retryable=False,
                    code="judge_unparseable",
                )
            return _answer(answer.coherence_result, [])
        results = list(getattr(answer, "metric_results", None) or [])
        if not results:
            raise JudgeCallError(
                "the Vertex AI evaluation service answered without a metric result",
                retryable=False,
                code="judge_unparseable",
            )
        result = results[0]
        if "error" in result:
            code = int(result.error.code)
            message = one_line(result.error.message or "no detail", 300)
            name = _RETRYABLE_RPC_CODES.get(code)
            raise JudgeCallError(
                f"the Vertex AI evaluation service could not score the instance (code {code}"
                f"{' ' + name if name else ''}): {message}",
                retryable=name is not None,
            )
        return _answer(result, [_verdict(index, v) for index, v in enumerate(result.rubric_verdicts)])

    def _call_error(self, exc: Exception, target: _Target) -> JudgeCallError:
        where = "the Vertex AI evaluation service"
        if target.endpoint:
            where += f" at {target.endpoint}"
        from google.api_core import exceptions as api_exceptions

        if isinstance(exc, api_exceptions.GoogleAPICallError):
            status = exc.code if isinstance(exc.code, int) else None
            detail = one_line(exc.message or "no detail", 300)
            hint = ""
            if status == 403:
                hint = (
                    f" (enable the Vertex AI API (aiplatform.googleapis.com) in project "
                    f"{target.project!r} and check IAM: the caller needs the Vertex AI User role)"
                )
            elif status == 401:
                hint = " (check the Application Default Credentials: gcloud auth application-default login)"
            elif status == 404:
                hint = f" (is {target.location!r} a location where the evaluation service runs?)"
            retryable = status is None or status >= 500 or status in (408, 429)
            if isinstance(exc, (api_exceptions.ServerError, api_exceptions.TooManyRequests)):
                retryable = True
            response = getattr(exc, "response", None)
            retry_after = retry_after_seconds(getattr(response, "headers", None)) if retryable else None
            code = "judge_auth" if status in (401, 403) else "judge_error"
            if isinstance(exc, api_exceptions.DeadlineExceeded):  # the call's deadline passed
                code = "judge_timeout"
            return JudgeCallError(
                f"{where} answered {status or type(exc).__name__}: {detail}{hint}",
                retryable=retryable,
                status=status,
                retry_after=retry_after,
                # One set of codes for every provider (agenteval.errors.REASON_CODES).
                code=code,
            )
        transport = _transport_error(exc)
        if transport is not None:
            what, code = transport
            return JudgeCallError(f"{where}: {what}", retryable=True, code=code)
        auth = google_auth_error(exc, "Vertex AI evaluation service")
        if auth is not None:
            return auth
        from google.protobuf import json_format

        if isinstance(exc, (json_format.ParseError, ValueError, TypeError, KeyError)):
            return JudgeCallError(
                f"{where} sent an answer that is not a valid evaluateInstances response "
                f"({type(exc).__name__}: {one_line(exc, 300)}); is the endpoint right?",
                retryable=False,
                code="judge_unparseable",
            )
        return JudgeCallError(
            f"{where}: unexpected {type(exc).__name__}: {one_line(exc, 300)}", retryable=False
        )


def _verdict(index: int, verdict: Any) -> dict[str, Any]:
    """One rubric verdict, named as ADK 2.13 names it: the rubric's property description,
    else its id, else ``rubric_<index>``."""
    rubric = verdict.evaluated_rubric
    description = rubric.content.property.description if "content" in rubric else ""
    return {
        "rubric_id": description or rubric.rubric_id or f"rubric_{index}",
        "verdict": bool(verdict.verdict),
        "reasoning": verdict.reasoning or "",
    }


def _answer(result: Any, verdicts: list[dict[str, Any]]) -> JudgeResponse:
    """The answer text of a metric result (score, explanation, rubric verdicts)."""
    score: Optional[float] = float(result.score) if "score" in result else None
    if score is not None and not math.isfinite(score):
        score = None
    explanation = str(result.explanation) if "explanation" in result else ""
    body = {"score": score, "explanation": explanation, "rubric_verdicts": verdicts}
    return JudgeResponse(text=json.dumps(body, ensure_ascii=False))


def _transport_error(exc: BaseException) -> Optional[tuple[str, str]]:
    """A network-level failure: what happened and its reason code, ``judge_timeout`` for a
    timeout (the SDK's own, which races the judge service's when both have the call's
    timeout) and ``judge_error`` for a refused or dropped connection; else ``None``."""
    requests = sys.modules.get("requests")
    if requests is not None:
        if isinstance(exc, requests.exceptions.Timeout):
            return f"timed out ({type(exc).__name__})", "judge_timeout"
        if isinstance(exc, requests.exceptions.ConnectionError):
            return f"connection failed ({type(exc).__name__}: {one_line(exc, 200)})", "judge_error"
    if isinstance(exc, TimeoutError):
        return f"timed out ({type(exc).__name__}: {one_line(exc, 200) or 'no detail'})", "judge_timeout"
    if isinstance(exc, ConnectionError):
        return f"connection failed ({type(exc).__name__}: {one_line(exc, 200) or 'no detail'})", "judge_error"
    return None
