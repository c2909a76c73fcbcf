"""The contracts of every plugin kind but criteria, for their authors: subclass (or call) what
is here and register it under the entry-point group named beside it. Criteria have their own
contract at the top (``agenteval.Evaluator``); the data model is ``agenteval.models``; the
exceptions a plugin raises are in ``agenteval.errors``.

* agent adapters (``agenteval.agents``): ``Agent``, whose ``start`` gives an ``AgentSession``
  (a crashed agent process: ``agenteval.errors.AgentCrashed``);
* user simulators (``agenteval.user_simulators``): ``UserSimulator``, configured by a
  ``UserSimulatorConfig``, asked with a ``SimulationContext`` for a ``NextUserMessage``
  (``SimulatorStatus``); ``agenteval.errors.UserSimulatorError`` when it cannot answer;
* judge models (``agenteval.judge_models``): ``JudgeModel``, which answers an
  ``agenteval.JudgeRequest`` with an ``agenteval.JudgeResponse`` or raises
  ``agenteval.errors.JudgeCallError`` with one of ``agenteval.errors.REASON_CODES``;
  ``google_auth_error`` (google-auth's errors as those codes), ``retry_after_seconds``,
  ``response_size_cap``, and ``register_secret`` / ``scrub_secrets`` (keys never shown);
* reporters (``agenteval.reporters``): ``Reporter``, given a ``ReportContext``; the aligned
  expected-vs-actual tool trajectory every report shows: ``align_trajectory``
  (``TrajectoryRow``, ``ArgDiff``, ``row_text``), a criterion's recorded alignment as rows
  (``rows_from_details``), one argument difference in words (``diff_text``), and the line
  of each case in its eval file (``case_lines``);
* data-format readers (``agenteval.formats``): ``FormatReader``, recognised by the file's
  ``leading_keys`` (``read_timeline``: a recorded turn's spans, for a viewer;
  ``session_formats``: the installed formats whose files record sessions a case can start
  from, ``FormatReader.recorded_sessions`` and ``session_case``); a file read
  with the loader's checks (``read_bytes``) and parsed strictly (``parse_json``, problems at
  line:column), one array of a document too large to hold read element by element
  (``iter_json_array``, json's errors at the document's line:column), a pydantic
  ``ValidationError`` said with JSON paths
  (``describe_validation_error``, ``json_path``); writers (``agenteval.format_writers``):
  ``FormatWriter``, the installed ones named by ``format_writers`` and made by
  ``format_writer``; an eval file read as ``agenteval run`` reads it, in any installed
  format: ``read_eval_file`` (a ``LoadedEvalSet``: eval set, format name, warnings;
  ``ADK_FORMAT`` is the built-in format's name), the installed formats' file-name
  patterns: ``eval_file_patterns``; ``gc_paused``, the cyclic garbage collector paused while
  a plugin builds or reads many objects at once (what was built filed under the oldest
  generation afterwards); ``can_fork``, whether a forked helper process may run beside this
  one now (the rule the engine's own helpers follow);
* executors (``agenteval.executors``): ``Executor``, which runs ``WorkUnit``s (one case ×
  run each) with a ``UnitRunner`` and the run's ``ExecutorContext``, and hands the records
  back to the driver, the run folder's only writer; an executor whose workers must share a
  judge's limit gives their ``JudgeService`` a ``LimitFactory`` of ``EndpointLimit``s, one per
  ``LimitSpec`` (provider, model, endpoint, and the ``JudgeRates`` the user set; the engine's
  own, in-process one: ``AdaptiveLimit``, which a shared one may wrap);
* custom metric runners (``agenteval.custom_metric_runners``): a callable that runs ADK
  ``custom_metrics`` functions (docs/writing-a-criterion.md); nothing to import;
* commands (``agenteval.commands``, one ``click.Command`` each): ``RUNS_DIR_OPTION`` and
  ``runs_folder`` (``--runs-dir``), ``reports_errors`` (an ``agenteval`` error is one
  message and ``ExitCode.USAGE``, never a traceback), ``rerun_command`` (the command that
  reruns some cases of a recorded run), ``CONFIG_FILE_NAME`` (the config read beside eval
  files).

Nothing else is here: the runtime that calls these plugins is private. Attributes are
imported on first use (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    # agent adapters
    "Agent": "._agents",
    "AgentSession": "._agents",
    # user simulators
    "NextUserMessage": "._agents",
    "SimulationContext": "._agents",
    "SimulatorStatus": "._agents",
    "UserSimulator": "._agents",
    "UserSimulatorConfig": "._loading._simulator_config",
    # judge models
    "JudgeModel": "._judging",
    "google_auth_error": "._judging",
    "register_secret": "._secrets",
    "response_size_cap": "._judging",
    "retry_after_seconds": "._judging",
    "scrub_secrets": "._secrets",
    # reporters
    "ArgDiff": "._reporting",
    "ReportContext": "._reporting",
    "Reporter": "._reporting",
    "TrajectoryRow": "._reporting",
    "align_trajectory": "._reporting",
    "diff_text": "._reporting",
    "rows_from_details": "._reporting",
    "row_text": "._reporting",
    "case_lines": ".runs._locate",
    # data formats: readers and writers
    "ADK_FORMAT": "._loading",
    "FormatReader": "._loading",
    "FormatWriter": "._loading",
    "LoadedEvalSet": "._loading",
    "describe_validation_error": "._loading._paths",
    "eval_file_patterns": "._loading",
    "format_writer": "._loading",
    "format_writers": "._loading",
    "can_fork": "._fork",
    "gc_paused": "._gc",
    "iter_json_array": "._loading._json_stream",
    "json_path": "._loading._paths",
    "leading_keys": "._loading",
    "parse_json": "._loading._json",
    "read_bytes": "._loading._json",
    "read_eval_file": "._loading",
    "read_timeline": "._loading",
    "session_formats": "._loading",
    # commands
    "CONFIG_FILE_NAME": "._loading",
    "RUNS_DIR_OPTION": ".cli._options",
    "ExitCode": ".cli._exit",
    "reports_errors": ".cli._exit",
    "rerun_command": ".cli._rerun",
    "runs_folder": ".cli._options",
    # executors, and the judge limits they may share between workers
    "AdaptiveLimit": "._judging",
    "EndpointLimit": "._judging",
    "JudgeRates": "._judging",
    "LimitFactory": "._judging",
    "LimitSpec": "._judging",
    "Executor": "._run._executor",
    "ExecutorContext": "._run._executor",
    "UnitRunner": "._run._executor",
    "WorkUnit": "._run._executor",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agenteval.plugins' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, "agenteval"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # for type checkers and IDEs; nothing is imported at run time
    from ._agents import (
        Agent,
        AgentSession,
        NextUserMessage,
        SimulationContext,
        SimulatorStatus,
        UserSimulator,
    )
    from ._fork import can_fork
    from ._judging import (
        AdaptiveLimit,
        EndpointLimit,
        JudgeModel,
        JudgeRates,
        LimitFactory,
        LimitSpec,
        google_auth_error,
        response_size_cap,
        retry_after_seconds,
    )
    from ._loading import (
        ADK_FORMAT,
        CONFIG_FILE_NAME,
        FormatReader,
        FormatWriter,
        LoadedEvalSet,
        eval_file_patterns,
        format_writer,
        format_writers,
        leading_keys,
        read_eval_file,
        read_timeline,
        session_formats,
    )
    from ._loading._json import parse_json, read_bytes
    from ._loading._json_stream import iter_json_array
    from ._loading._paths import describe_validation_error, json_path
    from ._loading._simulator_config import UserSimulatorConfig
    from ._reporting import (
        ArgDiff,
        ReportContext,
        Reporter,
        TrajectoryRow,
        align_trajectory,
        diff_text,
        row_text,
        rows_from_details,
    )
    from ._run._executor import Executor, ExecutorContext, UnitRunner, WorkUnit
    from ._secrets import register_secret, scrub_secrets
    from .cli._exit import ExitCode, reports_errors
    from .cli._options import RUNS_DIR_OPTION, runs_folder
    from .cli._rerun import rerun_command
    from .runs._locate import case_lines
