#!/usr/bin/env bash
# The dependency floors hold: every distribution installed at the lowest versions its
# pyproject.toml allows (uv's --resolution lowest-direct), each set in a venv of its own,
# then a quick, representative part of the suite. A floor that is not true fails here.
#
#   bash .ci/floors.sh            (CI calls it from .ci/run; about 3 minutes once uv's cache is warm)
#
# Two installs, because google-adk's own floors lift pydantic and click above the engine's:
#   core: engine, builtin, llm-judges, the pytest plugin, the viewer, otel and agent-platform, so the
#         engine's own floors (pydantic, click, rich, stevedore, python-dotenv) are what gets tested;
#   adk:  every distribution, google-adk and the Vertex SDK included.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d "${TMPDIR:-/tmp}/agenteval-floors.XXXXXX")"
trap 'rm -rf "$work"' EXIT

if command -v uv >/dev/null 2>&1; then
  uv=uv
else
  python3 -m venv "$work/uv"
  "$work/uv/bin/python" -m pip install --quiet uv
  uv="$work/uv/bin/uv"
fi

# The test tools at their own floors (requirements-dev.txt: pytest>=8, hypothesis>=6.100,
# pytest-timeout>=2.3.1, which ends a hung test's run with its stack: .ci/pytest-timeout.sh).
tools=("pytest>=8" "hypothesis>=6.100" "pytest-timeout>=2.3.1")
source .ci/pytest-timeout.sh

install_at_floors() {  # venv, then the distributions' folders
  local venv="$1"
  shift
  "$uv" venv --quiet --python python3 "$venv"
  local editable=()
  for dist in "$@"; do editable+=(-e "$dist"); done
  VIRTUAL_ENV="$venv" "$uv" pip install --quiet --resolution lowest-direct "${editable[@]}" "${tools[@]}"
  echo "-- installed at the floors:"
  VIRTUAL_ENV="$venv" "$uv" pip list 2>/dev/null \
    | grep -iE '^(pydantic|click|rich|stevedore|python-dotenv|httpx|nltk|rouge-score|google-genai|openai|jinja2|google-adk|google-cloud-aiplatform|pytest|hypothesis) ' \
    | tr -s ' ' | paste -sd ',' | sed 's/,/, /g'
}

echo "== floors (core): engine, builtin, llm-judges, pytest plugin, viewer, otel, agent-platform"
install_at_floors "$work/core" ./engine ./plugins/builtin ./plugins/llm_judges ./plugins/pytest ./plugins/viewer \
  ./plugins/otel ./plugins/agent_platform
"$work/core/bin/python" -m pytest -q -p no:cacheprovider "${TIMEOUT_FLAGS[@]}" \
  tests/engine/loading tests/engine/models tests/engine/reporting \
  tests/engine/test_resolve.py tests/engine/test_evaluator.py \
  tests/cli/test_run.py tests/cli/test_hostile.py tests/cli/test_run_judges.py \
  tests/plugins/builtin/test_trajectory.py tests/plugins/builtin/test_response_match.py \
  tests/plugins/builtin/test_http_agent.py \
  tests/plugins/llm_judges/providers/test_gemini.py tests/plugins/llm_judges/providers/test_openai_compat.py \
  tests/plugins/pytest/test_outcomes.py tests/plugins/pytest/test_report.py \
  tests/plugins/viewer/test_bundle.py tests/plugins/viewer/test_report.py tests/plugins/viewer/test_server.py \
  tests/plugins/otel tests/plugins/agent_platform/test_reader.py tests/plugins/agent_platform/test_cli.py \
  tests/plugins/agent_platform/test_roundtrip.py

echo "== floors (adk): every distribution, google-adk and the Vertex SDK included"
install_at_floors "$work/adk" ./engine ./plugins/builtin ./plugins/llm_judges ./plugins/vertex_safety \
  ./plugins/adk ./plugins/pytest ./plugins/agent_platform
# Google's own EvaluationDataset converter, the oracle of test_parity.py, needs pandas (a test
# dependency only, at its current version).
VIRTUAL_ENV="$work/adk" "$uv" pip install --quiet pandas
"$work/adk/bin/python" -m pytest -q -p no:cacheprovider "${TIMEOUT_FLAGS[@]}" \
  tests/plugins/adk/test_loading.py tests/plugins/adk/test_sessions.py tests/plugins/adk/test_parity.py \
  tests/plugins/adk/test_claims.py tests/plugins/vertex_safety/test_safety.py tests/engine/loading/test_config.py \
  tests/plugins/agent_platform/test_parity.py
