# The pytest-timeout flags every CI pytest run uses (sourced by .ci/run and .ci/floors.sh).
# A test still going after ten minutes (the slowest, a 100k-case setup, takes about 75 s)
# ends its worker with every thread's stack, where a hang held CI to its limit; under xdist
# the worker is replaced and the rest runs. "thread", not "signal": hypothesis catches a
# signal's exception and goes on shrinking the hanging example with no alarm left. On the
# command line, not in pyproject.toml: a plain `pytest` without the plugin still runs.
TIMEOUT_FLAGS=(--timeout 600 --timeout-method thread)
