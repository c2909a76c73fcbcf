"""What the CLI imports: nothing of a plugin or a Google SDK unless a run asks for it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "travel"

_PROBE = """
import sys
from agenteval.cli import main
try:
    main({args!r}, standalone_mode=True)
except SystemExit:
    pass
watched = {{'agenteval_builtin', 'google', 'vertexai', 'rouge_score', 'nltk'}}
def stub(name):
    # google-cloud-aiplatform's *-nspkg.pth makes empty ``google`` / ``google.cloud``
    # namespace modules at interpreter start-up (no __file__): no SDK code is imported.
    module = sys.modules[name]
    return getattr(module, '__file__', None) is None and hasattr(module, '__path__')
bad = sorted(m for m in sys.modules if m.split('.')[0] in watched and not stub(m))
sys.stderr.write('\\nIMPORTED=' + ','.join(bad) + '\\n')
loaded = sorted(m for m in sys.modules if m.startswith('agenteval'))
sys.stderr.write('\\nLOADED=' + ','.join(loaded) + '\\n')
"""


def _probe(args: list[str], key: str) -> list[str]:
    code = _PROBE.format(args=args)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith(key + "=")][-1]
    return [m for m in line[len(key) + 1 :].split(",") if m]


def _imported(args: list[str]) -> list[str]:
    return _probe(args, "IMPORTED")


def test_help_imports_no_plugin_and_no_google_sdk():
    assert _imported(["--help"]) == []


def test_help_builds_no_data_model_and_loads_no_format_reader():
    # Plugin commands are listed by --help, so their packages are imported: they must
    # stay light (the readers and pydantic models load when a command runs).
    loaded = _probe(["--help"], "LOADED")
    assert "agenteval.models" not in loaded
    assert not [m for m in loaded if m.startswith("agenteval_") and m.endswith(("._reader", "._writer"))]


def test_criteria_list_imports_no_plugin():
    assert _imported(["criteria", "list"]) == []


def test_run_imports_only_the_requested_plugin_module():
    imported = _imported(
        [
            "run",
            str(EXAMPLE / "travel.evalset.json"),
            "--actual",
            str(EXAMPLE / "travel.actual.json"),
            "--criteria",
            "tool_trajectory_avg_score",
            "--format",
            "json",
        ]
    )
    assert "agenteval_builtin.trajectory" in imported
    assert "agenteval_builtin.response_match" not in imported
    assert not [m for m in imported if m.startswith(("google", "vertexai", "rouge_score", "nltk"))]


def test_python_dash_m_works():
    proc = subprocess.run(
        [sys.executable, "-m", "agenteval", "criteria", "list", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert any(row["name"] == "response_match_score" for row in json.loads(proc.stdout))


def test_runs_show_imports_no_calibration_package_for_a_run_without_cards(tmp_path):
    from agenteval.cli import main
    from click.testing import CliRunner

    args = ["run", str(EXAMPLE), "--actual", str(EXAMPLE / "travel.actual.json"), "--runs-dir", str(tmp_path)]
    assert CliRunner().invoke(main, args).exit_code == 1
    loaded = _probe(["runs", "show", "latest", "--runs-dir", str(tmp_path)], "LOADED")
    assert "agenteval._reporting._table" in loaded
    assert not [m for m in loaded if m.startswith("agenteval.calibration")]
