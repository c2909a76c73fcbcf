"""pytest loads the plugin in every run; without eval files to collect it must stay cheap."""

from __future__ import annotations

import json

#: Top-level packages the plugin must not import unless an eval file is collected.
HEAVY = (
    "agenteval",
    "agenteval_builtin",
    "agenteval_llm_judges",
    "agenteval_vertex_safety",
    "agenteval_adk",
    "pydantic",
    "google",
    "vertexai",
    "openai",
    "rich",
    "stevedore",
)

RECORDER = """
import json
import sys


def test_record_modules():
    with open("modules.json", "w") as handle:
        json.dump(sorted(sys.modules), handle)
"""


def _modules(pytester, *args: str) -> set[str]:
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest", *args)
    result.assert_outcomes(passed=1)
    return set(json.loads((pytester.path / "modules.json").read_text()))


def _heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in HEAVY}


def test_the_plugin_imports_no_engine_or_sdk_module_when_no_eval_file_is_collected(pytester):
    pytester.makepyfile(test_recorder=RECORDER)
    # A fixture eval file with no agent named: seen by pytest_collect_file, not collected.
    (pytester.path / "fixture.evalset.json").write_text('{"eval_set_id": "x", "eval_cases": []}')
    without_plugin = _modules(pytester, "-p", "no:agenteval")
    with_plugin = _modules(pytester)
    assert "pytest_agenteval.plugin" in with_plugin and "pytest_agenteval.plugin" not in without_plugin
    # Namespace packages that .pth files import at start-up (google, google.cloud) are in both.
    assert _heavy(with_plugin) == _heavy(without_plugin)
    assert not {m for m in with_plugin if m.split(".")[0].startswith("agenteval")}
