"""google-auth failures get the same reason codes in every Google-backed plugin."""

from __future__ import annotations

import pytest
from agenteval.errors import JudgeCallError
from agenteval.plugins import google_auth_error

auth = pytest.importorskip("google.auth.exceptions")


def test_missing_credentials_are_an_auth_failure_with_the_fix() -> None:
    error = google_auth_error(auth.DefaultCredentialsError("File x was not found."), "Vertex AI")
    assert isinstance(error, JudgeCallError)
    assert (error.code, error.retryable) == ("judge_auth", False)
    assert str(error).startswith("Vertex AI: no Application Default Credentials (File x was not found.)")
    assert "gcloud auth application-default login" in str(error)


def test_a_refused_refresh_is_auth_and_a_retryable_one_is_an_error() -> None:
    refused = google_auth_error(auth.RefreshError("invalid_grant"), "S")
    assert (refused.code, refused.retryable) == ("judge_auth", False)
    passing = auth.RefreshError("503 from the token endpoint", retryable=True)
    again = google_auth_error(passing, "S")
    assert (again.code, again.retryable) == ("judge_error", True)


def test_an_unreachable_token_endpoint_is_retryable() -> None:
    error = google_auth_error(auth.TransportError("connection reset"), "S")
    assert (error.code, error.retryable) == ("judge_error", True)


def test_other_google_auth_errors_are_auth_failures() -> None:
    error = google_auth_error(auth.GoogleAuthError("bad\nkey   file"), "S")
    assert (error.code, error.retryable) == ("judge_auth", False)
    assert str(error) == "S: Google credentials: bad key file"


def test_anything_else_is_not_classified() -> None:
    assert google_auth_error(ValueError("x"), "S") is None
