"""google-auth failures mapped to judge-call errors, once for every Google-backed plugin.

The Gemini judge provider (agenteval-llm-judges) and the Vertex AI evaluation service
(agenteval-vertex-safety) both reach Google through Application Default Credentials; a
failed credential lookup or token refresh must give the same reason code in both
(``judging/_errors.py``: one set of codes). ``google.auth`` is imported only when an
error is being classified, and only if it is installed.
"""

from __future__ import annotations

from typing import Optional

from ..text import one_line
from ._errors import JudgeCallError

__all__ = ["google_auth_error"]

_ADC_FIX = "run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS"


def google_auth_error(exc: BaseException, service: str) -> Optional[JudgeCallError]:
    """The ``JudgeCallError`` for a google-auth failure raised while calling ``service``
    (named at the start of the message, e.g. ``"Vertex AI"``), else ``None``.

    - no Application Default Credentials: ``judge_auth``, not retryable (the message says
      how to set them up);
    - a token refresh the server refused: ``judge_auth``, not retryable; one google-auth
      marks as retryable (a 5xx of the token endpoint): ``judge_error``, retryable;
    - the token endpoint unreachable: ``judge_error``, retryable;
    - any other google-auth error: ``judge_auth``, not retryable.
    """
    try:
        from google.auth import exceptions as auth_exceptions
    except ImportError:
        return None
    detail = one_line(exc, 300)
    if isinstance(exc, auth_exceptions.DefaultCredentialsError):
        return JudgeCallError(
            f"{service}: no Application Default Credentials ({detail}); {_ADC_FIX}",
            retryable=False,
            code="judge_auth",
        )
    if isinstance(exc, auth_exceptions.RefreshError):
        retryable = bool(getattr(exc, "retryable", False))
        return JudgeCallError(
            f"{service}: could not refresh the Google access token: {detail}",
            retryable=retryable,
            code="judge_error" if retryable else "judge_auth",
        )
    if isinstance(exc, auth_exceptions.TransportError):
        return JudgeCallError(
            f"{service}: could not reach the Google token endpoint: {detail}", retryable=True
        )
    if isinstance(exc, auth_exceptions.GoogleAuthError):
        return JudgeCallError(f"{service}: Google credentials: {detail}", retryable=False, code="judge_auth")
    return None
