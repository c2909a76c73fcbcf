"""``_registry.py``: discovering and loading criteria from entry points.

Entry points and imported modules are cached per process, so the entry-point tests write
fake distributions to a temporary folder (``tests/fixtures/dists.py``) and run discovery
and loading in ONE fresh interpreter per scenario whose findings the tests then check.
"""

from __future__ import annotations

import pytest
from agenteval import Evaluator, EvaluatorInfo, Registry, Score
from agenteval.errors import PluginLoadError

EVALUATOR = """
from agenteval import Evaluator, EvaluatorInfo, Score

class {name}(Evaluator):
    info = EvaluatorInfo(description="{name} always scores 1.")

    def evaluate(self, ctx):
        return Score(value=1.0)
"""

SCRIPT = r"""
import importlib, json, sys
from pathlib import Path

from agenteval import Registry, evaluate
from agenteval.errors import PluginLoadError
from agenteval.models import EvalSet
from agenteval.testing import make_case, make_invocation

def fakes():
    return sorted(m for m in sys.modules if m.startswith("ae_fake_"))

def attempt(names):
    try:
        loaded = Registry().load(names)
    except PluginLoadError as exc:
        return {"error": str(exc), "exit_code": exc.exit_code}
    return {"loaded": {n: [c.evaluator_class.__name__, c.ref.plugin.model_dump()] for n, c in loaded.items()}}

out = {}
registry = Registry()
out["names"] = registry.names()
out["refs"] = [[r.name, r.distribution, r.version, r.target, r.display] for r in registry.refs()
               if r.name.startswith("fake_")]
out["modules_after_discovery"] = fakes()
out["good"] = attempt(["fake_good"])
out["modules_after_good"] = fakes()

eval_set = EvalSet(eval_set_id="s", eval_cases=[make_case([make_invocation("q", "a")], eval_id="c")])
result = evaluate(eval_set, eval_set, {"fake_good": 0.5})
out["run"] = [result.summary.status.value, result.eval_sets[0].cases[0].criteria[0].plugin.model_dump()]
out["modules_after_run"] = fakes()

for key in ["fake_broken", "fake_missing_dep_attr", "fake_not_evaluator", "fake_abstract", "fake_no_info",
            "fake_bad_params", "fake_dup", "fake_god", "fake_assert",
            "fake_raises", "fake_exit", "fake_nameless"]:
    out[key] = attempt([key])
out["several"] = attempt(["fake_good", "fake_broken", "fake_nope", "fake_dup"])

# A distribution installed after a first discovery is seen by a new Registry.
site = Path(sys.argv[1])
(site / "ae_fake_late.py").write_text(LATE_MODULE, encoding="utf-8")
info = site / "agenteval_fake_late-1.0.dist-info"
info.mkdir()
(info / "METADATA").write_text("Metadata-Version: 2.1\nName: agenteval-fake-late\nVersion: 1.0\n")
(info / "entry_points.txt").write_text("[agenteval.criteria]\nfake_late = ae_fake_late:Late\n")
importlib.invalidate_caches()
out["late_names"] = Registry().names()
out["late"] = attempt(["fake_late"])
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def findings(tmp_path_factory, dists) -> dict:
    site = tmp_path_factory.mktemp("site")
    make = dists.make_dist
    make(
        site,
        "agenteval-fake-good",
        "1.2.3",
        entry_points={
            "fake_good": "ae_fake_good:Good",
            "fake_dup": "ae_fake_good:Good",
            "fake_missing_dep_attr": "ae_fake_good:Nope",
        },
        modules={"ae_fake_good": EVALUATOR.format(name="Good")},
    )
    make(
        site,
        "agenteval-fake-broken",
        "0.1",
        entry_points={"fake_broken": "ae_fake_broken:Broken"},
        modules={"ae_fake_broken": "import ae_fake_missing_dependency\n" + EVALUATOR.format(name="Broken")},
    )
    make(
        site,
        "agenteval-fake-other",
        "2.0",
        entry_points={"fake_dup": "ae_fake_other:Other"},
        modules={"ae_fake_other": EVALUATOR.format(name="Other")},
    )
    make(
        site,
        "agenteval-fake-odd",
        "0.2",
        entry_points={
            "fake_not_evaluator": "ae_fake_odd:helper",
            "fake_abstract": "ae_fake_odd:Abstract",
            "fake_no_info": "ae_fake_odd:NoInfo",
            "fake_bad_params": "ae_fake_odd:BadParams",
        },
        modules={
            "ae_fake_odd": """
             from agenteval import Evaluator, EvaluatorInfo, Score

             def helper(ctx):
                 return Score(value=1.0)

             class Abstract(Evaluator):
                 info = EvaluatorInfo(description="forgot evaluate")

             class NoInfo(Evaluator):
                 def evaluate(self, ctx):
                     return Score(value=1.0)

             class BadParams(Evaluator):
                 info = EvaluatorInfo(description="Params is a dict")
                 Params = dict

                 def evaluate(self, ctx):
                     return Score(value=1.0)
         """
        },
    )
    make(
        site,
        "agenteval-fake-assert",
        "0.1",
        entry_points={"fake_assert": "ae_fake_assert:X"},
        modules={"ae_fake_assert": "assert False, 'plugin self-check failed'\n"},
    )
    make(
        site,
        "agenteval-fake-raises",
        "0.1",
        entry_points={"fake_raises": "ae_fake_raises:X"},
        modules={"ae_fake_raises": "\n\nraise RuntimeError('boom at import')\n"},
    )
    make(
        site,
        "agenteval-fake-exit",
        "0.1",
        entry_points={"fake_exit": "ae_fake_exit:X"},
        modules={"ae_fake_exit": "import sys\nsys.exit(3)\n"},
    )
    make(
        site,
        "nameless",
        "0.0",
        entry_points={"fake_nameless": "ae_fake_good:Good"},
        metadata="Metadata-Version: 2.1\n",
    )
    script = f"LATE_MODULE = {EVALUATOR.format(name='Late')!r}\n" + SCRIPT
    return dists.run_python(site, script.replace("sys.argv[1]", repr(str(site))))


def error_of(findings: dict, key: str) -> str:
    assert "error" in findings[key], findings[key]
    assert findings[key]["exit_code"] == 2
    assert "Traceback" not in findings[key]["error"]
    return findings[key]["error"]


def test_discovery_reads_metadata_and_imports_nothing(findings):
    names = findings["names"]
    assert {"fake_good", "fake_broken", "fake_dup", "fake_abstract", "fake_assert"} <= set(names)
    assert names == sorted(names)
    assert findings["modules_after_discovery"] == []
    assert [
        "fake_good",
        "agenteval-fake-good",
        "1.2.3",
        "ae_fake_good:Good",
        "agenteval-fake-good[fake_good]",
    ] in findings["refs"]
    dup = [r[1] for r in findings["refs"] if r[0] == "fake_dup"]
    assert dup == ["agenteval-fake-good", "agenteval-fake-other"]  # sorted, whatever the disk order


def test_loading_a_good_plugin(findings):
    [(name, (class_name, plugin))] = findings["good"]["loaded"].items()
    assert (name, class_name) == ("fake_good", "Good")
    assert plugin["distribution"] == "agenteval-fake-good"
    assert plugin["version"] == "1.2.3"
    assert plugin["entry_point"] == "ae_fake_good:Good"


def test_loading_one_criterion_imports_only_its_module(findings):
    assert findings["modules_after_good"] == ["ae_fake_good"]
    assert findings["modules_after_run"] == ["ae_fake_good"]


def test_a_broken_plugin_nobody_asked_for_does_not_break_a_run(findings):
    status, plugin = findings["run"]
    assert status == "PASSED"
    assert (plugin["distribution"], plugin["version"], plugin["entry_point"]) == (
        "agenteval-fake-good",
        "1.2.3",
        "ae_fake_good:Good",
    )


def test_import_error_names_the_plugin_the_cause_and_a_fix(findings):
    message = error_of(findings, "fake_broken")
    assert message.startswith("cannot load a requested criterion:")
    assert "agenteval-fake-broken[fake_broken] (ae_fake_broken:Broken) failed to load" in message
    assert "ModuleNotFoundError: No module named 'ae_fake_missing_dependency'" in message
    assert (
        "Fix: install the missing module 'ae_fake_missing_dependency' (a dependency of agenteval-fake-broken)"
        in message
    )


def test_missing_attribute(findings):
    message = error_of(findings, "fake_missing_dep_attr")
    assert (
        "agenteval-fake-good[fake_missing_dep_attr] (ae_fake_good:Nope) failed to load: AttributeError"
        in message
    )
    assert "Fix: reinstall agenteval-fake-good" in message


@pytest.mark.parametrize(
    ("key", "fragments"),
    [
        (
            "fake_not_evaluator",
            [
                "agenteval-fake-odd[fake_not_evaluator] (ae_fake_odd:helper) is not a valid criterion",
                "<function helper",
                "not a subclass of agenteval.Evaluator",
            ],
        ),
        ("fake_abstract", ["is not a valid criterion: Abstract does not implement evaluate"]),
        ("fake_no_info", ["NoInfo.info must be an agenteval.EvaluatorInfo"]),
        ("fake_bad_params", ["BadParams.Params must be a pydantic model"]),
    ],
)
def test_invalid_classes(findings, key, fragments):
    message = error_of(findings, key)
    for fragment in fragments:
        assert fragment in message
    assert "report it to the maintainers of agenteval-fake-odd" in message


def test_two_distributions_with_one_name(findings):
    message = error_of(findings, "fake_dup")
    assert (
        "'fake_dup' is provided by more than one distribution "
        "(agenteval-fake-good[fake_dup] and agenteval-fake-other[fake_dup]); uninstall one of them"
    ) in message


def test_unknown_name_with_a_suggestion(findings):
    message = error_of(findings, "fake_god")
    assert "'fake_god' is not an installed criterion; did you mean 'fake_good'?" in message
    assert "installed criteria: " in message and "pip install" in message


@pytest.mark.parametrize(
    ("key", "fragments"),
    [
        ("fake_assert", ["failed to load: AssertionError: plugin self-check failed"]),
        (
            "fake_raises",
            [
                "failed to load: RuntimeError: boom at import",
                "ae_fake_raises.py:3",
                "report it to the maintainers of agenteval-fake-raises",
            ],
        ),
        ("fake_exit", ["failed to load: SystemExit: 3"]),
    ],
)
def test_plugins_failing_at_import_time(findings, key, fragments):
    message = error_of(findings, key)
    for fragment in fragments:
        assert fragment in message


def test_broken_metadata_does_not_break_discovery(findings):
    [ref] = [r for r in findings["refs"] if r[0] == "fake_nameless"]
    assert ref[1].endswith("nameless-0.0.dist-info") and ref[2] == "0"
    [(_, plugin)] = findings["fake_nameless"]["loaded"].values()
    assert plugin["distribution"].endswith("nameless-0.0.dist-info")


def test_all_problems_in_one_error(findings):
    message = error_of(findings, "several")
    assert message.startswith("cannot load the requested criteria:")
    assert message.count("\n  - ") == 3
    assert "fake_broken" in message and "'fake_nope'" in message and "'fake_dup'" in message


def test_a_plugin_installed_after_a_first_discovery_is_found(findings):
    assert "fake_late" in findings["late_names"]
    assert findings["late"]["loaded"]["fake_late"][0] == "Late"


# -- in-memory registries ------------------------------------------------------------------------


class Good(Evaluator):
    info = EvaluatorInfo(description="always 1")

    def evaluate(self, ctx):
        return Score(value=1.0)


class Abstract(Evaluator):
    info = EvaluatorInfo(description="no evaluate")


def test_from_classes_discovery_and_load():
    registry = Registry.from_classes({"b_good": Good, "a_good": Good})
    assert registry.names() == ["a_good", "b_good"]
    [ref, _] = registry.refs()
    assert (ref.distribution, ref.version) == ("<in-memory>", "0")
    assert ref.target == f"{Good.__module__}:Good"
    loaded = registry.load(["b_good", "b_good"])
    assert list(loaded) == ["b_good"]
    assert loaded["b_good"].info is Good.info
    assert registry.load([]) == {}


@pytest.mark.parametrize(
    ("obj", "fragment"),
    [(Abstract, "Abstract does not implement evaluate"), (object, "not a subclass of agenteval.Evaluator")],
)
def test_from_classes_checks_the_classes(obj, fragment):
    with pytest.raises(PluginLoadError) as info:
        Registry.from_classes({"x": obj}).load(["x"])
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("safety_v1", "agenteval-vertex-safety (pip install -e ./plugins/vertex_safety)"),
        ("final_response_match_v2", "agenteval-llm-judges (pip install -e ./plugins/llm_judges)"),
        ("hallucinations_v1", "is not installed: it comes from agenteval-llm-judges"),
        ("rubric_based_multi_turn_trajectory_quality_v1", "it comes from agenteval-llm-judges"),
        ("response_evaluation_score", "it comes from agenteval-vertex-safety"),
        ("multi_turn_task_success_v1", "it comes from agenteval-vertex-safety"),
        ("multi_turn_trajectory_quality_v1", "it comes from agenteval-vertex-safety"),
        ("multi_turn_tool_use_quality_v1", "it comes from agenteval-vertex-safety"),
    ],
)
def test_adk_names_not_provided_in_memory(name, fragment):
    with pytest.raises(PluginLoadError) as info:
        Registry.from_classes({"good": Good}).load([name])
    assert fragment in str(info.value)
    assert "Installed criteria: good" in str(info.value)


def test_empty_registry_lists_none():
    with pytest.raises(PluginLoadError) as info:
        Registry.from_classes({}).load(["x"])
    assert "installed criteria: (none)" in str(info.value)


def test_installed_registry_is_discovered_once_and_can_be_forgotten():
    from agenteval import Registry

    Registry.forget_installed()
    first = Registry.installed()
    assert Registry.installed() is first
    Registry.forget_installed()
    assert Registry.installed() is not first


def test_load_is_memoised_per_registry():
    from agenteval import Evaluator, EvaluatorInfo, Score
    from agenteval.testing import registry_for

    class One(Evaluator):
        info = EvaluatorInfo(description="One.", default_threshold=1.0)

        def evaluate(self, ctx):
            return Score(value=1.0)

    registry = registry_for(one=One)
    assert registry.load(["one"])["one"] is registry.load(["one"])["one"]
