"""Shared fixtures for the whole test suite (keep this file small: fixtures only)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

# litellm (imported by google-adk and the litellm judge provider) fetches its price map from
# GitHub at import, retrying for seconds; every process of the suite reads its bundled copy.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

TESTS_DIR = Path(__file__).resolve().parent
REPO_DIR = TESTS_DIR.parent
#: Material shared between the project's sessions, next to the repository (not in it).
SHARED_DIR = REPO_DIR.parent / "shared"

#: A project the tests copy and run pytest in: its conftest names an agent for its eval files,
#: so the suite itself must not collect them (one case fails on purpose).
collect_ignore = ["fixtures/custom_metrics_project"]


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``<repo>/../shared``; the test is skipped when it is absent (e.g. in CI)."""
    if not SHARED_DIR.is_dir():
        pytest.skip(f"{SHARED_DIR} is absent")
    return SHARED_DIR


@pytest.fixture(scope="session")
def real_evalsets_dir(shared_dir: Path) -> Path:
    """The real ADK eval files and configs, read in place (never copied into the repo)."""
    path = shared_dir / "real-evalsets"
    if not path.is_dir():
        pytest.skip(f"{path} is absent")
    return path


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """``tests/fixtures``."""
    return TESTS_DIR / "fixtures"


@pytest.fixture(scope="session")
def evalset_fixtures(fixtures_dir: Path) -> Path:
    """``tests/fixtures/evalsets``: small hand-written eval files."""
    return fixtures_dir / "evalsets"


def load_fixture_module(name: str, filename: str) -> ModuleType:
    """``tests/fixtures/<filename>``, imported once under the module name ``name`` (the suite
    runs with ``--import-mode=importlib``, so test modules cannot import it by path)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, TESTS_DIR / "fixtures" / filename)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def dists() -> ModuleType:
    """``tests/fixtures/dists.py``: fake installed distributions for entry-point tests."""
    return load_fixture_module("agenteval_tests_fixtures_dists", "dists.py")


@pytest.fixture(scope="session")
def schema_answers() -> ModuleType:
    """``tests/fixtures/schema_answers.py``: answers any judge request with an instance of
    its own response schema."""
    return load_fixture_module("agenteval_tests_fixtures_schema_answers", "schema_answers.py")


@pytest.fixture
def no_max_file_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make sure ``AGENTEVAL_MAX_FILE_MB`` from the caller's environment does not leak in."""
    monkeypatch.delenv("AGENTEVAL_MAX_FILE_MB", raising=False)


# -- fake LLM servers (tests/fixtures/fake_llm_servers.py) -----------------------------
FAKE_LLM_SERVERS = "agenteval_tests_fixtures_fake_llm_servers"


def load_fake_llm_servers() -> ModuleType:
    """``tests/fixtures/fake_llm_servers.py``, imported once as ``FAKE_LLM_SERVERS``
    (test modules then ``from agenteval_tests_fixtures_fake_llm_servers import Reply``)."""
    return load_fixture_module(FAKE_LLM_SERVERS, "fake_llm_servers.py")


@pytest.fixture
def fake_gemini():
    """A running ``FakeGeminiServer`` (Gemini API, Vertex AI and ``/token``)."""
    with load_fake_llm_servers().FakeGeminiServer() as server:
        yield server


@pytest.fixture
def fake_openai():
    """A running ``FakeOpenAIServer`` (``/v1/chat/completions``)."""
    with load_fake_llm_servers().FakeOpenAIServer() as server:
        yield server


_JUDGE_ENV = (
    "GOOGLE_API_KEY GEMINI_API_KEY GOOGLE_GENAI_USE_VERTEXAI GOOGLE_GENAI_USE_ENTERPRISE "
    "GOOGLE_CLOUD_PROJECT GOOGLE_CLOUD_LOCATION GOOGLE_GEMINI_BASE_URL GOOGLE_VERTEX_BASE_URL "
    "GOOGLE_APPLICATION_CREDENTIALS "
    "OPENAI_API_KEY OPENAI_BASE_URL OPENAI_ORG_ID OPENAI_PROJECT_ID"
).split()


@pytest.fixture
def clean_judge_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No judge credentials or endpoints from the caller's environment (and no gcloud ADC)."""
    for name in _JUDGE_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path / "gcloud"))


@pytest.fixture
def gemini_env(clean_judge_env: None, monkeypatch: pytest.MonkeyPatch, fake_gemini):
    """``judge_model: gemini-2.5-flash`` reaches ``fake_gemini`` through the Gemini API path."""
    monkeypatch.setenv("GOOGLE_API_KEY", "fake")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake_gemini.base_url)
    return fake_gemini


@pytest.fixture
def vertex_env(clean_judge_env: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_gemini):
    """Vertex AI mode against ``fake_gemini``: ADC from a service-account file whose
    ``token_uri`` is the fake's ``/token``, so google-auth's real refresh runs (an
    ``authorized_user`` file would not do: google-auth always sends those to Google)."""
    credentials = tmp_path / "adc-service-account.json"
    credentials.write_text(
        load_fake_llm_servers().service_account_json(fake_gemini.token_uri), encoding="utf-8"
    )
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "fake-project")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", fake_gemini.base_url)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(credentials))
    return fake_gemini


@pytest.fixture
def openai_env(clean_judge_env: None, monkeypatch: pytest.MonkeyPatch, fake_openai):
    """``openai:MODEL`` reaches ``fake_openai`` (``OPENAI_BASE_URL``, a fake key)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{fake_openai.base_url}/v1")
    return fake_openai


@pytest.fixture(autouse=True, scope="session")
def _runs_dir_outside_the_repository(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every ``agenteval run`` in the suite records its run folder under a temporary
    folder, never in the repository's ``.agenteval/runs``."""

    folder = tmp_path_factory.mktemp("agenteval-runs")
    previous = os.environ.get("AGENTEVAL_RUNS_DIR")
    os.environ["AGENTEVAL_RUNS_DIR"] = str(folder)
    yield
    if previous is None:
        os.environ.pop("AGENTEVAL_RUNS_DIR", None)
    else:
        os.environ["AGENTEVAL_RUNS_DIR"] = previous
