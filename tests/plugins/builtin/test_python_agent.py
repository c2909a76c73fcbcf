"""``python_agent.py``: the ``python`` agent adapter."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from agenteval.errors import ConfigError
from agenteval.models import Content, Invocation
from agenteval.testing import make_case, make_invocation
from agenteval_builtin.python_agent import PythonAgent, reply_to_invocation

USER = Content.from_text("hello")


def test_claims_python_targets_only():
    assert PythonAgent.claims("my_pkg.agent:respond")
    assert PythonAgent.claims("examples/travel/agent.py:respond")
    assert not PythonAgent.claims("http://127.0.0.1:8000/v1")
    assert not PythonAgent.claims("my_agent_folder")


@pytest.mark.parametrize(
    ("source", "claimed"),
    [
        ("def respond(message, history):\n    return 'hi'\n", True),
        ("async def respond(message, history):\n    return 'hi'\n", True),
        ("respond = lambda message, history: 'hi'\n", True),
        # An ADK agent folder belongs to the adk adapter, even with a respond() helper.
        ("def respond(m, h):\n    return m\nroot_agent = object()\n", False),
        ("def get_agent_async():\n    pass\ndef respond(m, h):\n    return m\n", False),
        ("def answer(message, history):\n    return 'hi'\n", False),
        ("def respond(:\n", False),  # does not parse: not claimed, nothing imported
    ],
)
def test_claims_a_folder_whose_agent_py_defines_respond(tmp_path, source, claimed):
    (tmp_path / "agent.py").write_text(source)
    assert PythonAgent.claims(str(tmp_path)) is claimed


def test_a_folder_target_runs_its_agent_py_respond(tmp_path):
    (tmp_path / "agent.py").write_text("def respond(message, history):\n    return message.upper()\n")
    agent = PythonAgent(str(tmp_path))
    agent.check_ready()
    turn = asyncio.run(_one_turn(agent))
    assert turn.final_text() == "HELLO"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match="this folder has no agent.py"):
        PythonAgent(str(empty)).check_ready()


async def _one_turn(agent: PythonAgent) -> Invocation:
    session = await agent.session(make_case([make_invocation("hello", "x")]))
    return await session.turn(USER)


def test_reply_shapes():
    assert reply_to_invocation("hi there", USER, 1).final_text() == "hi there"
    turn = reply_to_invocation(
        {
            "text": "done",
            "tool_calls": [{"name": "lookup", "args": {"q": "x"}}],
            "tool_responses": [{"name": "lookup", "response": {"hits": 1}}],
            "intermediate": [["helper", "looking it up"]],
        },
        USER,
        2,
    )
    assert [(c.name, c.args) for c in turn.tool_calls()] == [("lookup", {"q": "x"})]
    assert turn.tool_responses()[0].response == {"hits": 1}
    assert turn.intermediate_texts() == [("helper", "looking it up")]
    assert turn.invocation_id == "turn-2" and turn.user_content == USER
    given = Invocation(user_content=USER, final_response=Content.from_text("as is", role="model"))
    assert reply_to_invocation(given, USER, 3) is given


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (42, "returned int"),
        ({"txt": "x"}, "unknown keys ['txt']"),
        ({"tool_calls": [{"args": 1}]}, "not a valid turn"),
    ],
)
def test_bad_replies_are_explained(reply, message):
    with pytest.raises((TypeError, ValueError), match=message.replace("[", r"\[").replace("]", r"\]")):
        reply_to_invocation(reply, USER, 1)


def _write_agent(tmp_path: Path, body: str) -> str:
    path = tmp_path / "my_agent.py"
    path.write_text(body)
    return f"{path}:respond"


def test_sync_and_async_functions_get_the_history(tmp_path):
    target = _write_agent(
        tmp_path,
        "async def respond(message, history):\n    return f'{message} #{len(history) + 1}'\n",
    )
    agent = PythonAgent(target)
    agent.check_ready()
    case = make_case([make_invocation("a", "x"), make_invocation("b", "y")])

    async def talk():
        session = await agent.session(case)
        return [await session.turn(inv.user_content) for inv in case.conversation]

    assert [t.final_text() for t in asyncio.run(talk())] == ["a #1", "b #2"]


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("no_such_module_xyz:respond", "importing 'no_such_module_xyz' failed: ModuleNotFoundError"),
        ("json:no_such_function", "'json' has no function 'no_such_function'"),
        ("missing/file.py:respond", "no such file 'missing/file.py'"),
        ("not a target", "expected package.module:function"),
    ],
)
def test_load_errors_are_config_errors(target, message):
    with pytest.raises(ConfigError, match=message):
        PythonAgent(target).check_ready()


@pytest.mark.parametrize("isolation", ["none", "process"])
def test_a_case_s_history_is_the_start_of_the_function_s_history(tmp_path, isolation):
    from agenteval._agents import run_agent

    target = _write_agent(
        tmp_path,
        "def respond(message, history):\n"
        "    said = [(t.user_content.text(), t.final_response.parts[0].text) for t in history]\n"
        "    return f'{message} after {said}'\n",
    )
    case = make_case(
        [make_invocation("hi", "hello"), make_invocation("weather?", "sunny"), make_invocation("now?", "x")],
        context_turns=2,
    )
    [turns] = asyncio.run(run_agent(PythonAgent(target), [case], isolation=isolation))
    assert [t.final_text() for t in turns] == [
        "hello",
        "sunny",
        "now? after [('hi', 'hello'), ('weather?', 'sunny')]",
    ]
