"""Reading eval files, actual-invocation files and configs, with precise errors.

Private: ``load_eval_set``, ``load_config`` and ``EvalConfig`` are public in ``agenteval``,
the format-reader contract in ``agenteval.plugins``."""

from ._config import (
    DEFAULT_CRITERIA,
    EFFICIENCY_CRITERIA,
    EvalConfig,
    config_from_data,
    load_config,
    with_efficiency,
)
from ._eval_files import LoadedEvalSet, eval_set_from_data, load_eval_set, read_eval_file
from ._formats import (
    ADK_FORMAT,
    FormatReader,
    FormatWriter,
    eval_file_patterns,
    format_writer,
    format_writers,
    leading_keys,
    read_timeline,
    session_formats,
)
from ._recorded import recorded_eval_file
from ._selection import CONFIG_FILE_NAME, EvalTarget, expand_targets

__all__ = [
    "ADK_FORMAT",
    "CONFIG_FILE_NAME",
    "DEFAULT_CRITERIA",
    "EFFICIENCY_CRITERIA",
    "EvalConfig",
    "EvalTarget",
    "FormatReader",
    "FormatWriter",
    "LoadedEvalSet",
    "config_from_data",
    "eval_file_patterns",
    "eval_set_from_data",
    "expand_targets",
    "format_writer",
    "format_writers",
    "leading_keys",
    "load_config",
    "load_eval_set",
    "read_eval_file",
    "read_timeline",
    "session_formats",
    "recorded_eval_file",
    "with_efficiency",
]
