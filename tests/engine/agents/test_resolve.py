"""``resolve_agent``: the adapter an ``--agent`` target names or that claims it, else one
message saying what an agent target is (and, for a folder, why its ``agent.py`` was not read)."""

from __future__ import annotations

import pytest
from agenteval._agents._resolve import resolve_agent
from agenteval.errors import ConfigError


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("def respond(:\n    pass\n", "its agent.py does not parse: invalid syntax, line 1; fix that"),
        ("x = 1\n\n\ndef g(\n", "line 4; fix that"),
        ("x = 1\n", None),  # parses, defines no agent: the plain message
        (None, None),  # no agent.py at all
    ],
)
def test_a_folder_no_adapter_claims_says_why_when_its_agent_py_does_not_parse(tmp_path, source, said):
    """No adapter can read what a file that does not parse defines: the message says so,
    with the line (the file compiled, never run), beside what an agent target is."""
    if source is not None:
        (tmp_path / "agent.py").write_text(source, encoding="utf-8")
    with pytest.raises(ConfigError, match="no agent adapter recognises it") as raised:
        resolve_agent(str(tmp_path))
    message = str(raised.value)
    if said is None:
        assert "does not parse" not in message
    else:
        assert said in message
    assert "A Python agent is" in message  # what a target is, either way
