"""The third-party path, end to end: build and install plugin distributions, then use the CLI.

Two distributions are installed into a temporary directory with pip (``--no-deps
--no-build-isolation``, so hatchling from the dev environment builds them offline):

* ``docs/examples/agenteval-example-criterion``, the documented example plugin;
* ``tests/fixtures/broken_plugin``, whose criterion module fails to import.

The CLI then runs in a subprocess with that directory on ``PYTHONPATH``, as a user's
environment would see the plugins. Running in a subprocess also keeps entry-point caches
of this test process out of the picture. pip and hatchling are required dev dependencies:
if they are missing these tests fail, they do not skip.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "examples" / "agenteval-example-criterion"
BROKEN = REPO / "tests" / "fixtures" / "broken_plugin"

PLUGIN_PACKAGES = ("agenteval_example_criterion", "agenteval_broken_example")

LONG_TEXT = " ".join(f"word{i}" for i in range(120))


@pytest.fixture(scope="module")
def plugin_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both distributions, built and installed into one target directory."""
    target = tmp_path_factory.mktemp("plugins")
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "--disable-pip-version-check",
        "--quiet",
        "--target",
        str(target),
        str(EXAMPLE),
        str(BROKEN),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (
        "installing the example and broken plugin distributions failed; pip and hatchling "
        f"are required dev dependencies.\n$ {' '.join(command)}\n{done.stdout}\n{done.stderr}"
    )
    return target


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An eval set (two cases) and the agent's actual invocations (the same turns)."""
    folder = tmp_path_factory.mktemp("evalset")

    def turn(text: str) -> dict:
        return {
            "invocation_id": "inv-1",
            "user_content": {"role": "user", "parts": [{"text": "Roll a 6 sided die"}]},
            "final_response": {"role": "model", "parts": [{"text": text}]},
            "intermediate_data": {"tool_uses": [{"name": "roll_die", "args": {"sides": 6}}]},
        }

    eval_set = {
        "eval_set_id": "dice",
        "eval_cases": [
            {"eval_id": "short_answer", "conversation": [turn("You rolled a 4.")]},
            {"eval_id": "long_answer", "conversation": [turn(LONG_TEXT)]},
        ],
    }
    (folder / "dice.evalset.json").write_text(json.dumps(eval_set), encoding="utf-8")
    (folder / "actual.json").write_text(json.dumps(eval_set), encoding="utf-8")
    config = {"criteria": {"example_response_length": {"threshold": 1.0, "maxWords": 200}}}
    (folder / "roomy_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


# Runs ``python -m agenteval`` (via runpy) and writes every plugin module that anything
# tried to import to $IMPORT_LOG at exit. A meta-path finder sees import statements and
# importlib.import_module alike (``-X importtime`` misses the latter, which is what
# entry-point loading uses), and it records an attempt even when the import then fails.
_RECORDING_DRIVER = f"""
import atexit, json, os, runpy, sys

class _Recorder:
    seen = []

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {PLUGIN_PACKAGES!r}:
            _Recorder.seen.append(name)
        return None

sys.meta_path.insert(0, _Recorder())

@atexit.register
def _write():
    with open(os.environ["IMPORT_LOG"], "w", encoding="utf-8") as handle:
        json.dump(sorted(set(_Recorder.seen)), handle)

sys.argv[0] = "agenteval"
runpy.run_module("agenteval", run_name="__main__", alter_sys=True)
"""


def _agenteval(
    plugin_dir: Path, cwd: Path, *args: str, record_imports: bool = False
) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(plugin_dir), env.get("PYTHONPATH")]))
    env["XDG_CACHE_HOME"] = str(cwd / ".cache")  # keep stevedore's cache out of the user's home
    env["COLUMNS"] = "200"
    if record_imports:
        env["IMPORT_LOG"] = str(cwd / "imports.json")
        command = [sys.executable, "-c", _RECORDING_DRIVER, *args]
    else:
        command = [sys.executable, "-m", "agenteval", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _imported_plugin_modules(cwd: Path) -> list[str]:
    """Plugin modules the last ``record_imports=True`` run tried to import."""
    return json.loads((cwd / "imports.json").read_text(encoding="utf-8"))


def test_import_recording_sees_entry_point_loading(plugin_dir: Path, workdir: Path) -> None:
    """Guard for the two no-import tests below: loading a criterion is recorded."""
    done = _agenteval(plugin_dir, workdir, "criteria", "show", "example_response_length", record_imports=True)
    assert done.returncode == 0, done.stderr
    assert "agenteval_example_criterion.length" in _imported_plugin_modules(workdir)


def test_list_shows_the_example_without_importing_any_plugin(plugin_dir: Path, workdir: Path) -> None:
    done = _agenteval(plugin_dir, workdir, "criteria", "list", "--format", "json", record_imports=True)
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    example = rows["example_response_length"]
    assert example["distribution"] == "agenteval-example-criterion"
    assert example["version"] == "0.1.0"
    assert example["entry_point"] == "agenteval_example_criterion.length:ResponseLength"
    assert "word count" in example["description"]
    # The broken plugin is listed too: listing reads metadata and never imports it.
    assert rows["broken_criterion"]["distribution"] == "agenteval-broken-example"
    assert _imported_plugin_modules(workdir) == []


def test_list_table_shows_distribution_and_version(plugin_dir: Path, workdir: Path) -> None:
    done = _agenteval(plugin_dir, workdir, "criteria", "list")
    assert done.returncode == 0, done.stderr
    lines = [line.rstrip() for line in done.stdout.splitlines()]
    # Criteria are listed under a "distribution version" heading, one table per distribution.
    heading = lines.index("agenteval-example-criterion 0.1.0")
    row = next(i for i, line in enumerate(lines) if "example_response_length" in line)
    assert heading < row
    assert not any(line and not line.startswith(" ") for line in lines[heading + 1 : row])
    assert "Traceback" not in done.stderr


def test_list_check_reports_the_broken_plugin_per_row(plugin_dir: Path, workdir: Path) -> None:
    done = _agenteval(plugin_dir, workdir, "criteria", "list", "--check", "--format", "json")
    assert done.returncode == 1, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert rows["example_response_length"]["status"] == "ok"
    assert "agenteval_nonexistent_sdk" in rows["broken_criterion"]["status"]
    assert "Traceback" not in done.stderr


def test_show_describes_the_example(plugin_dir: Path, workdir: Path) -> None:
    done = _agenteval(plugin_dir, workdir, "criteria", "show", "example_response_length")
    assert done.returncode == 0, done.stderr
    assert "agenteval-example-criterion" in done.stdout
    assert "max_words" in done.stdout and "min_words" in done.stdout


def test_the_example_passes_its_own_tests_when_installed(plugin_dir: Path, workdir: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(plugin_dir), env.get("PYTHONPATH")]))
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        str(EXAMPLE),
        str(EXAMPLE / "tests"),
    ]
    done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    # The installed copy was tested, not the source tree.
    check = subprocess.run(
        [sys.executable, "-c", "import agenteval_example_criterion as m; print(m.__file__)"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert Path(check.stdout.strip()).is_relative_to(plugin_dir), check.stdout + check.stderr


def test_run_with_the_example_records_its_plugin(plugin_dir: Path, workdir: Path) -> None:
    out = workdir / "example.json"
    done = _agenteval(
        plugin_dir,
        workdir,
        "run",
        "dice.evalset.json",
        "--actual",
        "actual.json",
        "--criteria",
        "example_response_length",
        "--format",
        "json",
        "--output",
        str(out),
    )
    # 120 words > max_words=100: one case fails, so the run exits 1 (not 2: nothing broke).
    assert done.returncode == 1, done.stderr
    result = json.loads(out.read_text(encoding="utf-8"))
    statuses = {case["eval_id"]: case["status"] for case in result["eval_sets"][0]["cases"]}
    assert statuses == {"short_answer": "PASSED", "long_answer": "FAILED"}
    for case in result["eval_sets"][0]["cases"]:
        (criterion,) = case["criteria"]
        assert criterion["plugin"]["distribution"] == "agenteval-example-criterion"
        assert criterion["plugin"]["version"] == "0.1.0"
    (long_case,) = [c for c in result["eval_sets"][0]["cases"] if c["eval_id"] == "long_answer"]
    assert "120 words (max_words=100)" in long_case["criteria"][0]["reason"]
    assert result["summary"]["criteria"][0]["plugin"]["distribution"] == "agenteval-example-criterion"


def test_run_with_the_example_takes_params_from_a_config(plugin_dir: Path, workdir: Path) -> None:
    done = _agenteval(
        plugin_dir,
        workdir,
        "run",
        "dice.evalset.json",
        "--actual",
        "actual.json",
        "--config",
        "roomy_config.json",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["summary"]["status"] == "PASSED"


def test_run_with_the_broken_criterion_exits_2_with_cause_and_fix(plugin_dir: Path, workdir: Path) -> None:
    done = _agenteval(
        plugin_dir,
        workdir,
        "run",
        "dice.evalset.json",
        "--actual",
        "actual.json",
        "--criteria",
        "broken_criterion",
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    message = done.stderr
    assert "agenteval-broken-example[broken_criterion]" in message
    assert "ModuleNotFoundError" in message and "agenteval_nonexistent_sdk" in message  # the cause
    assert "install" in message.lower()  # the fix
    assert "Traceback" not in message and "Traceback" not in done.stdout
    assert done.stdout.strip() == ""  # nothing was evaluated


def test_builtin_criteria_run_normally_beside_a_broken_plugin(plugin_dir: Path, workdir: Path) -> None:
    done = _agenteval(
        plugin_dir,
        workdir,
        "run",
        "dice.evalset.json",
        "--actual",
        "actual.json",
        "--criteria",
        "tool_trajectory_avg_score,response_match_score",
        "--format",
        "json",
        record_imports=True,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["summary"]["status"] == "PASSED"
    plugins = {c["plugin"]["distribution"] for c in result["summary"]["criteria"]}
    assert plugins == {"agenteval-builtin"}
    assert "broken" not in done.stderr
    assert _imported_plugin_modules(workdir) == []
