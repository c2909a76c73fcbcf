"""Which eval files become tests, and under which agent: the hook, the option, the ini."""

from __future__ import annotations

import pytest

CASES = ["weather", "flight", "crash", "empty"]


def _collected(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::" in line]


def test_a_conftest_hook_names_the_agent_and_each_case_is_an_item(named):
    result = named.run("--collect-only", "-q")
    assert _collected(result) == [f"shop.evalset.json::{case}" for case in CASES]
    assert named.calls() == []  # collecting runs nothing


def test_without_an_agent_eval_files_are_not_collected(project):
    project.write("fixtures/data.test.json", {"eval_set_id": "x", "eval_cases": []})
    project.write("test_plain.py", "def test_plain():\n    pass\n")
    result = project.run("-q")
    result.assert_outcomes(passed=1)


def test_an_eval_file_named_on_the_command_line_without_an_agent_says_how_to_name_one(project):
    result = project.run("shop.evalset.json")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*shop.evalset.json: no agent is named for this eval file*"])
    assert "Traceback" not in result.stdout.str()


def test_the_command_line_option_names_the_agent(project):
    result = project.run("--collect-only", "-q", "--agenteval-agent", project.agent)
    assert len(_collected(result)) == 4


def test_a_relative_command_line_target_is_taken_from_the_invocation_folder(project):
    result = project.run("-q", "--agenteval-agent", "agent.py:respond", "-k", "weather")
    result.assert_outcomes(passed=1, deselected=3)


def test_the_ini_option_names_the_agent_relative_to_the_ini_file(project, monkeypatch):
    project.write("agents/agent.py", (project.path / "agent.py").read_text())
    project.write("evals/shop.evalset.json", (project.path / "shop.evalset.json").read_text())
    (project.path / "shop.evalset.json").unlink()
    project.pytester.makeini("[pytest]\nagenteval_agent = agents/agent.py:respond\n")
    monkeypatch.chdir(project.path / "evals")  # not where the target's path starts
    result = project.run("-q", "-k", "weather", ".")
    result.assert_outcomes(passed=1, deselected=3)


def test_the_hook_wins_over_the_option_and_the_option_over_the_ini(named):
    named.pytester.makeini("[pytest]\nagenteval_agent = missing_from_ini.py:respond\n")
    assert "passed" in named.run("-q", "-k", "weather").stdout.str()
    (named.path / "conftest.py").unlink()
    option = named.run("-q", "-k", "weather", "--agenteval-agent", named.agent)
    option.assert_outcomes(passed=1, deselected=3)
    ini = named.run("-q", "-k", "weather")
    ini.stdout.fnmatch_lines(["*missing_from_ini.py*"])
    ini.assert_outcomes(failed=1, deselected=3)


def test_a_conftest_applies_to_its_own_folder_and_below_only(project):
    project.write("a/conftest.py", _conftest_for("../agent.py"))
    project.write("a/deep/cases.evalset.json", (project.path / "shop.evalset.json").read_text())
    project.write("b/cases.evalset.json", (project.path / "shop.evalset.json").read_text())
    (project.path / "shop.evalset.json").unlink()
    result = project.run("--collect-only", "-q")
    assert _collected(result) == [f"a/deep/cases.evalset.json::{case}" for case in CASES]


def test_a_deeper_conftest_wins(named):
    named.write("sub/conftest.py", "def pytest_agenteval_agent(path):\n    return 'nowhere.py:respond'\n")
    named.write("sub/other.evalset.json", (named.path / "shop.evalset.json").read_text())
    result = named.run("-q", "-k", "weather")
    result.assert_outcomes(passed=1, failed=1, deselected=6)
    result.stdout.fnmatch_lines(["*other.evalset.json: --agent 'nowhere.py:respond': no such file*"])


def _conftest_for(relative: str) -> str:
    return (
        "from pathlib import Path\n\n\n"
        "def pytest_agenteval_agent(path):\n"
        f"    return str(Path(__file__).parent / {relative!r}) + ':respond'\n"
    )


def test_the_hook_may_return_a_path_or_an_agent_object(project):
    project.write(
        "conftest.py",
        """
from pathlib import Path

from agenteval.plugins import Agent, AgentSession
from agenteval.models import Content, Invocation


class _Session(AgentSession):
    async def turn(self, user_content):
        return Invocation(user_content=user_content, final_response=Content.from_text("hello", "model"))


class Hello(Agent):
    async def session(self, case):
        return _Session()


def pytest_agenteval_agent(path):
    if path.parent.name == "folder":
        return Path(__file__).parent / "folder"  # a folder target: its agent.py:respond
    return Hello("hello")
""",
    )
    hello = {
        "eval_id": "hi",
        "conversation": [
            {"user_content": {"parts": [{"text": "hi"}]}, "final_response": {"parts": [{"text": "hello"}]}}
        ],
    }
    project.write("hello.evalset.json", {"eval_set_id": "h", "eval_cases": [hello]})
    project.write("folder/agent.py", (project.path / "agent.py").read_text())
    project.write("folder/f.evalset.json", (project.path / "shop.evalset.json").read_text())
    (project.path / "shop.evalset.json").unlink()
    result = project.run("-v", "-k", "hi or weather")
    result.stdout.fnmatch_lines(
        ["*folder/f.evalset.json::weather PASSED*", "*hello.evalset.json::hi PASSED*"]
    )


def test_a_hook_returning_something_else_is_a_collection_error(project):
    project.write("conftest.py", "def pytest_agenteval_agent(path):\n    return 42\n")
    result = project.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*pytest_agenteval_agent returned 42; return an agenteval --agent target*"])


def test_test_json_files_are_collected_too_and_verbose_shows_one_line_per_case(named):
    named.write(
        "legacy.test.json",
        {
            "eval_set_id": "legacy",
            "eval_cases": [
                {
                    "eval_id": "hello",
                    "conversation": [
                        {
                            "user_content": {"parts": [{"text": "weather?"}]},
                            "final_response": {"parts": [{"text": "x"}]},
                        }
                    ],
                }
            ],
        },
    )
    result = named.run("-v", "--collect-only")
    result.stdout.fnmatch_lines(["*<EvalFile legacy.test.json>*", "*<EvalCaseItem hello>*"])
    run = named.run("-v", "-k", "weather")
    run.stdout.fnmatch_lines(["shop.evalset.json::weather PASSED*"])


def test_k_also_matches_the_eval_set_id(named):
    (named.path / "shop.evalset.json").rename(named.path / "cases.evalset.json")
    result = named.run("--collect-only", "-q", "-k", "shop and weather")
    assert _collected(result) == ["cases.evalset.json::weather"]


#: An agents-cli dataset (Google's EvaluationDataset): one case, a prompt and its reference.
DATASET = {
    "eval_cases": [
        {
            "eval_case_id": "paris",
            "prompt": "What's the weather in Paris?",
            "reference": "It is sunny in Paris today.",
        }
    ]
}


def test_an_installed_data_format_s_eval_files_are_collected_as_agenteval_run_takes_them(named):
    """agents-cli's ``*-dataset.json`` (agenteval-agent-platform's reader) is an eval file
    as ``agenteval run FOLDER`` sees it: its cases are tests, run through the named agent;
    a JSON file no format claims stays alone."""
    pytest.importorskip("agenteval_agent_platform")
    named.write("tests/eval/datasets/shop-dataset.json", DATASET)
    named.write("tests/eval/datasets/notes.json", {"eval_cases": []})
    result = named.run("--collect-only", "-q", "tests")
    assert _collected(result) == ["tests/eval/datasets/shop-dataset.json::paris"]
    named.run("-q", "tests")
    assert named.calls() == ["What's the weather in Paris?"]
